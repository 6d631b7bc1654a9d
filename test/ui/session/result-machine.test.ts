/**
 * A shared result says what its session recorded of the machine, never what it did not keep:
 * Past sessions → Share of a session stored before backends and kernels were kept says "not
 * recorded" for both (not "unknown", nor the backend the page uses now, nor the session on
 * screen's), a session that kept them names them, and Share result of a session restored after a
 * reload takes them from its stored record. The recorder keeps what a run trained on across a
 * fallback and a resume (andThen); the banner says "backend not recorded" (machineWord).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeExperiment } from '../../../src/core/url';
import { readResult } from '../../../src/report/result-file';
import { machineWord, NOT_RECORDED } from '../../../src/ui/opened-words';
import { initRunData, pushFrame } from '../../../src/ui/run-data';
import { andThen } from '../../../src/ui/session/recorder';
import type { StoredFrame } from '../../../src/ui/session/recorder';
import { sessionResult, storedSessionResult } from '../../../src/ui/session/result';
import { resetLab, useLab } from '../../../src/ui/session/store';
import type { RunView, StoredRun, StoredSession } from '../../../src/ui/session/store';
import type { RunId } from '../../../src/workers/protocol';
import { smallExperiment } from '../../report/result-fixture';

const exp = { ...smallExperiment(), seeds: 1, steps: 2 };
const keys = ['step'];

function storedRun(i: number, kept: Partial<StoredRun> = {}): StoredRun {
  const { label } = exp.runs[i];
  return {
    ...{ id: `t-${i}` as RunId, label, seed: 0, runIndex: i, color: '#000', keys, agents: ['alice'] },
    ...{ models: [], base: {}, lastStep: 2, markers: [] },
    ...kept,
  };
}

function stored(kept: Partial<StoredRun>[] = [{}, {}]): StoredSession {
  return {
    ...{ id: 'st1', createdAt: Date.UTC(2026, 11, 2, 13, 26), experiment: encodeLink(), lastStep: 2 },
    runs: kept.map((k, i) => storedRun(i, k)),
  };
}

function encodeLink(): string {
  return encodeExperiment(exp);
}

const frames = (s: StoredSession): StoredFrame[] =>
  s.runs.flatMap((r) =>
    [0, 1].map((step) => ({ session: s.id, seq: step, run: r.id, step, values: Float64Array.of(step) })),
  );

/** The page uses webgpu now, and a live run on screen said its kernels: neither is the stored session's. */
function pageOnWebgpu(more: Parameters<typeof resetLab>[0] = {}): void {
  const report = { backend: 'webgpu', requested: 'auto' } as unknown as NonNullable<RunView['backend']>;
  const live: RunView = {
    ...{ id: 'live-0' as RunId, label: 'GRPO', seed: 0, runIndex: 0, color: '#000', state: 'done' },
    ...{ step: 2, agents: ['alice'], models: [], base: {}, backend: report, kernels: 'webgpu shaders' },
    ...{ tokensPerS: NaN, markers: [], rolloutStep: -1 },
  };
  resetLab({ backend: { state: 'ready', report } as never, runs: [live], ...more });
}

beforeEach(() => {
  vi.stubGlobal('navigator', { hardwareConcurrency: 2, platform: 'Linux x86_64', userAgent: 'a browser' });
  pageOnWebgpu();
});
afterEach(() => {
  vi.unstubAllGlobals();
  resetLab();
});

