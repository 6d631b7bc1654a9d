/**
 * Fuzzed imports (docs/fuzz.md#event-files-csvs-and-metrics-json): TensorBoard event files
 * (written by the lab, with and without a run card, then mutated; or records with valid CRCs
 * around mutated or random Event bytes, so the protobuf decoder itself is reached; or a card of
 * hostile JSON), CSVs (built from real, `run`, `seed` and hostile columns and cells, then mutated)
 * and the page's metrics JSON (edited as JSON and as text). Reading never throws, every refusal
 * names the file and says why, every value read is a number at a number step.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { M } from '../../src/core/metrics';
import { importFiles, type ImportResult } from '../../src/interop/import';
import { encodeScalars } from '../../src/interop/tb-event';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { metricsJson, runCardText } from '../../src/interop/lab-exports';
import { readEventFile, writeEventFile } from '../../src/interop/tensorboard';
import { frameRecords } from '../../src/interop/tfrecord';
import { readWandbCsv } from '../../src/interop/wandb-csv';
import { crashOf, fuzz, hostileValue, jsonEdit, mutatedBytes, NASTY_STRINGS, RUNS } from './harness';

const tag = fc.oneof(
  fc.constantFrom(
    'train/reward_mean',
    'agent/alice/grad_norm',
    'critic/score/mean',
    '__proto__',
    'constructor',
  ),
  fc.string({ maxLength: 10 }),
);
const rows = fc.array(
  fc.tuple(fc.nat(100), fc.array(fc.tuple(tag, fc.double()), { maxLength: 4 })).map(([step, kv]) => {
    const row: Record<string, number> = { [M.step]: step, [M.timeS]: step / 10 };
    for (const [k, v] of kv) Object.defineProperty(row, k, { value: v, enumerable: true, writable: true });
    return row;
  }),
  { maxLength: 6 },
);
const goodRows = [0, 1, 2, 3].map((s) => ({ [M.step]: s, [M.timeS]: s, 'train/reward_mean': s / 4 }));
const goodCard = { label: 'GRPO #1', seed: 43, agents: ['alice', 'bob'], markers: [] };
const goodFile = writeEventFile(goodRows, 1.7e9);
const cardedFile = writeEventFile(goodRows, 1.7e9, runCardText(goodCard));
/** A run card edited as JSON (hostile values, prototype keys), or any text at all. */
const card = fc.oneof(
  jsonEdit({ v: 1, ...goodCard, markers: [{ step: 1, param: 'lr', value: 0.01 }] }),
  fc.string(),
);
const event = fc
  .tuple(
    fc.oneof(fc.nat(), fc.constant(-1), fc.constant(2 ** 62)),
    fc.array(fc.tuple(tag, fc.double()), { maxLength: 3 }),
  )
  .map(([step, scalars]) => encodeScalars(step, 1.7e9, scalars));
const eventFile = fc.oneof(
  mutatedBytes(goodFile),
  mutatedBytes(cardedFile),
  card.map((c) => writeEventFile(goodRows, 1.7e9, c)),
  rows.map((rs) => writeEventFile(rs, 1.7e9)),
  fc
    .array(
      fc.oneof(
        event.chain((e) => mutatedBytes(e)),
        fc.uint8Array({ maxLength: 40 }),
      ),
      { maxLength: 4 },
    )
    .map(frameRecords),
  fc.uint8Array({ maxLength: 200 }),
);

