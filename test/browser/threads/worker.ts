/**
 * One run of the threads check: starts the wasm backend as the lab's run worker does
 * (platform-browser.ts) with the thread count asked, then one real forward + backward of the `nano`
 * GPT (8 rows × 64 tokens, seeded weights and tokens) with the kernel set asked, one AdamW step and
 * a short KV-cached decode. Posts the threads
 * the backend runs, the threads the fused kernels run on, and the loss and every gradient.
 * With `restart`, it then disposes the backend (tfjs's engine reset, a new heap on the next start),
 * starts it again and computes the same again: the old helper threads must have ended, and the new
 * ones must split the GEMMs as before.
 */
import * as tf from '@tensorflow/tfjs';
import { browserPlatform, setWasmThreads, wasmThreadsRunning } from '../../../src/backends/platform-browser';
import { setFusedKernels, wasmKernelThreads } from '../../../src/model/kernels/wasm';
import {
  kernelThreadsControl,
  pingKernelThreads,
  splitCounts,
} from '../../../src/model/kernels/kernel-threads';
import { GPT } from '../../../src/model/gpt';
import { gptConfig } from '../../../src/core/gpt-config';
import { disposeBatch, packRows, toTensors } from '../../../src/model/logprobs';
import { nextTokenLoss, supervisedStep } from '../../../src/model/warmstart';
import { AdamW } from '../../../src/model/optim';
import { sample } from '../../../src/model/sampler';
import { Prng } from '../../../src/core/prng';
import { maxDiff } from './diff';

export interface ThreadsRun {
  threads: number;
  kernels: 'fused' | 'plain';
  restart?: boolean;
}
/** What a restart of the backend did to the helper threads (ThreadsRun.restart). */
export interface RestartCheck {
  /** Helpers of the first backend that answered a ping before its dispose, and after. */
  answeredBefore: number;
  answeredAfter: number;
  /** The restarted backend's kernel threads, and whether it has a new control block. */
  kernelThreads: number;
  newPool: boolean;
  /** The restarted backend's values against the first's: max |Δ| / (1 + |ref|). */
  maxDiff: number;
}
export interface ThreadsReply {
  isolated: boolean;
  /** What tfjs's backend reports (getThreadsCount). */
  threads: number;
  /** Threads the fused kernels' GEMMs run on (0: the kernels module did not bind this backend's heap). */
  kernelThreads: number;
  /** The loss, every parameter's gradient, the weights after one AdamW step, then 4 decoded tokens per row and their log-probs (KV cache). */
  values: Float32Array;
  /** How many times each kernel-threads op (GEMM, GEMM_TN, ATTN_FWD, ATTN_BWD, GELU_FWD, GELU_BWD, GEMM_EP) was split. */
  splits: number[];
  restart?: RestartCheck;
}

/** Loss, gradients, weights after one AdamW step and a KV-cached decode, on the active backend. */
async function compute(): Promise<Float32Array> {
  const cfg = gptConfig('nano', { contextLength: 64 });
  const rng = new Prng(3);
  const tokens = (n: number) =>
    Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (cfg.vocabSize - 5)));
  const rows = Array.from({ length: 8 }, () => ({ prompt: tokens(33), response: tokens(31) }));
  const batch = toTensors(packRows(rows, { contextLength: 64, vocabSize: cfg.vocabSize, pad: 0 }));
  const model = GPT.create(cfg, 1);
  const out = tf.tidy(() => {
    const { value, grads } = tf.variableGrads(() => nextTokenLoss(model, batch), model.variables);
    return tf.concat([
      tf.reshape(value, [1]),
      ...model.variables.map((v) => tf.reshape(grads[v.name], [-1])),
    ]);
  });
  const grads = (await out.data()) as Float32Array;
  // Then one AdamW update (its own wasm kernel) and a KV-cached decode (the cache written in place).
  const opt = new AdamW(model, { lr: 1e-3 });
  await supervisedStep(model, opt, batch);
  const weights = tf.concat(model.variables.map((v) => tf.reshape(v, [-1])));
  const decoded = await sample(
    model,
    rows.map((r) => r.prompt),
    { maxNewTokens: 4, seeds: rows.map((_, i) => i), eos: -1, pad: 0, useCache: true },
  );
  const values = Float32Array.from([
    ...grads,
    ...(await weights.data()),
    ...decoded.samples.flatMap((d) => [...d.tokens, ...d.logp]),
  ]);
  weights.dispose();
  opt.dispose();
  out.dispose();
  model.dispose();
  disposeBatch(batch);
  return values;
}

/** Disposes the wasm backend and starts it again (a new heap), then computes again. */
async function restart(threads: number, values: Float32Array): Promise<RestartCheck> {
  const ctrl = kernelThreadsControl();
  if (!ctrl) throw new Error('no kernel threads to restart');
  const answeredBefore = await pingKernelThreads(ctrl, threads - 1, 2000);
  tf.engine().reset();
  // terminate() ends a worker asynchronously: give it time before asking.
  await new Promise((r) => setTimeout(r, 200));
  const answeredAfter = await pingKernelThreads(ctrl, threads - 1, 500);
  if (!(await tf.setBackend('wasm'))) throw new Error('wasm failed to start again');
  const kernelThreads = await wasmKernelThreads();
  const again = await compute();
  return {
    answeredBefore,
    answeredAfter,
    kernelThreads,
    newPool: ![null, ctrl].includes(kernelThreadsControl()),
    maxDiff: maxDiff(again, values),
  };
}

onmessage = async (e: MessageEvent<ThreadsRun>) => {
  try {
    setWasmThreads(e.data.threads);
    await browserPlatform.load('wasm');
    if (!(await tf.setBackend('wasm'))) throw new Error('wasm failed to start');
    setFusedKernels(e.data.kernels === 'fused');
    const kernelThreads = e.data.kernels === 'fused' ? await wasmKernelThreads() : 0;
    const values = await compute();
    const splits = [...splitCounts];
    const threads = await wasmThreadsRunning();
    const again = e.data.restart ? await restart(e.data.threads, values) : undefined;
    const reply: ThreadsReply = {
      isolated: crossOriginIsolated,
      threads,
      kernelThreads,
      values,
      splits,
      ...(again ? { restart: again } : {}),
    };
    postMessage(reply, [values.buffer]);
  } catch (err) {
    postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
};
