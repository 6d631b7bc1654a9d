/**
 * Findings: with seeds ≥ 2, each run's mean ± 95 % CI over seeds and the paired difference from
 * the first run (same seed, same task stream) with a computed verdict, for the figures the CLI's
 * `lab report` prints. The verdicts lead, each row names its figure in words (the short name, the
 * CSV's, on hover), and the table wraps to fit the main column rather than scroll sideways (at 600 px
 * or less each row is a block, each cell named by its column's data-label). The numbers come from
 * the same pure code (src/report/summary.ts, findings.ts) applied to the recorded metric history;
 * they follow training every few seconds, and say how many runs are done, so a provisional table is
 * never mistaken for a final one. Imported runs get
 * their own table when a group of them has several seeds (read from their names, seedOf).
 */
import { useDeferredValue, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { experimentTitle } from '../../core/presets';
import { baseLabel, compareSeeds, comparisonCsv, nanAsNull, pm } from '../../report/findings';
import type { Comparison, Verdict } from '../../report/findings';
import { REWARD_TAIL, stepSpan, summarize, summaryKeys } from '../../report/summary';
import type { RunSummary } from '../../report/summary';
import { download, fileName } from '../export';
import { historyOf } from '../run-data';
import type { RunId } from '../../workers/protocol';
import { boardConfig, boardRuns, useLab } from '../session/store';
import type { LabState } from '../session/store';
import { useThrottledLab } from '../throttled';
import { repeatsText } from '../repeat-words';
import { minusSigns } from '../minus-sign';

/** How often the table follows training: it is read, not watched. */
const FOLLOW_MS = 2000;
const versionOf = (s: LabState) => s.frameVersion;

/**
 * One run's summary from its recorded history, the reward over the last `tail` steps, eval K `k`;
 * over its first `upTo` steps where given (Reproduced? reads a run as far as its opened twin went).
 */
export function runSummary(
  r: { id: RunId; label: string; seed: number; agents: readonly string[] },
  k: number,
  tail: number,
  upTo?: number,
): RunSummary {
  const history = historyOf(r.id, summaryKeys(r.agents, k));
  return summarize(r.label, r.seed, upTo === undefined ? history : history.slice(0, upTo), r.agents, k, tail);
}

/** Every run's summary on the board from its recorded history, the reward over the last `tail` steps. */
export function summaries(s: LabState, tail: number): RunSummary[] {
  const k = boardConfig(s).eval.k;
  return boardRuns(s).map((r) => runSummary(r, k, tail));
}

/** Every imported run's, with its own agents and eval K (the largest it carries), as `lab report` does. */
function importedSummaries(s: LabState, tail: number): RunSummary[] {
  return s.imported.map((r) => runSummary(r, r.evalKs?.at(-1) ?? NaN, tail));
}

/** Imported runs are compared when a group of them has several seeds (its runs' names ended in one). */
const importedSeeded = (s: LabState) => {
  const n = new Map<string, number>();
  for (const r of s.imported) n.set(baseLabel(r.label), (n.get(baseLabel(r.label)) ?? 0) + 1);
  return [...n.values()].some((x) => x > 1);
};

const VERDICT_CLASS: Record<Verdict['kind'], string> = {
  identical: 'verdict-same',
  same: 'verdict-same',
  higher: 'verdict-diff',
  lower: 'verdict-diff',
  undetermined: 'muted',
};

function exportFindings(c: Comparison, list: RunSummary[], format: 'csv' | 'json'): void {
  const name = fileName(`findings ${new Date().toISOString().slice(0, 19)}`);
  const experiment = experimentTitle(boardConfig(useLab.getState()));
  if (format === 'csv')
    download(`${name}.csv`, comparisonCsv(c, { experiment, link: location.href }), 'text/csv');
  else {
    const config = boardConfig(useLab.getState());
    const json = JSON.stringify({ experiment: config, comparison: c, runs: list }, nanAsNull, 2);
    download(`${name}.json`, json, 'application/json');
  }
}

/** N of the `reward (last N)` row (lab report --tail N); a bad entry is marked and the last good N kept. */
function TailField({ tail, onChange }: { tail: number; onChange: (n: number) => void }) {
  const [text, setText] = useState(String(tail));
  const n = Number(text);
  const ok = text.trim() !== '' && Number.isInteger(n) && n >= 1;
  return (
    <p className="findings-tail">
      <label htmlFor="findings-tail">Training reward over the last</label>{' '}
      <input
        id="findings-tail"
        type="number"
        min={1}
        step={1}
        value={text}
        aria-invalid={!ok || undefined}
        aria-describedby={ok ? undefined : 'findings-tail-error'}
        onChange={(e) => {
          setText(e.target.value);
          const v = Number(e.target.value);
          if (e.target.value.trim() !== '' && Number.isInteger(v) && v >= 1) onChange(v);
        }}
      />{' '}
      steps
      {!ok && (
        <span id="findings-tail-error" className="field-error" role="alert">
          {' '}
          a whole number ≥ 1 (the table uses {tail})
        </span>
      )}
    </p>
  );
}

export function Findings() {
  const seeds = useLab((s) => boardConfig(s).seeds);
  const version = useThrottledLab(versionOf, null, FOLLOW_MS);
  const runsKey = useLab((s) =>
    boardRuns(s)
      .map((r) => `${r.id}:${r.state}:${r.agents.length}`)
      .join(','),
  );
  const importedKey = useLab((s) => (importedSeeded(s) ? s.imported.map((r) => r.id).join(',') : ''));
  const done = useLab((s) => boardRuns(s).filter((r) => r.state === 'done').length);
  const total = useLab((s) => boardRuns(s).length);
  const runCount = useLab((s) => boardConfig(s).runs.length);
  const [tail, setTail] = useState(REWARD_TAIL);
  // Summarizing every repeat's history takes a while (16 repeats of 200 steps: ~20 ms): the table
  // follows in a render of its own, after the board the same change redraws (a result opened:
  // bench:open), rather than in the same task.
  const asked = useDeferredValue(
    useMemo(() => ({ version, runsKey, tail, seeds }), [version, runsKey, tail, seeds]),
  );
  const session = useMemo(() => {
    const list = summaries(useLab.getState(), asked.tail);
    return { list, c: compareSeeds(list, asked.seeds) };
  }, [asked]);
  const imported = useMemo(() => {
    if (!importedKey) return null;
    const list = importedSummaries(useLab.getState(), tail);
    return { list, c: compareSeeds(list) };
  }, [importedKey, tail]);
  // Until the deferred render, the table of what was there before (none, as a result opens).
  const showSession = seeds >= 2 && total > 0 && session.list.length > 0;
  // One seed per run: a difference between two runs is one sample of each, and no CI can tell it
  // from luck. Say so where the verdicts would be, rather than show nothing.
  const oneSeed = seeds < 2 && !imported && total >= 2;
  if (!showSession && !imported && !oneSeed) return null;
  return (
    <section className="panel findings" aria-labelledby="findings-title" data-testid="findings">
      <h2 id="findings-title">Findings</h2>
      {oneSeed && (
        <p className="muted" data-testid="findings-status">
          One seed per run: a difference between these runs is one sample of each, which no confidence
          interval can tell from luck. Set <strong>Seeds</strong> to 3 or more (Experiment) and train again
          for each run’s mean ± 95 % CI over seeds, the paired difference from the first run and a verdict.
        </p>
      )}
      {!oneSeed && <TailField tail={tail} onChange={setTail} />}
      {showSession && (
        <FindingsTable c={session.c} list={session.list}>
          {done === total
            ? `All ${repeatsText(total, runCount, seeds)} done`
            : `${done} of ${repeatsText(total, runCount, seeds)} done: provisional`}{' '}
          · {stepSpan(session.list)} steps recorded per repeat · mean ± 95 % CI over {session.c.seeds} seeds;
          differences paired by seed (same task stream); verdicts from the paired CI. The same numbers as{' '}
          <code>lab report</code>.
        </FindingsTable>
      )}
      {imported && (
        <FindingsTable c={imported.c} list={imported.list} testId="findings-imported" what="imported ">
          <strong>Imported runs</strong> · seeds read from the run names (<code>grpo #2</code>,{' '}
          <code>grpo_seed2</code>, <code>grpo/seed2</code>) · mean ± 95 % CI over {imported.c.seeds} seeds;
          differences paired by seed number; each run’s own eval K. The same numbers as{' '}
          <code>lab report</code> on a <code>lab import</code> folder.
        </FindingsTable>
      )}
    </section>
  );
}

/** A run's name in a column head, after a swatch of its colour on the charts (its estimator's). */
function RunName({ label }: { label: string }) {
  const color = useLab(
    (s) => [...boardRuns(s), ...s.imported].find((r) => baseLabel(r.label) === label)?.color,
  );
  return (
    <>
      {color && (
        <span className="swatch" style={{ background: color }} data-run-color={color} aria-hidden="true" />
      )}{' '}
      {label}
    </>
  );
}

/**
 * A table of figures, one row each (the rows: children), under its status line: Findings' and
 * Reproduced?'s (Reproduced.tsx) share it.
 */
export function FigureTable({
  status,
  testId,
  heads,
  children,
}: {
  status: ReactNode;
  testId: string;
  heads: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <p className="muted" data-testid={testId}>
        {status}
      </p>
      <div className="findings-scroll">
        <table className="findings-table">
          <thead>
            <tr>
              <th scope="col">figure</th>
              {heads}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </>
  );
}

/** One comparison: its status line (children), the table, and its CSV / JSON downloads. */
function FindingsTable({
  c,
  list,
  testId = 'findings-status',
  what = '',
  children,
}: {
  c: Comparison;
  list: RunSummary[];
  testId?: string;
  what?: string;
  children: ReactNode;
}) {
  const later = c.runs.slice(1);
  // Each column's name: its head, and at 600 px or less each cell's data-label (the row a block).
  const verdictHead = (r: string) => `verdict: ${r} vs ${c.runs[0]}`;
  const pairedHead = (r: string) => `${r} − ${c.runs[0]} (paired)`;
  return (
    <div data-comparison={testId}>
      <FigureTable
        status={children}
        testId={testId}
        heads={
          <>
            {later.map((r) => (
              <th scope="col" key={`v-${r}`}>
                {verdictHead(r)}
              </th>
            ))}
            {c.runs.map((r) => (
              <th scope="col" key={r} data-run={r}>
                <RunName label={r} />
              </th>
            ))}
            {later.map((r) => (
              <th scope="col" key={`d-${r}`}>
                {pairedHead(r)}
              </th>
            ))}
          </>
        }
      >
        {c.figures.map((f) => (
          <tr key={f.name} data-figure={f.name}>
            <th scope="row" title={f.name}>
              {f.words}
            </th>
            {f.diffs.map((d, i) => (
              <td
                key={`v${i}`}
                className={VERDICT_CLASS[d.verdict.kind]}
                data-verdict={d.verdict.kind}
                data-label={verdictHead(later[i])}
              >
                {minusSigns(d.verdict.text)}
              </td>
            ))}
            {f.runs.map((x, i) => (
              <td key={i} className="num" data-label={c.runs[i]}>
                {minusSigns(pm(x))}
              </td>
            ))}
            {f.diffs.map((d, i) => (
              <td key={`d${i}`} className="num" data-label={pairedHead(later[i])}>
                {minusSigns(pm(d))}
              </td>
            ))}
          </tr>
        ))}
      </FigureTable>
      <div className="row">
        <button type="button" onClick={() => exportFindings(c, list, 'csv')}>
          Download {what}findings CSV
        </button>
        <button type="button" onClick={() => exportFindings(c, list, 'json')}>
          Download {what}findings JSON
        </button>
      </div>
    </div>
  );
}