const column = fc.oneof(
  fc.constantFrom(
    '_step',
    'Step',
    'step',
    '_runtime',
    'train/reward_mean',
    'grpo - train/reward_mean',
    'grpo - train/reward_mean__MIN',
    'run',
    'seed',
  ),
  fc.constantFrom('__proto__', 'constructor', '__proto__ - x', 'a - __proto__', ...NASTY_STRINGS),
  fc.string({ maxLength: 8 }),
);
const cell = fc.oneof(
  fc.double().map(String),
  fc.nat(50).map(String),
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ maxLength: 5 }),
);
const quote = (s: string) => (/[",\n\r]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s);
const csv = fc
  .tuple(
    fc.array(column, { minLength: 1, maxLength: 5 }),
    fc.array(fc.array(cell, { maxLength: 6 }), { maxLength: 8 }),
    fc.boolean(),
  )
  .map(([header, lines, quoted]) =>
    [header, ...lines].map((l) => (quoted ? l.map(quote) : l).join(',')).join(quoted ? '\r\n' : '\n'),
  );
const csvText = fc.oneof(
  csv,
  fc
    .tuple(csv, fc.nat(200), fc.constantFrom('"', ',', '\n', '\r', '\uFEFF', ''), fc.nat(3))
    .map(([t, at, ins, cut]) => t.slice(0, at) + ins + t.slice(at + cut)),
  fc.string({ maxLength: 60 }),
);

/** The page's metrics JSON of two runs, edited as JSON (hostile values, prototype keys) or as text. */
const exported = JSON.parse(
  metricsJson(DEFAULT_EXPERIMENT, '#', [
    { ...goodCard, keys: ['step', 'train/reward_mean'], rows: goodRows },
    {
      ...goodCard,
      label: 'Dr. MAS #1',
      markers: [{ step: 2, param: 'lr', value: 0.002 }],
      keys: [],
      rows: goodRows,
    },
  ]),
);
exported.experiment = { task: 'sync' }; // the runs are what is read; a short experiment keeps the paths to them many
const jsonText = fc.oneof(
  jsonEdit(exported),
  fc
    .tuple(
      fc.constant(JSON.stringify(exported)),
      fc.nat(400),
      fc.constantFrom('"', ',', '{', ']', ''),
      fc.nat(3),
    )
    .map(([t, at, ins, cut]) => t.slice(0, at) + ins + t.slice(at + cut)),
  hostileValue.map((v) => JSON.stringify({ runs: [v] }) ?? ''),
  fc.string({ maxLength: 60 }),
);

/** The import's own checks: refusals say why, values are numbers at number steps. */
function checkImport(r: ImportResult): string | null {
  if (r.refused.some((x) => !x.path || !x.reason))
    return `a refusal without a path or reason: ${JSON.stringify(r.refused)}`;
  for (const run of r.runs)
    for (const row of run.rows)
      if (typeof row[M.step] !== 'number' || Object.values(row).some((v) => typeof v !== 'number'))
        return `run ${run.label} has a row that is not numbers: ${JSON.stringify(row)}`;
  return null;
}

describe('fuzzed imports', () => {
  it(`reads each of ${RUNS} event files, skipping damage, never throwing`, () => {
    fuzz(
      'event files',
      eventFile,
      (bytes) => {
        try {
          const scan = readEventFile(bytes);
          if (scan.rows.some((row) => !Number.isFinite(row[M.step]))) return 'a row without a finite step';
          const r = importFiles([{ path: 'logs/grpo_seed1/events.out.tfevents.1.host', bytes }]);
          return checkImport(r) ?? (r.runs.length ? 'accepted' : 'refused');
        } catch (e) {
          return `threw: ${crashOf(e) ?? (e as Error).message}`;
        }
      },
      (bytes) => `${bytes.length} bytes`,
    );
  });

  it(`reads or refuses each of ${RUNS} W&B CSVs with a reason, never crashing`, () => {
    fuzz('W&B CSVs', csvText, (text) => {
      let read = 'accepted';
      try {
        readWandbCsv(text);
      } catch (e) {
        const crash = crashOf(e);
        if (crash) return crash;
        read = 'refused';
      }
      try {
        const r = importFiles([{ path: 'export.csv', bytes: new TextEncoder().encode(text) }]);
        return checkImport(r) ?? read;
      } catch (e) {
        return `importFiles threw: ${crashOf(e) ?? (e as Error).message}`;
      }
    });
  });

  it(`reads or refuses each of ${RUNS} metrics JSONs with a reason, never throwing`, () => {
    fuzz('metrics JSON', jsonText, (text) => {
      try {
        const r = importFiles([{ path: 'agentwise-metrics.json', bytes: new TextEncoder().encode(text) }]);
        for (const run of r.runs)
          if (run.markers.some((m) => !Number.isFinite(m.value)))
            return `run ${run.label}: a marker not finite`;
        return checkImport(r) ?? (r.runs.length ? 'accepted' : 'refused');
      } catch (e) {
        return `importFiles threw: ${crashOf(e) ?? (e as Error).message}`;
      }
    });
  });
});