describe("a shared result's machine says what its session recorded", () => {
  it('Past sessions → Share of a session that kept no backend or kernels: not recorded, not the page now', () => {
    const s = stored();
    const [m] = readResult(storedSessionResult(s, frames(s))).body.machines;
    expect([m.backend, m.kernels]).toEqual([NOT_RECORDED, NOT_RECORDED]);
    expect(m.date).toBe('2026-12-02T13:26:00.000Z');
  });

  it("Past sessions → Share of a session that kept them: its runs' own, once each", () => {
    const s = stored([
      { backend: 'wasm', kernels: 'fused wasm SIMD' },
      { backend: 'wasm', kernels: 'fused wasm SIMD' },
    ]);
    const [m] = readResult(storedSessionResult(s, frames(s))).body.machines;
    expect([m.backend, m.kernels]).toEqual(['wasm', 'fused wasm SIMD']);
    const mixed = stored([{ backend: 'webgpu, then wasm', kernels: 'tfjs' }, {}]);
    const [n] = readResult(storedSessionResult(mixed, frames(mixed))).body.machines;
    expect([n.backend, n.kernels]).toEqual([
      `webgpu, then wasm and ${NOT_RECORDED}`,
      `tfjs and ${NOT_RECORDED}`,
    ]);
  });

  it('Share result of a session restored after a reload: its stored record, not the page now', () => {
    const s = stored([{ backend: 'wasm', kernels: 'fused wasm SIMD' }, {}]);
    const restoredRuns = s.runs.map((r): RunView => {
      initRunData(r.id, keys);
      for (const step of [0, 1]) pushFrame(r.id, step, Float64Array.of(step));
      return {
        ...{ id: r.id, label: r.label, seed: r.seed, runIndex: r.runIndex, color: r.color, state: 'done' },
        ...{ step: 2, agents: r.agents, models: [], base: {}, tokensPerS: NaN, markers: [], rolloutStep: -1 },
      };
    });
    pageOnWebgpu({
      config: exp,
      runs: restoredRuns,
      restored: { id: s.id, createdAt: s.createdAt },
      pastSessions: [s],
    });
    const [m] = readResult(sessionResult(useLab.getState(), null, null)).body.machines;
    expect([m.backend, m.kernels]).toEqual([
      `wasm and ${NOT_RECORDED}`,
      `fused wasm SIMD and ${NOT_RECORDED}`,
    ]);
  });
});

describe("a shared result's commit is the build that trained the session", () => {
  const BUILD = '0d4198fabc';
  beforeEach(() => vi.stubGlobal('__LAB_BUILD__', 'ffff000+dirty')); // the build sharing it now

  it('Past sessions → Share names the builds that recorded into it, one machine each, not the page now', () => {
    const one = { ...stored(), builds: [BUILD] };
    const [m, more] = readResult(storedSessionResult(one, frames(one))).body.machines;
    expect([m.commit, m.dirty, more]).toEqual([BUILD, false, undefined]);
    const two = { ...stored(), builds: [null, `${BUILD}+dirty`] }; // begun before builds were kept
    const machines = readResult(storedSessionResult(two, frames(two))).body.machines;
    expect(machines.map((x) => [x.commit, x.dirty])).toEqual([
      [null, null],
      [BUILD, true],
    ]);
  });

  it('a session stored before builds were kept: commit unknown, not the page now', () => {
    const s = stored();
    const [m] = readResult(storedSessionResult(s, frames(s))).body.machines;
    expect([m.commit, m.dirty]).toEqual([null, null]);
  });

  it('Share result of a live session never stored: the page now', () => {
    const [m] = readResult(sessionResult(useLab.getState(), null, null)).body.machines;
    expect([m.commit, m.dirty]).toEqual(['ffff000', true]);
  });
});

describe('what the recorder keeps of where a run trained', () => {
  it('the backend a run starts on, then the one it goes on with, and "not recorded" for steps before any', () => {
    expect(andThen(undefined, 'wasm', 0)).toBe('wasm');
    expect(andThen('wasm', 'wasm', 40)).toBe('wasm');
    expect(andThen('webgpu', 'wasm', 12)).toBe('webgpu, then wasm');
    expect(andThen('webgpu, then wasm', 'wasm', 30)).toBe('webgpu, then wasm');
    expect(andThen(undefined, 'wasm', 20)).toBe(`${NOT_RECORDED}, then wasm`);
    expect(andThen('wasm', undefined, 20)).toBe('wasm');
  });

  it('the banner names what was not recorded ("unknown" in older files too)', () => {
    expect(machineWord('backend', 'wasm')).toBe('wasm');
    expect(machineWord('backend', NOT_RECORDED)).toBe('backend not recorded');
    expect(machineWord('kernels', 'unknown')).toBe('kernels not recorded');
  });
});
