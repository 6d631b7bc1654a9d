/**
 * One helper thread of the fused kernels (kernel-threads.ts): instantiates the kernels module on the
 * wasm backend's shared heap, says it is ready, then waits on the control block for each dispatch
 * (kernel-thread-ops.ts) and runs its block of rows, until a STOP dispatch: then it closes (the
 * pool's owner also terminates it).
 */
import { DONE, GEN, OP, STOP, runPart } from './kernel-thread-ops';
import type { KernelExports } from './kernel-types';

interface Start {
  memory: WebAssembly.Memory;
  module: WebAssembly.Module;
  ctrl: Int32Array;
  part: number;
}

onmessage = (e: MessageEvent<Start>) => {
  const { memory, module, ctrl, part } = e.data;
  const k = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as KernelExports;
  let gen = Atomics.load(ctrl, GEN);
  postMessage('ready');
  for (;;) {
    Atomics.wait(ctrl, GEN, gen);
    gen = Atomics.load(ctrl, GEN);
    if (Atomics.load(ctrl, OP) === STOP) return close();
    runPart(k, ctrl, part);
    Atomics.add(ctrl, DONE, 1);
    Atomics.notify(ctrl, DONE);
  }
};
