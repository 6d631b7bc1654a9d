import { describe, expect, it, vi } from 'vitest';
import { MAX_STEPS } from '../../src/core/config-names';
import {
  allRows,
  flushRunData,
  forgetRunData,
  initRunData,
  lastStep,
  noRolloutsNote,
  pushFrame,
  pushSaved,
  pushStep,
  readSeries,
  restoreRunData,
  runData,
  TICK_MS,
  valueWatch,
} from '../../src/ui/run-data';
import { setSession, useLab, type RunView } from '../../src/ui/session/store';
import type { RunId } from '../../src/workers/protocol';

describe('run data in the page', () => {
  it("says a restored run's rollouts were not kept, and a new run's are not there yet", () => {
    const keys = ['step', 'reward/mean'];
    const fresh = 'r-fresh' as RunId;
    initRunData(fresh, keys);
    expect(noRolloutsNote(fresh)).toBe('none yet');
    const restored = 'r-restored' as RunId;
    restoreRunData(restored, keys, [new Float64Array([0, 0.5]), new Float64Array([1, 0.6])]);
    expect(noRolloutsNote(restored)).toMatch(/^not kept with the recorded steps/);
    // Restored with no frames (a run stored before its first step) has nothing that was not kept.
    const empty = 'r-empty' as RunId;
    restoreRunData(empty, keys, []);
    expect(noRolloutsNote(empty)).toBe('none yet');
    forgetRunData([fresh, restored, empty]);
  });

  it('holds a run of the longest allowed length whole, for the charts and the exports', () => {
    const id = 'r-long' as RunId;
    const keys = ['step', 'reward/mean', 'agent/search/grad_norm'];
    const frames = Array.from(
      { length: MAX_STEPS },
      (_, s) => new Float64Array([s, Math.sin(s / 50), s === 1234 ? 99 : 1]),
    );
    restoreRunData(id, keys, frames);
    const rows = allRows(id);
    expect(rows.length).toBe(MAX_STEPS); // the CSV / JSON / TensorBoard exports read these rows
    expect(rows[0]).toEqual({ step: 0, 'reward/mean': 0, 'agent/search/grad_norm': 1 });
    expect(rows[MAX_STEPS - 1].step).toBe(MAX_STEPS - 1);
    expect(lastStep([id])).toBe(MAX_STEPS - 1);
    const grad = readSeries([id], 'agent/search/grad_norm', 0)!;
    expect(grad.total).toBe(MAX_STEPS);
    expect(grad.x[0]).toBe(0); // the chart starts at step 0, not 80,000 steps in
    expect(Math.max(...grad.y)).toBe(99); // and keeps the early spike through downsampling
    forgetRunData([id]);
    expect(allRows(id)).toEqual([]);
  });

  it('allocates for the frames a run has, not for the longest run', () => {
    const id = 'r-short' as RunId;
    restoreRunData(
      id,
      ['step', 'reward/mean'],
      Array.from({ length: 200 }, (_, s) => new Float64Array([s, 0.5])),
    );
    expect(allRows(id).length).toBe(200);
    expect(runData(id)!.ring.allocated).toBe(256); // 4 KB, where a preallocated ring took 1.6 MB
    forgetRunData([id]);
  });
});

describe('run data reaches React once per tick', () => {
  it("commits a run's frames, steps and saved step together, at most once every TICK_MS", () => {
    vi.useFakeTimers();
    try {
      // Test files share this module (isolate: false): another's tick may be pending on a real
      // timer. Commit it now, and let this test's first tick come at once.
      flushRunData();
      vi.advanceTimersByTime(TICK_MS);
      const id = 'r-tick' as RunId;
      initRunData(id, ['step', 'perf/tokens_per_s']);
      setSession({ runs: [{ id, label: 'GRPO', state: 'running', step: 0 } as RunView], frameVersion: 0 });
      const seen = () => {
        const { runs, frameVersion } = useLab.getState();
        const r = runs[0];
        return { frameVersion, step: r.step, savedStep: r.savedStep, tokensPerS: r.tokensPerS };
      };
      pushFrame(id, 1, new Float64Array([1, 250]));
      expect(seen().frameVersion).toBe(0); // nothing until the tick
      vi.advanceTimersByTime(0);
      expect(seen()).toEqual({ frameVersion: 1, step: 1, savedStep: undefined, tokensPerS: 250 });
      // Three messages in the next 100 ms: none shows before the tick, all in its one commit.
      pushFrame(id, 2, new Float64Array([2, NaN]));
      pushStep(id, 3);
      pushSaved(id, 2);
      vi.advanceTimersByTime(100);
      expect(seen().frameVersion).toBe(1);
      expect(lastStep([id])).toBe(1); // the charts' rings hold step 2 back too
      vi.advanceTimersByTime(TICK_MS - 100);
      expect(seen()).toEqual({ frameVersion: 2, step: 3, savedStep: 2, tokensPerS: 250 });
      expect(lastStep([id])).toBe(2);
      // A step older than the one shown never moves the counter back; a reader may commit at once.
      pushStep(id, 2);
      pushSaved(id, 3);
      flushRunData();
      expect(seen()).toEqual({ frameVersion: 3, step: 3, savedStep: 3, tokensPerS: 250 });
      vi.runAllTimers();
      expect(seen().frameVersion).toBe(3); // the tick then finds nothing left to commit
      forgetRunData([id]);
    } finally {
      vi.useRealTimers();
      setSession({ runs: [] });
    }
  });
});

describe('an empty chart’s question: has a run something to draw?', () => {
  it('says yes once any run has a value of the metric, reading each row once, and no for a metric it lacks', () => {
    const id = 'r-watch' as RunId;
    // Eval is recorded at step 4 only; the other steps hold NaN there.
    const frames = Array.from({ length: 3 }, (_, s) => new Float64Array([s, 0.5, NaN, -1]));
    restoreRunData(id, ['step', 'reward/mean', 'eval/avg', 'loss'], frames);
    const watch = valueWatch();
    expect(watch([id], 'reward/mean')).toBe(true); // frames the chart has not drawn: "drawing…"
    expect(watch([id], 'eval/avg')).toBe(false); // nothing to draw: "no data yet"
    expect(watch([id], 'no/such/key')).toBe(false);
    expect(watch([id], 'loss')).toBe(true);
    expect(watch([id], 'loss', true)).toBe(false); // a log scale draws no value ≤ 0
    pushFrame(id, 3, new Float64Array([3, 0.5, NaN, -1]));
    flushRunData(); // frames reach the rings at the tick
    expect(watch([id], 'eval/avg')).toBe(false);
    pushFrame(id, 4, new Float64Array([4, 0.5, 0.25, -1]));
    expect(watch([id], 'eval/avg')).toBe(false); // held until the tick: the counters do not show it yet
    flushRunData();
    expect(watch([id], 'eval/avg')).toBe(true);
    expect(watch(['r-none' as RunId, id], 'eval/avg')).toBe(true);
    forgetRunData([id]);
    expect(watch([id], 'reward/mean')).toBe(false); // gone: read again from the start
  });
});
