/**
 * `#open=<URL>`: the result file fetched and read in a worker of its own (result-fetch.worker.ts,
 * whose CSP alone lets it reach another origin); the worker exits once it has answered.
 */
import type { Result } from '../report/result-format';
import { askOnce } from './one-answer';
import type { OneAnswer } from './one-answer';

export type ResultFetchReply = OneAnswer<Result>;

/** The result at `url`, or an Error whose message says why it could not be opened. */
export function fetchResultInWorker(url: string): Promise<Result> {
  const worker = new Worker(new URL('./result-fetch.worker.ts', import.meta.url), {
    type: 'module',
    name: 'result-fetch',
  });
  return askOnce(worker, 'result fetch worker', { url });
}
