/**
 * The Experiment panel's summary in words a newcomer reads: no "eps", "singletons raw", "lr" or
 * "wd"; each setting is spelled out, and each singleton mode says what a set of one gets.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT, ExperimentSchema } from '../../src/core/config';
import { summaryRows } from '../../src/ui/experiment-summary';
import { exampleExperiment } from '../tasks/workflow-examples';

const row = (patch: Record<string, unknown>, name: string) =>
  Object.fromEntries(summaryRows(ExperimentSchema.parse({ ...DEFAULT_EXPERIMENT, ...patch })))[name];

describe('the experiment summary', () => {
  it('says how advantages are normalized and what a set of one gets, in words', () => {
    expect(row({}, 'Advantage')).toBe(
      'each set’s mean subtracted, then divided by its standard deviation + ε (0.000001); a set with one member keeps its raw score',
    );
    expect(
      row(
        { advantage: { ...DEFAULT_EXPERIMENT.advantage, normalizeStd: false, singleton: 'zero' } },
        'Advantage',
      ),
    ).toBe(
      'each set’s mean subtracted, not divided by its standard deviation; a set with one member gets advantage 0',
    );
  });

  it('spells out the optimizer, the models and the per-agent settings by their labels', () => {
    expect(row({}, 'Optimizer')).toBe(
      'AdamW, learning rate 0.0003, weight decay 0.01, probability ratio clipped 0.2 below / 0.2 above 1 (dual clip 3), loss aggregation token-mean',
    );
    expect(row({}, 'Models')).toMatch(/^one model per agent, nano, /);
    const team = {
      task: 'coder-tester',
      models: { perAgent: { coder: 'small' }, from: { tester: 'coder' } },
    };
    expect(row(team, 'Models')).toBe(
      "one model per agent, nano (coder: small), tester starts from coder's base, shipped base checkpoints",
    );
    // A workflow whose agents are its own starts from base models prepared in the page, not shipped ones.
    const workflow = (name: string) => Object.fromEntries(summaryRows(exampleExperiment(name))).Models;
    expect(workflow('router')).toMatch(
      /, base models prepared in this browser from the workflow’s demonstrations \(Prepare base models\)$/,
    );
    expect(workflow('sync-own')).toMatch(/, shipped base checkpoints$/);
    const perAgent = { ...DEFAULT_EXPERIMENT.optim, perAgent: { search: { lr: 0.002 } } };
    expect(row({ optim: perAgent }, 'Per agent')).toBe('search: Learning rate 0.002');
    for (const [name, words] of summaryRows(DEFAULT_EXPERIMENT))
      expect(words, name).not.toMatch(/\b(eps|singletons|lr|wd)\b/);
  });
});
