/**
 * Workflow files opened in the page, read and checked off the main thread: readWorkflowFiles
 * (src/tasks/workflow-files.ts) runs in a fresh worker (workflow-read.worker.ts), so a 50,000-row
 * dataset is parsed, checked and split there, never on the main thread. The page defines the
 * workflow's task from the answer, without its rows (defineTransitions in src/tasks/registry.ts).
 */
import type { ReadReply, ReadRequest } from '../tasks/workflow-files';

/** Reads and checks the files in a fresh worker, which exits once it has answered. */
export function readInWorker(request: ReadRequest): Promise<ReadReply> {
  const worker = new Worker(new URL('./workflow-read.worker.ts', import.meta.url), {
    type: 'module',
    name: 'workflow-read',
  });
  return new Promise<ReadReply>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<ReadReply>) => resolve(e.data);
    worker.onerror = (e) => reject(new Error(e.message || 'the workflow reader failed'));
    // The bytes are copied: the page keeps its own (each run worker gets the dataset from it).
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}
