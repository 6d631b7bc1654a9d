/// <reference lib="webworker" />
/**
 * Fetches and reads a result file for `#open=<URL>` (result-fetch-client.ts asks). It runs apart
 * from the page so that the page's CSP keeps `connect-src 'self'`: only this worker, served with
 * its own policy (src/host/headers.ts), may reach the result's host, and only to GET the one URL
 * it is given. It stops reading past MAX_RESULT_BYTES, and reads the file off the main thread, as
 * it reads a dropped or picked file's bytes, with the browser's own gzip and SHA-256
 * (readResultNative).
 */
import { joined, readResultNative } from '../report/result-file';
import { MAX_RESULT_BYTES, ResultRefused } from '../report/result-format';
import type { ResultFetchReply, ResultFetchRequest } from './result-fetch-client';

const MB = MAX_RESULT_BYTES / 2 ** 20;

/** The response's bytes, refused as soon as they pass the limit (a Content-Length past it, before any). */
async function bounded(res: Response): Promise<Uint8Array> {
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (length > MAX_RESULT_BYTES) throw new ResultRefused(`it is larger than ${MB} MB (${length} bytes)`);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_RESULT_BYTES) {
      await reader.cancel();
      throw new ResultRefused(`it is larger than ${MB} MB (reading stopped there)`);
    }
    chunks.push(value);
  }
  return joined(chunks, size);
}

async function fetchResult(url: string): Promise<ResultFetchReply> {
  let res: Response;
  try {
    res = await fetch(url, { mode: 'cors', credentials: 'omit', cache: 'no-cache' });
  } catch {
    // A browser says no more of a refused cross-origin read, on purpose: both causes are named.
    return {
      ok: false,
      message: `${url} could not be fetched: the host is not reachable, or does not allow other sites to read it (no Access-Control-Allow-Origin; docs/sharing.md#hosting-one)`,
    };
  }
  if (!res.ok) return { ok: false, message: `${url}: the host answered ${res.status} ${res.statusText}` };
  try {
    return { ok: true, result: await readResultNative(await bounded(res)) };
  } catch (e) {
    if (!(e instanceof ResultRefused)) throw e;
    return { ok: false, message: `${url}: not opened: ${e.message}` };
  }
}

/** A dropped or picked file's bytes, read here too: a large result costs the page's main thread nothing. */
async function readBytes(name: string, bytes: Uint8Array): Promise<ResultFetchReply> {
  try {
    return { ok: true, result: await readResultNative(bytes) };
  } catch (e) {
    if (!(e instanceof ResultRefused)) throw e;
    return { ok: false, message: `${name}: not opened: ${e.message}` };
  }
}

self.onmessage = (e: MessageEvent<ResultFetchRequest>) => {
  const { data } = e;
  const what = 'url' in data ? data.url : data.name;
  void ('url' in data ? fetchResult(data.url) : readBytes(data.name, data.bytes)).then(
    (reply) => (self as unknown as Worker).postMessage(reply),
    (err: Error) =>
      (self as unknown as Worker).postMessage({ ok: false, message: `${what}: ${err.message}` }),
  );
};
