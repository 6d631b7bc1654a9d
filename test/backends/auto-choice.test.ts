import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { DEFAULT_EXPERIMENT, ExperimentSchema } from '../../src/core/config';
import {
  chooseFastest,
  describeTiming,
  figureOf,
  measurementKey,
  timedPreset,
} from '../../src/backends/auto-choice';
import type { Timing } from '../../src/backends/backend-types';
import { timeTrainStep } from '../../src/backends/measure';

describe("auto's choice", () => {
  it('times a real train step after a warm-up, frees what it built, and keeps the least timed step', async () => {
    await tf.setBackend('wasm');
    const before = tf.memory().numTensors;
    const wasm = await timeTrainStep('wasm', 'nano', 60_000);
    expect(tf.memory().numTensors).toBe(before); // model, optimizer state and batch freed
    expect(wasm.backend).toBe('wasm');
    expect(wasm.warmupMs).toBeGreaterThan(0);
    expect(wasm.stepMs).toBeGreaterThan(0); // a 60 s budget leaves room for the timed second step
    expect(figureOf(wasm)).toBe(wasm.stepMs);
    // The cpu backend's step is many seconds here (tests run tfjs's cpu ops): its figure stands in scaled.
    const slower: Timing = { backend: 'cpu', warmupMs: wasm.warmupMs! * 3, stepMs: wasm.stepMs! * 3 };
    const faster: Timing = { backend: 'webgpu', warmupMs: wasm.warmupMs! * 3, stepMs: wasm.stepMs! / 3 };
    expect(chooseFastest([wasm, slower])).toBe('wasm');
    expect(chooseFastest([slower, wasm])).toBe('wasm');
    expect(chooseFastest([wasm, faster, slower])).toBe('webgpu'); // the warm-up, slower than wasm's, does not decide
  });

  it('lets a first-step-only figure win only when even that upper bound beats every timed step', () => {
    const wasm: Timing = { backend: 'wasm', warmupMs: 400, stepMs: 120 };
    expect(chooseFastest([wasm, { backend: 'webgpu', warmupMs: 900 }])).toBe('wasm');
    expect(chooseFastest([wasm, { backend: 'webgpu', warmupMs: 100 }])).toBe('webgpu');
    // A candidate with no figure (its step outlasted the budget) is never chosen.
    expect(
      chooseFastest([
        { backend: 'webgpu', note: 'its first step did not finish' },
        { backend: 'wasm', warmupMs: 5000 },
      ]),
    ).toBe('wasm');
    // No figure at all: wasm, the dependable one, whatever the order.
    expect(
      chooseFastest([
        { backend: 'webgl', note: 'x' },
        { backend: 'wasm', note: 'y' },
      ]),
    ).toBe('wasm');
    expect(() => chooseFastest([])).toThrow(/no candidate/);
    expect(describeTiming({ backend: 'webgpu', warmupMs: 912.4 }, 'small')).toBe(
      '912 ms for its first small train step, compiles included (no budget left to time a second)',
    );
    expect(
      describeTiming({ backend: 'webgl', note: 'not timed: the 3000 ms budget was spent' }, 'nano'),
    ).toBe('not timed: the 3000 ms budget was spent');
  });

  it("keys a measurement by model size and each candidate's device, in any order", () => {
    const gpu = {
      vendor: 'nvidia',
      architecture: 'ampere',
      device: '',
      description: 'RTX 3060',
      isFallbackAdapter: false,
    };
    const a = measurementKey('small', [{ backend: 'webgpu', adapter: gpu }, { backend: 'wasm' }]);
    expect(a).toBe('v1|small|wasm|webgpu(nvidia/ampere//RTX 3060)');
    expect(measurementKey('small', [{ backend: 'wasm' }, { backend: 'webgpu', adapter: gpu }])).toBe(a);
    expect(
      measurementKey('small', [
        { backend: 'webgpu', adapter: { ...gpu, description: 'RTX 4090' } },
        { backend: 'wasm' },
      ]),
    ).not.toBe(a);
    expect(measurementKey('nano', [{ backend: 'webgl', renderer: 'ANGLE (Intel)' }])).toBe(
      'v1|nano|webgl(ANGLE (Intel))',
    );
  });

  it('keys wasm by its thread count past 1, so a 1-thread step is never reused for 2', () => {
    const one = measurementKey('small', [{ backend: 'wasm' }]);
    expect(measurementKey('small', [{ backend: 'wasm' }], 1)).toBe(one);
    expect(one).toBe('v1|small|wasm'); // as kept before threads existed
    const two = measurementKey('small', [{ backend: 'wasm' }, { backend: 'webgl', renderer: 'ANGLE' }], 2);
    expect(two).toBe('v1|small|wasm(2 threads)|webgl(ANGLE)');
    expect(measurementKey('small', [{ backend: 'wasm' }], 4)).not.toBe(
      measurementKey('small', [{ backend: 'wasm' }], 2),
    );
  });

  it("times the experiment's largest model size", () => {
    expect(timedPreset(DEFAULT_EXPERIMENT)).toBe(DEFAULT_EXPERIMENT.models.preset);
    const mixed = ExperimentSchema.parse({
      ...DEFAULT_EXPERIMENT,
      task: 'search-roles',
      models: {
        ...DEFAULT_EXPERIMENT.models,
        perAgent: { verifier: 'nano', search: 'small', answer: 'nano' },
      },
    });
    expect(timedPreset(mixed)).toBe('small');
  });
});
