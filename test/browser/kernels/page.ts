/**
 * The page of the WebGPU kernel check: exposes `checkKernels()`, which loads the webgpu backend (it
 * registers itself only where navigator.gpu exists, so after the page has it) and compares every
 * fused WGSL op with the plain tfjs ops on the cpu backend (check.ts), and `checkAdamW()`, which
 * runs AdamW's staged updates on both.
 */
import { checkAdamW, checkKernels, type KernelCheck } from './check';

async function check(): Promise<KernelCheck> {
  await import('@tensorflow/tfjs-backend-webgpu');
  return checkKernels('webgpu');
}

async function adamW(): ReturnType<typeof checkAdamW> {
  await import('@tensorflow/tfjs-backend-webgpu');
  return checkAdamW('webgpu');
}

Object.assign(globalThis, { checkKernels: check, checkAdamW: adamW });
