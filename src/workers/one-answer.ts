/**
 * A worker asked one question: the import (import-client.ts) and the result fetch
 * (result-fetch-client.ts) each start a fresh worker, send it one request and end it once it has
 * answered, with what it sends back or an Error with its message.
 */

/** A one-question worker's answer. */
export type OneAnswer<T> = { ok: true; result: T } | { ok: false; message: string };

/** Sends `request` to `worker` (its buffers in `transfer`), resolves its answer, then ends it; `what` names it in an error. */
export function askOnce<T>(
  worker: Worker,
  what: string,
  request: unknown,
  transfer: Transferable[] = [],
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<OneAnswer<T>>) =>
      e.data.ok ? resolve(e.data.result) : reject(new Error(e.data.message));
    worker.onerror = (e) => reject(new Error(e.message || `the ${what} failed`));
    worker.postMessage(request, transfer);
  }).finally(() => worker.terminate());
}
