/**
 * A result file read in a worker of its own (result-fetch.worker.ts), off the page's main thread:
 * fetched for `#open=<URL>` (its CSP alone lets it reach another origin), or a dropped or picked
 * file's bytes; the worker exits once it has answered.
 */
import type { Result } from '../report/result-format';
import { askOnce } from './one-answer';
import type { OneAnswer } from './one-answer';

export type ResultFetchRequest = { url: string } | { name: string; bytes: Uint8Array };
export type ResultFetchReply = OneAnswer<Result>;

/** The result at `url` or in `bytes` (a file's, by `name`), or an Error whose message says why it could not be opened. */
export function readResultInWorker(request: ResultFetchRequest): Promise<Result> {
  const worker = new Worker(new URL('./result-fetch.worker.ts', import.meta.url), {
    type: 'module',
    name: 'result-fetch',
  });
  const transfer = 'bytes' in request ? [request.bytes.buffer as ArrayBuffer] : [];
  return askOnce(worker, 'result worker', request, transfer);
}
