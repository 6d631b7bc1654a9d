/**
 * Dedicated worker that hosts one run: it picks the compute backend (with the sanity check) and,
 * once the Training-loop issue lands, runs the trainer. tfjs lives only in workers, never on the
 * page. Backend modules load inside the worker after `navigator.gpu` is checked (tfjs #7914).
 */
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from './backend';
import { browserPlatform } from './platform-browser';
import type { FromWorker, ToWorker } from './protocol';

const post = (msg: FromWorker) => postMessage(msg);

onmessage = async (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  switch (msg.type) {
    case 'init': {
      try {
        const report = await selectBackend(tf, msg.backend, browserPlatform);
        post({ type: 'backend', runId: msg.runId, report });
      } catch (e) {
        post({ type: 'error', runId: msg.runId, message: `backend selection failed: ${(e as Error).message}` });
      }
      break;
    }
    default: {
      const never: never = msg.type;
      post({ type: 'error', runId: (msg as ToWorker).runId, message: `unknown message ${String(never)}` });
    }
  }
};
