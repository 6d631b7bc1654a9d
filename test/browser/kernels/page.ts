/**
 * The page of the WebGPU kernel check: exposes `checkKernels()`, which loads the webgpu backend (it
 * registers itself only where navigator.gpu exists, so after the page has it) and compares every
 * fused WGSL op with the plain tfjs ops on the cpu backend (check.ts).
 */
import { checkKernels, type KernelCheck } from './check';

async function check(): Promise<KernelCheck> {
  await import('@tensorflow/tfjs-backend-webgpu');
  return checkKernels('webgpu');
}

(globalThis as unknown as { checkKernels: typeof check }).checkKernels = check;
