// Shared test setup: tfjs on the Node backends (cpu, and wasm loaded from node_modules), tiny models.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { GPT } from '../../src/model/gpt';
import { gptConfig, type GPTConfig } from '../../src/core/gpt-config';

export const BACKENDS = ['cpu', 'wasm'] as const;

export async function useBackend(name: string): Promise<void> {
  if (!(await tf.setBackend(name))) throw new Error(`backend ${name} failed to start`);
  await tf.ready();
}

/** nano with a short context: fast on both backends. */
export const tinyConfig = (over: Partial<GPTConfig> = {}): GPTConfig =>
  gptConfig('nano', { contextLength: 32, ...over });

export const tinyModel = (seed = 1, over: Partial<GPTConfig> = {}): GPT => GPT.create(tinyConfig(over), seed);

/** Largest absolute elementwise difference. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
