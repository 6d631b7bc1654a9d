/// <reference lib="webworker" />
/** Reads and checks workflow files off the main thread (see workflow-read.ts), then exits. */
import { readWorkflowFiles, type ReadReply, type ReadRequest } from '../tasks/workflow-files';

self.onmessage = (e: MessageEvent<ReadRequest>) => {
  let reply: ReadReply;
  try {
    reply = readWorkflowFiles(e.data);
  } catch (err) {
    reply = { ok: false, issues: [{ file: 'the files', where: 'reading', message: (err as Error).message }] };
  }
  (self as unknown as Worker).postMessage(reply);
};
