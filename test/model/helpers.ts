// Shared test setup: tfjs on the Node backends (cpu, and wasm loaded from node_modules), tiny models.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { GPT } from '../../src/model/gpt';
import { gptConfig, type GPTConfig } from '../../src/core/gpt-config';
import type { packRows } from '../../src/model/logprobs';

type Packed = ReturnType<typeof packRows>;

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

/**
 * Lays per-response-token values (e.g. old log-probs, advantages) out as (B*T), zeros elsewhere: the
 * (B, T) layout tests compare against (training reads response tokens through responsePositions).
 */
export function scatterResponses(packed: Packed, values: readonly ArrayLike<number>[]): Float32Array {
  const out = new Float32Array(packed.B * packed.T);
  values.forEach((vals, r) => {
    if (vals.length !== packed.lengths[r])
      throw new Error(`row ${r}: ${vals.length} values for ${packed.lengths[r]} response tokens`);
    for (let i = 0; i < vals.length; i++) out[packed.starts[r] + i] = vals[i];
  });
  return out;
}

/** The inverse of scatterResponses: per-row arrays of a read-back (B*T) tensor's response entries. */
export function gatherResponses(packed: Packed, flat: ArrayLike<number>): number[][] {
  return packed.starts.map((s, r) => Array.from({ length: packed.lengths[r] }, (_, i) => flat[s + i]));
}
