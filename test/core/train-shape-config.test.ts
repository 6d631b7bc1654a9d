// The fields that run MAGRPO and MARS2 as their authors do, in links and configs: rollout.filter,
// reward.joint, train.buffer, train.bufferSize (docs/estimators.md#which-rows-train). A link
// carries them, per run too; bad values are named.
import { describe, expect, it } from 'vitest';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { resolveRun } from '../../src/core/config-run';
import { validateExperiment } from '../../src/core/config-validate';
import { presetById } from '../../src/core/presets';

describe('filter, joint reward and buffer fields', () => {
  it('default to every group, own rewards and every agent every step', () => {
    const r = resolveRun(DEFAULT_EXPERIMENT, DEFAULT_EXPERIMENT.runs[0]);
    expect(r.rollout.filter).toBe('none');
    expect(r.reward.joint).toBeUndefined();
    expect(r.train).toEqual({ buffer: 'step', bufferSize: 64 });
  });

  it('travel in a link, experiment-wide and per run', () => {
    const d = decodeExperiment(
      'v=1&task=coder-tester&rollout.filter=mixed&reward.joint=true&runs.1.train.buffer=per-agent&runs.1.train.bufferSize=40',
    );
    if (!d.ok) throw new Error(JSON.stringify(d.errors));
    const c = d.config;
    expect(resolveRun(c, c.runs[1])).toMatchObject({
      rollout: { filter: 'mixed' },
      reward: { joint: true },
      train: { buffer: 'per-agent', bufferSize: 40 },
    });
    expect(resolveRun(c, c.runs[0]).train.buffer).toBe('step');
    const again = decodeExperiment(encodeExperiment(c));
    expect(again.ok && again.config).toEqual(c);
  });

  it('the MAGRPO preset survives its own link', () => {
    const p = presetById('magrpo-comlrl')!.config;
    expect(p.runs[0]).toMatchObject({
      estimator: 'magrpo',
      optim: { policyLoss: 'reinforce', lossAgg: 'seq-mean-token-sum' },
      reward: { joint: true },
      train: { buffer: 'per-agent', bufferSize: 32 },
    });
    const d = decodeExperiment(encodeExperiment(p));
    expect(d.ok && d.config).toEqual(p);
  });

  it('refuses bad values, naming the field', () => {
    const bad = validateExperiment({
      rollout: { filter: 'some' },
      train: { bufferSize: 0 },
      runs: [{ label: 'A', estimator: 'grpo', train: { buffer: 'later' } }],
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.map((e) => e.path).sort()).toEqual([
      'rollout.filter',
      'runs.0.train.buffer',
      'train.bufferSize',
    ]);
  });
});
