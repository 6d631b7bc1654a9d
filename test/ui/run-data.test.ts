import { describe, expect, it } from 'vitest';
import { MAX_STEPS } from '../../src/core/config';
import { allRows, forgetRunData, lastStep, readSeries, restoreRunData, runData } from '../../src/ui/run-data';
import type { RunId } from '../../src/runtime/protocol';

describe('run data in the page', () => {
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
