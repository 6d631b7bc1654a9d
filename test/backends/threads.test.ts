/**
 * The wasm thread rule (src/backends/threads.ts): `auto` divides the cores among the runs training
 * at once, at least 1 and at most MAX_AUTO_THREADS, only on a cross-origin isolated page; an
 * explicit count is used as asked; and how many runs train at once (workers/run-start.ts runsAtOnce).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { runsAtOnce } from '../../src/workers/run-start';
import { MAX_AUTO_THREADS, isThreadSetting, wasmThreadsFor } from '../../src/backends/threads';

const isolated = (cores: number) => ({ cores, isolated: true });

describe('wasm threads per run', () => {
  it('auto gives each run its share of the cores, at least 1, at most MAX_AUTO_THREADS', () => {
    const auto = (cores: number, runs: number) => wasmThreadsFor('auto', runs, isolated(cores)).threads;
    expect(auto(2, 2)).toBe(1); // the default two runs on 2 cores: nothing changes
    expect(auto(2, 1)).toBe(2);
    expect(auto(3, 2)).toBe(1);
    expect(auto(8, 2)).toBe(4);
    expect(auto(8, 3)).toBe(2);
    expect(auto(1, 1)).toBe(1);
    expect(MAX_AUTO_THREADS).toBe(4);
    expect(auto(16, 1)).toBe(MAX_AUTO_THREADS);
    expect(auto(64, 8)).toBe(MAX_AUTO_THREADS);
    expect(auto(NaN, 1)).toBe(1); // a browser that hides its cores
    expect(wasmThreadsFor('auto', 2, isolated(2)).why).toBe('auto: 2 cores among 2 runs training at once');
    expect(wasmThreadsFor('auto', 1, isolated(16)).why).toBe(
      'auto: 16 cores among 1 run training at once (at most 4)',
    );
  });

  it('an explicit count is used as asked; a page that is not isolated runs 1 thread whatever is asked', () => {
    expect(wasmThreadsFor(3, 2, isolated(2))).toEqual({ threads: 3, why: '3 asked in the backend panel' });
    expect(wasmThreadsFor(1, 1, isolated(8)).threads).toBe(1);
    for (const setting of ['auto', 2] as const) {
      expect(wasmThreadsFor(setting, 1, { cores: 8, isolated: false })).toEqual({
        threads: 1,
        why: 'the page is not cross-origin isolated (no SharedArrayBuffer), so wasm runs 1 thread',
      });
    }
  });

  it('accepts only the settings the panel makes (a kept value that is not one is ignored)', () => {
    for (const ok of ['auto', 1, 2, 16]) expect(isThreadSetting(ok), String(ok)).toBe(true);
    for (const bad of [0, 17, 1.5, -2, '2', null, undefined, NaN])
      expect(isThreadSetting(bad), String(bad)).toBe(false);
  });

  it('counts the runs that train at once: every run × seed, up to the worker slots', () => {
    expect(runsAtOnce(DEFAULT_EXPERIMENT, 2)).toBe(2);
    const one = { ...DEFAULT_EXPERIMENT, runs: DEFAULT_EXPERIMENT.runs.slice(0, 1) };
    expect(runsAtOnce(one, 2)).toBe(1);
    const sixRuns = { ...DEFAULT_EXPERIMENT, seeds: 3 };
    expect(runsAtOnce(sixRuns, 2)).toBe(2); // 2 slots on 2 cores, the other 4 queued
    expect(runsAtOnce(sixRuns, 8)).toBe(6);
  });
});
