/**
 * The typed message protocol between the page and its workers: discriminated unions on `type`,
 * a `runId` on every message, switched on exhaustively at both ends. The page side never imports
 * tfjs; everything it learns about a run arrives here. (The Training-loop issue adds the run
 * control messages: start, pause, step, stop, set a live hyper-parameter, snapshot.)
 */
import type { BackendName } from '../core/config';
import type { BackendReport } from './backend';

export type RunId = string & { readonly __brand: 'RunId' };
export const runId = (s: string): RunId => s as RunId;

/** Page → worker. */
export type ToWorker = { type: 'init'; runId: RunId; backend: BackendName };

/** Worker → page. */
export type FromWorker =
  | { type: 'backend'; runId: RunId; report: BackendReport }
  | { type: 'error'; runId: RunId; message: string };
