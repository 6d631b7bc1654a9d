/**
 * A small result body for the result file's tests and fuzz suite: the sync experiment, GRPO and
 * Dr. MAS × 2 seeds, 12 steps of the frames a run records (every key metricKeys gives, values
 * from a seeded generator, eval every 4 steps and a gap otherwise), one live change, a rollout
 * sample with a NaN credit, Findings and What differs made as lab bundle makes them. Also a way
 * to frame any body text as a file with a correct hash, as a forger would.
 */
import { DEFAULT_EXPERIMENT, runRepeats } from '../../src/core/config';
import type { Experiment } from '../../src/core/config';
import { metricKeys, M } from '../../src/core/metrics';
import { Prng } from '../../src/core/prng';
import { framedResult } from '../../src/report/result-file';
import type { ResultBody, ResultRun } from '../../src/report/result-format';
import { resultExperiment } from '../../src/report/result-make';
import { summaryKeys } from '../../src/report/summary';
import { differsKeys } from '../../src/report/what-differs';

const AGENTS = ['alice', 'bob'];

export function smallExperiment(): Experiment {
  return {
    ...DEFAULT_EXPERIMENT,
    task: 'sync',
    seeds: 2,
    steps: 12,
    runs: [
      { ...DEFAULT_EXPERIMENT.runs[0], label: 'GRPO', estimator: 'grpo' },
      {
        ...DEFAULT_EXPERIMENT.runs[1],
        label: 'Dr. MAS',
        estimator: 'drmas',
        live: { 6: { optim: { lr: 0.002 } } },
      },
    ],
  };
}

/**
 * The body; `few` keeps it tiny (3 steps, the keys Findings and What differs read) for the fuzz
 * suite, whose every case must be read in well under 100 ms.
 */
export function smallBody(few = false): ResultBody {
  const exp = { ...smallExperiment(), ...(few ? { steps: 3 } : {}) };
  const all = metricKeys(AGENTS, ['alice', 'bob'], exp.eval.k, { estimator: 'grpo' });
  const read = new Set([...summaryKeys(AGENTS, exp.eval.k), ...differsKeys(AGENTS)]);
  const keys = few ? all.filter((k) => read.has(k)) : all;
  const rng = new Prng(3);
  const runs = runRepeats(exp).map(({ label, seed, runIndex }): ResultRun => {
    const frames = Array.from({ length: exp.steps }, (_, step) =>
      Float64Array.from(keys, (k) => {
        if (k === M.step) return step;
        if (k.startsWith('eval/')) return step % 4 === 3 ? rng.int(9) / 8 : NaN;
        return rng.next() * 2 - 0.5;
      }),
    );
    const markers = runIndex === 1 ? [{ step: 6, param: 'lr' as const, value: 0.002 }] : [];
    const turn = {
      ...{ agent: 'alice', prompt: 'a=3 <alice>', response: '3', valid: true, reward: 1, advantage: 0.7 },
      ...{ logp: [-0.1, -0.25], credit: { credit: 0.5, without: NaN, weight: 1 } },
    };
    const rollouts = [
      {
        step: 11,
        trajectories: [{ group: 0, traj: 0, success: true, reward: 1, status: 'ok' as const, turns: [turn] }],
      },
    ];
    return { label, seed, experiment: 0, runIndex, agents: AGENTS, markers, keys, frames, rollouts };
  });
  return {
    made: { by: 'lab bundle', at: '2026-12-02T00:00:00.000Z', from: 'runs/small' },
    experiments: [resultExperiment(exp, null, runs)],
    sweep: null,
    runs,
    machines: [
      {
        ...{ date: '2026-12-02T00:00:00.000Z', commit: 'abc', dirty: false, cpu: 'AMD EPYC', cores: 2 },
        ...{ platform: 'linux x64', runtime: 'node v20.20.2', backend: 'wasm', kernels: 'relaxed' },
      },
    ],
  };
}

/** Body text framed as a result file with a correct header (any version), as a forger would frame it. */
export const framed = (bodyText: string, version = 1): Uint8Array =>
  framedResult(new TextEncoder().encode(bodyText), version);
