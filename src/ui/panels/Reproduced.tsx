/**
 * Reproduced?: beside an opened result trained here (Train it here, docs/sharing.md#train-it-here),
 * per figure Findings reports and per run, whether the local run's mean over its seeds lies within
 * the opened run's seed spread, or came out bit for bit the same (src/report/reproduced.ts). Only
 * runs done here count: a run still training would be judged on its first steps. It follows
 * training every few seconds, as Findings does.
 */
import { useMemo } from 'react';
import { formatFixed } from '../../report/findings';
import { openedText, REPRODUCED_WORDS, reproduced } from '../../report/reproduced';
import type { Reproduction } from '../../report/reproduced';
import { REWARD_TAIL } from '../../report/summary';
import { boardConfig, boardRuns, useLab } from '../session/store';
import { repeatsText } from '../repeat-words';
import type { LabState } from '../session/store';
import { useThrottledLab } from '../throttled';
import { FigureTable, summaries } from './Findings';

const FOLLOW_MS = 2000;
const versionOf = (s: LabState) => s.frameVersion;

const KIND_CLASS: Record<Reproduction['kind'], string> = {
  exact: 'verdict-same',
  within: 'verdict-same',
  outside: 'verdict-diff',
  undetermined: 'muted',
};

/** The runs done here, summarized as Findings summarizes them. */
function doneHere(s: LabState) {
  const done = new Set(
    boardRuns(s)
      .filter((r) => r.state === 'done')
      .map((r) => r.id),
  );
  const runs = boardRuns(s);
  return summaries(s, REWARD_TAIL).filter((_, i) => done.has(runs[i].id));
}

export function Reproduced() {
  const compared = useLab((s) => s.compared);
  const version = useThrottledLab(versionOf, null, FOLLOW_MS);
  const doneKey = useLab((s) =>
    boardRuns(s)
      .filter((r) => r.state === 'done')
      .map((r) => r.id)
      .join(','),
  );
  const total = useLab((s) => boardRuns(s).length);
  const runCount = useLab((s) => boardConfig(s).runs.length);
  const seeds = useLab((s) => boardConfig(s).seeds);
  const figures = useMemo(() => {
    void version;
    void doneKey;
    return compared ? reproduced(compared.summaries, doneHere(useLab.getState())) : [];
  }, [compared, version, doneKey]);
  if (!compared) return null;
  const done = doneKey ? doneKey.split(',').length : 0;
  const runs = figures[0]?.runs.map((r) => r.run) ?? [];
  return (
    <section className="panel findings" aria-labelledby="reproduced-title" data-testid="reproduced">
      <h2 id="reproduced-title">Reproduced?</h2>
      <FigureTable
        testId="reproduced-status"
        status={
          <>
            {done === total
              ? `All ${repeatsText(total, runCount, seeds)} trained here done`
              : `${done} of ${repeatsText(total, runCount, seeds)} done here`}{' '}
            · each run&rsquo;s mean here against {compared.result.name}&rsquo;s seed spread: the 95 % CI of
            its mean over seeds from 3 seeds on, its min–max below 3; &ldquo;reproduced exactly&rdquo; where
            every seed came out bit for bit the same.
          </>
        }
        heads={
          <>
            {runs.map((r) => (
              <th scope="col" key={r} data-run={r}>
                {r}: opened · here · verdict
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
                data-label={`${r.run}: opened · here · verdict`}
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
