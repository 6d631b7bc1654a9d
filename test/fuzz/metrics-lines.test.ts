/**
 * Fuzzed metrics.jsonl (docs/fuzz.md#metricsjsonl): files of records, torn lines, records of the
 * wrong shape and prototype keys, read as `lab report` and `--resume` read them and summarized as
 * `lab report` prints them. Reading never throws, skips what is not a record and says which lines.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { parseMetrics } from '../../src/cli/session-dir';
import { M } from '../../src/core/metrics';
import { summarize } from '../../src/report/summary';
import { writeEventFile } from '../../src/interop/tensorboard';
import { fuzz, hostileValue, NASTY_STRINGS, RUNS } from './harness';

const metricKey = fc.oneof(
  fc.constantFrom(M.rewardMean, M.timeS, 'agent/alice/grad_norm', 'eval/avg@4', M.updateSkipped, M.envErrors),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'polluted', 'run', 'step'),
  fc.string({ maxLength: 8 }),
);
const record = fc
  .tuple(
    fc.oneof(fc.constantFrom('GRPO', 'Dr. MAS', ...NASTY_STRINGS), fc.string({ maxLength: 6 })),
    fc.oneof(fc.nat(50), fc.constantFrom(-1, 0.5, 1e308, NaN)),
    fc.array(fc.tuple(metricKey, fc.oneof(fc.double(), fc.constant(null), hostileValue)), { maxLength: 6 }),
  )
  .map(([run, step, kv]) => {
    // Written as text so `__proto__` stays an own key, as it would be in a file.
    const fields = [`"run":${JSON.stringify(run)}`, `"step":${JSON.stringify(step)}`];
    for (const [k, v] of kv) fields.push(`${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`);
    return `{${fields.join(',')}}`;
  });
const line = fc.oneof(
  record,
  record.chain((r) => fc.nat(r.length).map((n) => r.slice(0, n))), // torn by a crash
  fc.constantFrom('', ' ', '{}', '[]', 'null', '"run"', '{"run":"a"}', '{"step":1}', '{"run":1,"step":1}'),
  fc.string({ maxLength: 30 }),
);
const file = fc.array(line, { maxLength: 12 }).map((ls) => ls.join('\n'));

describe('fuzzed metrics.jsonl', () => {
  it(`reads and reports each of ${RUNS} files, skipping what is not a record, never throwing`, () => {
    fuzz('metrics.jsonl', file, (text) => {
      const warnings: string[] = [];
      let rows;
      try {
        rows = parseMetrics(text, 'metrics.jsonl', (m) => warnings.push(m));
        const runs = new Map<string, Record<string, number>[]>();
        for (const r of rows) runs.set(r.run, [...(runs.get(r.run) ?? []), r.metrics]);
        for (const [run, history] of runs) {
          summarize(run, 0, history, ['alice', '__proto__'], 4);
          writeEventFile(history, 1.7e9); // lab export tensorboard
        }
      } catch (e) {
        return `threw: ${(e as Error)?.stack ?? String(e)}`;
      }
      if (rows.some((r) => typeof r.run !== 'string' || typeof r.metrics.step !== 'number'))
        return 'a row without a run name or step';
      const records = text.split('\n').filter((l) => l.trim()).length;
      if (rows.length < records && warnings.length !== 1) return 'skipped lines without saying which';
      return rows.length < records ? 'refused' : 'accepted';
    });
  });
});
