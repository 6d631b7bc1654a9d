import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { describeReport, isSoftware, selectBackend } from '../../src/backends/backend';
import type { Platform } from '../../src/backends/backend';
import { maxRelativeDiff, sanityStep } from '../../src/backends/sanity';
import { SANITY_REFERENCE } from '../../src/backends/sanity-reference';
import { nodePlatform } from '../../src/backends/platform-node';
import { MEASUREMENT_VERSION, measurementKey } from '../../src/backends/auto-choice';
import { VOCAB } from '../../src/core/vocab';

describe('sanity step', () => {
  it("gives the real GPT's finite loss, gradients and AdamW step, agreeing on wasm and cpu within 1e-5", async () => {
    await tf.setBackend('cpu');
    const before = tf.memory().numTensors;
    const cpu = await sanityStep();
    expect(tf.memory().numTensors).toBe(before);
    // loss, (Σg, Σg²) for the 16 parameters of a 1-layer GPT, the update's gradient norm, (Σ Δθ, Σ Δθ²) per parameter, (Σy, Σy²) of a decoding attention
    expect(cpu.length).toBe(1 + 2 * 16 + 1 + 2 * 16 + 2);
    expect(Math.abs(cpu[0] - Math.log(VOCAB.length))).toBeLessThan(0.3); // ≈ log V at init: a near-uniform guess
    const sq = Array.from(cpu.subarray(0, 33)).filter((_, i) => i > 0 && i % 2 === 0);
    expect(sq.filter((x) => x > 1e-12).length).toBeGreaterThan(12); // gradients reach nearly every parameter
    expect(cpu[33]).toBeGreaterThan(0); // the update's pre-clip gradient norm
    const stepSq = Array.from(cpu.subarray(34, 66)).filter((_, i) => i % 2 === 1);
    expect(stepSq.filter((x) => x > 1e-12).length).toBeGreaterThan(12); // the AdamW step moved nearly every parameter
    expect(cpu[67]).toBeGreaterThan(0.01); // the cached attention's output
    // The kept reference (selectBackend's) is what the CPU backend computes today; if the model or
    // the step changed, src/backends/sanity-reference.ts takes the values printed here.
    expect(
      maxRelativeDiff(cpu, SANITY_REFERENCE),
      `new reference: ${JSON.stringify(Array.from(cpu))}`,
    ).toBeLessThan(1e-6);
    await import('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    const wasm = await sanityStep();
    expect(maxRelativeDiff(wasm, cpu)).toBeLessThan(1e-5);
  });

  it('flags NaN and length mismatches as infinitely different', () => {
    expect(maxRelativeDiff(new Float32Array([1, NaN]), new Float32Array([1, 2]))).toBe(Infinity);
    expect(maxRelativeDiff(new Float32Array([1]), new Float32Array([1, 2]))).toBe(Infinity);
    expect(maxRelativeDiff(new Float32Array([1, 3]), new Float32Array([1, 2]))).toBeCloseTo(1 / 3, 6);
  });
});

describe('selectBackend in Node', () => {
  it('auto skips WebGPU and WebGL with reasons and picks wasm', async () => {
    const r = await selectBackend(tf, 'auto', nodePlatform);
    expect(r.backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(r.attempts.map((a) => [a.backend, a.ok])).toEqual([
      ['webgpu', false],
      ['webgl', false],
      ['wasm', true],
    ]);
    expect(r.attempts[0].reason).toMatch(/no WebGPU/);
    expect(r.attempts[2].maxDiff).toBeLessThan(1e-5);
    // Node times nothing when there is nothing to choose between (wasm alone, no Dawn shim).
    expect(r.measurement).toBeUndefined();
    expect(r.attempts[2].reason).toMatch(
      /^the only backend not skipped that passed the sanity check \(untimed: nothing to choose between\); max \|Δ\| vs cpu/,
    );
    expect(describeReport(r)).toMatch(/^wasm \(webgpu: .*; webgl: no WebGL in Node\)$/);
  });

  it('auto with timeAlone times the sole candidate, and reuses a kept measurement of the same devices untimed', async () => {
    const r = await selectBackend(tf, 'auto', nodePlatform, { preset: 'nano', timeAlone: true });
    const m = r.measurement!;
    expect(m).toMatchObject({
      version: MEASUREMENT_VERSION,
      preset: 'nano',
      choice: 'wasm',
      cached: false,
      key: measurementKey('nano', [{ backend: 'wasm' }]),
    });
    expect(m.timings).toHaveLength(1);
    const [t] = m.timings;
    expect(t.backend).toBe('wasm');
    expect(t.warmupMs).toBeGreaterThan(0);
    // The budget decides whether a second step was timed: either way the figure is named for what it is.
    expect(r.attempts[2].reason).toMatch(
      t.stepMs === undefined
        ? /^the only backend not skipped that passed the sanity check: \d+ ms for its first nano train step, compiles included/
        : /^the only backend not skipped that passed the sanity check: \d+ ms per nano train step \(after a \d+ ms warm-up step\) \(measured \d{4}-\d\d-\d\d \d\d:\d\d UTC\); max \|Δ\|/,
    );
    expect(describeReport(r)).toMatch(
      /^wasm, the only backend not skipped that passed the sanity check: \d+ ms/,
    );

    const kept = {
      ...m,
      at: Date.UTC(2026, 0, 2, 3, 4),
      timings: [{ backend: 'wasm' as const, warmupMs: 900, stepMs: 123 }],
    };
    const again = await selectBackend(tf, 'auto', nodePlatform, {
      preset: 'nano',
      timeAlone: true,
      cached: (key) => (key === m.key ? kept : undefined),
    });
    expect(again.backend).toBe('wasm');
    expect(again.measurement).toEqual({ ...kept, cached: true });
    expect(again.attempts[2].reason).toMatch(
      /: 123 ms per nano train step \(after a 900 ms warm-up step\) \(cached, measured 2026-01-02 03:04 UTC\)/,
    );

    // Another model size is another key: measured afresh; a spent budget times nothing and keeps wasm.
    const spent = await selectBackend(tf, 'auto', nodePlatform, {
      preset: 'small',
      timeAlone: true,
      budgetMs: 0,
      cached: () => kept,
    });
    expect(spent.measurement).toMatchObject({
      preset: 'small',
      cached: false,
      choice: 'wasm',
      timings: [{ backend: 'wasm', note: 'not timed: the 0 ms budget was spent' }],
    });
    // So is another wasm thread count: the 1-thread figure is not reused for 2 threads.
    const twoThreads = await selectBackend(tf, 'auto', nodePlatform, {
      preset: 'nano',
      timeAlone: true,
      budgetMs: 0,
      wasmThreads: 2,
      cached: () => kept,
    });
    expect(twoThreads.measurement).toMatchObject({ key: 'v1|nano|wasm(2 threads)', cached: false });
    expect(tf.getBackend()).toBe('wasm');
  });

  it('refuses an explicit backend that cannot run, naming why, and leaves cpu active', async () => {
    const r = await selectBackend(tf, 'webgl', nodePlatform);
    expect(r.backend).toBeNull();
    expect(r.attempts).toEqual([
      expect.objectContaining({ backend: 'webgl', ok: false, reason: 'no WebGL in Node' }),
    ]);
    expect(tf.getBackend()).toBe('cpu');
    expect(describeReport(r)).toMatch(/^refused webgl/);
  });

  it('auto passes over a software device but an explicit request uses it', async () => {
    // A platform whose wasm "device" claims to be software: auto must fall through to cpu.
    const softWasm: Platform = {
      probe: async (b) =>
        b === 'wasm'
          ? { available: true, software: true, reason: 'software adapter swiftshader' }
          : nodePlatform.probe(b),
      load: nodePlatform.load,
    };
    const auto = await selectBackend(tf, 'auto', softWasm);
    expect(auto.backend).toBe('cpu');
    expect(auto.attempts[2].reason).toMatch(
      /software adapter swiftshader: slower than WASM, so auto skips it untimed/,
    );
    expect(auto.attempts[3].reason).toMatch(/^the last resort: no other backend passed the sanity check/);
    const explicit = await selectBackend(tf, 'wasm', softWasm);
    expect(explicit.backend).toBe('wasm');
    expect(explicit.attempts[0].reason).toMatch(/requested explicitly \(software adapter swiftshader\)/);
  });

  it('recognizes software renderers by name', () => {
    expect(
      isSoftware('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)'),
    ).toBe(true);
    expect(isSoftware('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftware('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0)')).toBe(false);
  });
});
