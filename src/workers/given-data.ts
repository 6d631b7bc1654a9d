/**
 * A workflow's dataset file as the page hands it to a worker (a run's `start`, a preparation's
 * request): its rows registered in the worker's task registry by the SHA-256 of its bytes, which
 * the workflow names, before anything that reads them is built (docs/workflows.md#in-the-page).
 */
import { describeIssues } from '../core/workflow/file';
import { registerDataFile } from '../tasks/registry';

/** A dataset file the page gives a worker. */
export interface GivenData {
  file: string;
  bytes: ArrayBuffer;
}

/** Registers the file's rows here, or throws why they cannot be read (each refusal by its line). */
export function registerGivenData({ file, bytes }: GivenData): void {
  const read = registerDataFile(file, new Uint8Array(bytes));
  if (!read.ok) throw new Error(describeIssues(file, read.issues));
}
