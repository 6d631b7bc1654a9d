/** Which models an experiment builds, and the model settings that are refused rather than ignored. */
import { describe, expect, it } from 'vitest';
import { ExperimentSchema } from '../../src/core/config';
import { learningRate, modelSlots } from '../../src/train/models';

describe('modelSlots', () => {
  it('gives each agent its own model and learning rate under per-agent assignment', () => {
    const exp = ExperimentSchema.parse({ task: 'math', optim: { lr: 1e-3, lrPerAgent: { verifier: 5e-4 } } });
    const slots = modelSlots(exp);
    expect(slots.map((s) => [s.id, learningRate(s, exp.optim)])).toEqual([
      ['solver', 1e-3],
      ['verifier', 5e-4],
    ]);
  });

  it('refuses an lrPerAgent key that names no agent (a typo), in the experiment or a run', () => {
    const typo = ExperimentSchema.parse({ task: 'math', optim: { lrPerAgent: { verfier: 5e-4 } } });
    expect(() => modelSlots(typo)).toThrow('optim.lrPerAgent.verfier: task math has no agent "verfier" (agents: solver, verifier)');
    const inRun = ExperimentSchema.parse({
      task: 'math',
      runs: [{ label: 'A', estimator: 'grpo' }, { label: 'B', estimator: 'drmas', optim: { lrPerAgent: { solvr: 1e-4 } } }],
    });
    expect(() => modelSlots(inRun)).toThrow(/^runs\.1\.optim\.lrPerAgent\.solvr: task math has no agent "solvr"/);
  });

  it('refuses lrPerAgent with one shared model (one optimizer, one rate)', () => {
    const shared = ExperimentSchema.parse({ task: 'math', models: { assignment: 'shared' }, optim: { lrPerAgent: { solver: 1e-4 } } });
    expect(() => modelSlots(shared)).toThrow(/^optim\.lrPerAgent\.solver: all agents share one model/);
  });
});

describe('models.ids: a model shared by a chosen subset of agents (DrMAS model_ids)', () => {
  const tools = (patch: Record<string, unknown> = {}) =>
    ExperimentSchema.parse({ task: 'search', models: { ids: { search: 'tools', answer: 'tools' } }, ...patch });

  it('gives agents with the same id one model, the others their own', () => {
    expect(modelSlots(tools()).map((s) => [s.id, s.agents])).toEqual([
      ['verifier', ['verifier']],
      ['tools', ['search', 'answer']],
    ]);
    const lr = tools({ optim: { lrPerAgent: { search: 1e-4, answer: 1e-4 } } });
    expect(learningRate(modelSlots(lr)[1], lr.optim)).toBe(1e-4);
  });

  it('refuses sizes or learning rates that differ within a shared model, ids of unknown agents, and ids with one shared model', () => {
    expect(() => modelSlots(tools({ models: { ids: { search: 'tools', answer: 'tools' }, perAgent: { answer: 'small' } } }))).toThrow(
      'models.perAgent.answer: agents search, answer share model tools (models.ids), so they need one size',
    );
    expect(() => modelSlots(tools({ optim: { lrPerAgent: { search: 1e-4 } } }))).toThrow(
      /^optim\.lrPerAgent\.search: agents search, answer share model tools \(models\.ids\), so they need one learning rate/,
    );
    expect(() => modelSlots(ExperimentSchema.parse({ task: 'search', models: { ids: { serch: 'tools' } } }))).toThrow(/^models\.ids\.serch: task search has no agent/);
    expect(() => modelSlots(ExperimentSchema.parse({ task: 'search', models: { assignment: 'shared', ids: { search: 'tools' } } }))).toThrow(
      'models.ids (search) needs models.assignment = per-agent',
    );
  });
});
