// The choice fields' options carry their registry docs (the dropdowns' tooltips) and labels.
import { describe, expect, it } from 'vitest';
import { enumOptions, optionDoc, optionLabel, runOverrides, runsTitle } from '../../src/ui/config-edit';
import { presetById } from '../../src/core/presets';
import { decodeExperiment } from '../../src/core/url';
import type { Experiment } from '../../src/core/config';
import type { SamplingName } from '../../src/core/config-names';
import { FIELDS, labelOf } from '../../src/ui/field-labels';

describe('option docs', () => {
  it('labels every option of a field backed by a registry, and no other field', () => {
    for (const path of [
      'task',
      'runs.0.estimator',
      'optim.policyLoss',
      'optim.klType',
      'optim.lossAgg',
      'reward.credit',
      'runs.2.reward.credit',
      'rollout.filter',
      'runs.0.rollout.filter',
      'train.buffer',
      'runs.1.train.buffer',
    ]) {
      for (const o of enumOptions(path)) expect(optionDoc(path, o), `${path} ${o}`).toMatch(/\w{3}/);
    }
    expect(optionDoc('runs.1.estimator', 'drmas')).toMatch(/Dr\. MAS agent-wise normalization/);
    expect(optionDoc('optim.klType', 'k3')).toMatch(/low-variance/);
    expect(enumOptions('reward.credit')).toEqual(['shared', 'counterfactual', 'shapley']);
    expect(optionDoc('reward.credit', 'counterfactual')).toMatch(/neutral default/);
    expect(optionDoc('reward.credit', 'shapley')).toMatch(/exact for ≤ 3 agents/);
    expect(optionDoc('task', 'plan')).toMatch(/grid/);
    expect(optionDoc('rollout.filter', 'mixed')).toMatch(/rewards are all equal/);
    expect(optionDoc('train.buffer', 'per-agent')).toMatch(/train\.bufferSize/);
    expect(optionDoc('models.preset', 'nano')).toBeUndefined();
    expect(optionDoc('runs.0.estimator', 'ppo')).toBeUndefined();
  });

  it('shows the registry label where the entry has one, else the name', () => {
    expect(enumOptions('runs.0.estimator').map((o) => optionLabel('runs.0.estimator', o))).toEqual([
      'GRPO',
      'Dr. MAS',
      'AT-GRPO',
      'Step-level',
      'MAGRPO',
      'MARS2',
      'custom',
    ]);
    expect(optionDoc('runs.0.estimator', 'custom')).toMatch(/advantage\.meanOver/);
    expect(optionLabel('reward.credit', 'counterfactual')).toBe('counterfactual');
    // The experiment's Updates summary names the loss so: PPO's clipped loss, not its verl name.
    expect(optionLabel('optim.policyLoss', 'vanilla')).toBe('PPO clipped');
    expect(optionLabel('optim.policyLoss', 'reinforce')).toBe('REINFORCE');
    expect(optionLabel('models.preset', 'nano')).toBe('nano');
  });
});

describe('a run’s overrides in the runs list', () => {
  it('names each setting by its link key, section and all, nested dials included', () => {
    const magrpo = presetById('magrpo-comlrl')!.config.runs[0];
    // Once shown as JSON without sections: {"policyLoss":"reinforce",…,"joint":true,"buffer":"per-agent",…}
    expect(runOverrides(magrpo)).toEqual([
      'optim.policyLoss=reinforce',
      'optim.lossAgg=seq-mean-token-sum',
      'reward.joint=true',
      'train.buffer=per-agent',
      'train.bufferSize=32',
    ]);
    const custom = presetById('mean-only')!.config.runs.find((r) => r.estimator === 'custom')!;
    expect(runOverrides(custom)).toEqual(['advantage.meanOver=group,agent', 'advantage.stdOver=none']);
    const scaled = { ...magrpo, optim: {}, reward: { scale: { coder: 2 } }, train: undefined };
    expect(runOverrides(scaled)).toEqual(['reward.scale.coder=2']);
    expect(runOverrides(presetById('sync')!.config.runs[0])).toEqual([]);
  });
});

describe('inline fields', () => {
  const inline = (c: Experiment) => FIELDS.filter((f) => f.shown?.(c) ?? true).map((f) => f.path);
  const withSampling = (shared: SamplingName, own: (SamplingName | undefined)[]) => {
    const c = structuredClone(presetById('coder-tester')!.config) as Experiment;
    c.rollout.sampling = shared;
    c.runs.forEach((r, i) => (r.rollout = own[i] ? { sampling: own[i] } : {}));
    return c;
  };

  it('offer G where a run samples groups and N where one grows mcts trees, never a field that does nothing', () => {
    // Under mcts G changed nothing (the same metrics at G = 2 and 8) and N had no field.
    const parallel = inline(withSampling('parallel', [undefined, undefined]));
    expect(parallel).toContain('rollout.groupSize');
    expect(parallel).not.toContain('rollout.nodes');
    const mcts = inline(withSampling('mcts', [undefined, undefined]));
    expect(mcts).toContain('rollout.nodes');
    expect(mcts).not.toContain('rollout.groupSize');
    const mixed = inline(withSampling('parallel', ['mcts', undefined]));
    expect(mixed).toEqual(expect.arrayContaining(['rollout.groupSize', 'rollout.nodes']));
    expect(labelOf('rollout.nodes', withSampling('mcts', []))).toBe('Tree nodes N');
  });
});

describe('the header subtitle', () => {
  it('names the runs on screen, not always GRPO vs Dr. MAS', () => {
    const r = decodeExperiment('#v=1&runs.0.estimator=mars2&runs.2.label=AT&runs.2.estimator=atgrpo');
    expect(r.ok && runsTitle(r.config)).toBe('MARS2 vs Dr. MAS vs AT, per agent, live');
    // A workflow's name leads: the page's one place near the top that says which system trains.
    const parts = decodeExperiment('#v=1&task=workflow&workflow.family=parts&workflow.args.agents=3');
    expect(parts.ok, JSON.stringify(parts)).toBe(true);
    expect(parts.ok && runsTitle(parts.config)).toBe('parts-3: GRPO vs Dr. MAS, per agent, live');
  });
});
