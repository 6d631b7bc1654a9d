/**
 * One run of the threads check: starts the wasm backend as the lab's run worker does
 * (platform-browser.ts) with the thread count asked, then one real forward + backward of the `nano`
 * GPT (8 rows × 64 tokens, seeded weights and tokens) with the kernel set asked, one AdamW step and
 * a short KV-cached decode. Posts the threads
 * the backend runs, the threads the fused kernels run on, and the loss and every gradient.
 */
import * as tf from '@tensorflow/tfjs';
import { browserPlatform, setWasmThreads, wasmThreadsRunning } from '../../../src/runtime/platform-browser';
import { setFusedKernels, wasmKernelThreads } from '../../../src/model/kernels/wasm';
import { GPT } from '../../../src/model/gpt';
import { gptConfig } from '../../../src/model/gpt-config';
import { disposeBatch, packRows, toTensors } from '../../../src/model/logprobs';
import { nextTokenLoss, supervisedStep } from '../../../src/model/warmstart';
import { AdamW } from '../../../src/model/optim';
import { sample } from '../../../src/model/sampler';
import { Prng } from '../../../src/core/prng';

export interface ThreadsRun {
  threads: number;
  kernels: 'fused' | 'plain';
}
export interface ThreadsReply {
  isolated: boolean;
  /** What tfjs's backend reports (getThreadsCount). */
  threads: number;
  /** Threads the fused kernels' GEMMs run on (0: the kernels module did not bind this backend's heap). */
  kernelThreads: number;
  /** The loss, every parameter's gradient, the weights after one AdamW step, then 4 decoded tokens per row and their log-probs (KV cache). */
  values: Float32Array;
}

onmessage = async (e: MessageEvent<ThreadsRun>) => {
  try {
    setWasmThreads(e.data.threads);
    await browserPlatform.load('wasm');
    if (!(await tf.setBackend('wasm'))) throw new Error('wasm failed to start');
    setFusedKernels(e.data.kernels === 'fused');
    const kernelThreads = e.data.kernels === 'fused' ? await wasmKernelThreads() : 0;
    const cfg = gptConfig('nano', { contextLength: 64 });
    const rng = new Prng(3);
    const tokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * (cfg.vocabSize - 5)));
    const rows = Array.from({ length: 8 }, () => ({ prompt: tokens(33), response: tokens(31) }));
    const batch = toTensors(packRows(rows, { contextLength: 64, vocabSize: cfg.vocabSize, pad: 0 }));
    const model = GPT.create(cfg, 1);
    const out = tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => nextTokenLoss(model, batch), model.variables);
      return tf.concat([tf.reshape(value, [1]), ...model.variables.map((v) => tf.reshape(grads[v.name], [-1]))]);
    });
    const grads = (await out.data()) as Float32Array;
    // Then one AdamW update (its own wasm kernel) and a KV-cached decode (the cache written in place).
    const opt = new AdamW(model, { lr: 1e-3 });
    await supervisedStep(model, opt, batch);
    const weights = tf.concat(model.variables.map((v) => tf.reshape(v, [-1])));
    const decoded = await sample(model, rows.map((r) => r.prompt), { maxNewTokens: 4, seeds: rows.map((_, i) => i), eos: -1, pad: 0, useCache: true });
    const values = Float32Array.from([...grads, ...(await weights.data()), ...decoded.samples.flatMap((d) => [...d.tokens, ...d.logp])]);
    weights.dispose();
    opt.dispose();
    const reply: ThreadsReply = { isolated: crossOriginIsolated, threads: await wasmThreadsRunning(), kernelThreads, values };
    out.dispose();
    model.dispose();
    disposeBatch(batch);
    postMessage(reply, [values.buffer]);
  } catch (err) {
    postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
};
