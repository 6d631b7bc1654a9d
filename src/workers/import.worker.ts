/// <reference lib="webworker" />
/** Parses dropped files off the main thread (see import-client.ts). */
import { importFiles } from '../interop/import';
import { packRun } from './import-client';
import type { ImportReply, ImportRequest } from './import-client';

self.onmessage = (e: MessageEvent<ImportRequest>) => {
  let reply: ImportReply;
  try {
    const { runs, refused } = importFiles(e.data.files);
    reply = { ok: true, result: { runs: runs.map(packRun), refused } };
  } catch (err) {
    reply = { ok: false, message: (err as Error).message };
  }
  (self as unknown as Worker).postMessage(
    reply,
    reply.ok ? reply.result.runs.map((r) => r.frames.buffer) : [],
  );
};
