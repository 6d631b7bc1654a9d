/**
 * Reproduced?: beside an opened result trained here (Train it here, docs/sharing.md#train-it-here),
 * per figure Findings reports and per run, whether the local run's mean over its seeds lies within
 * the opened run's seed spread, or came out bit for bit the same (src/report/reproduced.ts). A run
 * here counts once it has the steps its opened twin reached, and is read over those first steps:
 * one with fewer would be judged on its first steps, one with more (Continue) on later ones. It
 * follows training every few seconds, as Findings does.
 */
import { useMemo } from 'react';
import { baseLabel, formatFixed } from '../../report/findings';
import { openedText, REPRODUCED_WORDS, reproduced, stepsNote } from '../../report/reproduced';
import type { Reproduction } from '../../report/reproduced';
import { REWARD_TAIL } from '../../report/summary';
import type { RunSummary } from '../../report/summary';
import { boardConfig, boardRuns, useLab } from '../session/store';
import { repeatsText } from '../repeat-words';
import type { LabState, RunView } from '../session/store';
import { useThrottledLab } from '../throttled';
import { FigureTable, runSummary } from './Findings';

const FOLLOW_MS = 2000;
const versionOf = (s: LabState) => s.frameVersion;

const KIND_CLASS: Record<Reproduction['kind'], string> = {
  exact: 'verdict-same',
  within: 'verdict-same',
  outside: 'verdict-diff',
  undetermined: 'muted',
};

/** The steps each opened repeat reached, by its run and seed. */
function twinSteps(opened: readonly RunSummary[]): (r: RunView) => number | undefined {
  const steps = new Map(opened.map((o) => [`${baseLabel(o.run)} ${o.seed}`, o.steps]));
  return (r) => steps.get(`${baseLabel(r.label)} ${r.seed}`);
}

/** The repeats here to compare: each with its opened twin's steps, or done short of them. */
const comparable = (r: RunView, steps: number | undefined) =>
  steps !== undefined && (r.step >= steps || r.state === 'done');

/**
 * The repeats here summarized as Findings summarizes them, each over as many first steps as its
 * opened twin reached (a run done short of them whole, so the card says its counts differ).
 */
function readHere(s: LabState, opened: readonly RunSummary[]): RunSummary[] {
  const k = boardConfig(s).eval.k;
  const twin = twinSteps(opened);
  return boardRuns(s).flatMap((r) => {
    const steps = twin(r);
    return comparable(r, steps) ? [runSummary(r, k, REWARD_TAIL, steps)] : [];
  });
}

/** A run's column name: its head, and at 600 px or less each cell's data-label (the row a block). */
const columnHead = (run: string) => `${run}: opened · here · verdict`;

export function Reproduced() {
  const compared = useLab((s) => s.compared);
  const version = useThrottledLab(versionOf, null, FOLLOW_MS);
  const readyKey = useLab((s) => {
    const twin = twinSteps(s.compared?.summaries ?? []);
    return boardRuns(s)
      .filter((r) => comparable(r, twin(r)))
      .map((r) => r.id)
      .join(',');
  });
  // A repeat done short of its twin's steps is compared (to say so) but has not reached them.
  const ready = useLab((s) => {
    const twin = twinSteps(s.compared?.summaries ?? []);
    return boardRuns(s).filter((r) => r.step >= (twin(r) ?? Infinity)).length;
  });
  // Each repeat's steps done here, for the line on steps.
  const hereKey = useLab((s) =>
    boardRuns(s)
      .map((r) => r.step)
      .join(','),
  );
  const total = useLab((s) => boardRuns(s).length);
  const runCount = useLab((s) => boardConfig(s).runs.length);
  const seeds = useLab((s) => boardConfig(s).seeds);
  const figures = useMemo(() => {
    void version;
    void readyKey;
    return compared ? reproduced(compared.summaries, readHere(useLab.getState(), compared.summaries)) : [];
  }, [compared, version, readyKey]);
  if (!compared) return null;
  const here = hereKey ? hereKey.split(',').map(Number) : [];
  const runs = figures[0]?.runs.map((r) => r.run) ?? [];
  return (
    <section className="panel findings" aria-labelledby="reproduced-title" data-testid="reproduced">
      <h2 id="reproduced-title">Reproduced?</h2>
      <FigureTable
        testId="reproduced-status"
        status={
          <>
            {ready === total
              ? `All ${repeatsText(total, runCount, seeds)} trained here to their opened twins’ steps`
              : `${ready} of ${repeatsText(total, runCount, seeds)} trained here to their opened twins’ steps`}{' '}
            ·{' '}
            <span data-testid="reproduced-steps">
              {stepsNote(
                compared.summaries.map((o) => o.steps),
                here,
              )}
            </span>{' '}
            · each run&rsquo;s mean here against {compared.result.name}&rsquo;s seed spread: the 95 % CI of
            its mean over seeds from 3 seeds on, its min–max below 3; &ldquo;reproduced exactly&rdquo; where
            every seed came out bit for bit the same.
          </>
        }
        heads={
          <>
            {runs.map((r) => (
              <th scope="col" key={r} data-run={r}>
                {columnHead(r)}
              </th>
            ))}
          </>
        }
      >
        {figures.map((f) => (
          <tr key={f.name} data-figure={f.name}>
            <th scope="row" title={f.name}>
              {f.words}
            </th>
            {f.runs.map((r) => (
              <td
                key={r.run}
                data-run={r.run}
                data-kind={r.kind}
                className={KIND_CLASS[r.kind]}
                data-label={columnHead(r.run)}
              >
                <span className="num" data-opened-mean={r.opened.mean}>
                  {openedText(r.opened)}
                </span>{' '}
                · <span className="num">{formatFixed(r.local.mean)}</span> ·{' '}
                <strong>{REPRODUCED_WORDS[r.kind]}</strong>: {r.text}
              </td>
            ))}
          </tr>
        ))}
      </FigureTable>
    </section>
  );
}
