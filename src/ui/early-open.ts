/**
 * An `#open=<URL>` link's read, started by the page's first script (index.html), before the page's
 * main module has loaded: the result worker fetches and reads the file on the second core while
 * the page starts on the first (docs/sharing.md#opening-speed). The page's link handling
 * (url-sync.ts, interop.ts) takes the read when it opens that link; an address that is no result
 * link, or one refused, starts nothing, and url-sync says why as before.
 */
import { resultLinkOf } from '../report/result-link';
import type { Result } from '../report/result-format';
import { readResultInWorker } from '../workers/result-fetch-client';

let early: { url: string; read: Promise<Result> } | null = null;

const link = resultLinkOf(window.location.hash);
if (link && 'url' in link) {
  const read = readResultInWorker({ url: link.url });
  read.catch(() => undefined); // its refusal is said by whoever takes it
  early = { url: link.url, read };
}

/** The read started at load for `url`, once; null where none was, or it went to an earlier call. */
export function takeEarlyRead(url: string): Promise<Result> | null {
  const read = early?.url === url ? early.read : null;
  early = null;
  return read;
}
