/** Which models an experiment builds, and the model settings that are refused rather than ignored. */
import { describe, expect, it } from 'vitest';
import { ExperimentSchema } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { modelOptim } from '../../src/train/models';
import { modelSlots } from '../../src/sizing/slots';

describe('modelSlots', () => {
  it('gives each agent its own model and its own optimizer settings under per-agent assignment', () => {
    const exp = ExperimentSchema.parse({
      task: 'math',
      optim: {
        lr: 1e-3,
        clipHigh: 0.2,
        perAgent: {
          verifier: { lr: 5e-4, maxGradNorm: 0.5, clipLow: 0.1, clipHigh: 0.28, entropyCoef: 0.01 },
        },
      },
    });
    const own = modelSlots(exp).map((s) => {
      const o = modelOptim(s, exp.optim);
      return [s.id, o.lr, o.maxGradNorm, o.clipLow, o.clipHigh, o.entropyCoef];
    });
    expect(own).toEqual([
      ['solver', 1e-3, 1, 0.2, 0.2, 0],
      ['verifier', 5e-4, 0.5, 0.1, 0.28, 0.01],
    ]);
  });

  it('reads the former optim.lrPerAgent as optim.perAgent.<agent>.lr (old links and session folders)', () => {
    const r = validateExperiment({
      task: 'math',
      optim: { lrPerAgent: { verifier: 5e-4 }, perAgent: { verifier: { clipHigh: 0.3 } } },
      runs: [{ label: 'A', estimator: 'grpo', optim: { lrPerAgent: { solver: 2e-4 } } }],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.config.optim.perAgent).toEqual({ verifier: { lr: 5e-4, clipHigh: 0.3 } });
    expect(r.config.runs[0].optim.perAgent).toEqual({ solver: { lr: 2e-4 } });
    const link = decodeExperiment('v=1&task=math&optim.lrPerAgent.verifier=0.0005');
    expect(link.ok && link.config.optim.perAgent).toEqual({ verifier: { lr: 5e-4 } });
    expect(encodeExperiment(link.config)).toBe('v=1&task=math&optim.perAgent.verifier.lr=0.0005');
  });

  it('refuses a perAgent key that names no agent (a typo), in the experiment or a run, and a setting no agent may own', () => {
    const typo = ExperimentSchema.parse({ task: 'math', optim: { perAgent: { verfier: { lr: 5e-4 } } } });
    expect(() => modelSlots(typo)).toThrow(
      'optim.perAgent.verfier: task math has no agent "verfier" (agents: solver, verifier)',
    );
    const inRun = ExperimentSchema.parse({
      task: 'math',
      runs: [
        { label: 'A', estimator: 'grpo' },
        { label: 'B', estimator: 'drmas', optim: { perAgent: { solvr: { clipLow: 0.1 } } } },
      ],
    });
    expect(() => modelSlots(inRun)).toThrow(
      /^runs\.1\.optim\.perAgent\.solvr: task math has no agent "solvr"/,
    );
    const field = validateExperiment({
      task: 'math',
      optim: { perAgent: { solver: { clipHihg: 0.3, epochs: 2 } } },
    });
    expect(field.ok ? [] : field.errors).toEqual([
      {
        path: 'optim.perAgent.solver.clipHihg',
        message: 'unknown field',
        hint: 'did you mean optim.perAgent.solver.clipHigh?',
        meant: { key: 'optim.perAgent.solver.clipHigh' },
      },
      { path: 'optim.perAgent.solver.epochs', message: 'unknown field' }, // not a per-agent setting
    ]);
  });

  it('refuses per-agent settings with one shared model (one optimizer, one loss), naming the field', () => {
    for (const field of ['lr', 'maxGradNorm', 'clipLow', 'clipHigh', 'entropyCoef']) {
      const shared = ExperimentSchema.parse({
        task: 'math',
        models: { assignment: 'shared' },
        optim: { perAgent: { solver: { [field]: 0.1 } } },
      });
      expect(() => modelSlots(shared)).toThrow(
        new RegExp(
          `^optim\\.perAgent\\.solver\\.${field}: all agents share one model .* so it has one ${field}; use optim\\.${field}`,
        ),
      );
    }
  });
});

describe('models.ids: a model shared by a chosen subset of agents (DrMAS model_ids)', () => {
  const tools = (patch: Record<string, unknown> = {}) =>
    ExperimentSchema.parse({
      task: 'search',
      models: { ids: { search: 'tools', answer: 'tools' } },
      ...patch,
    });

  it('gives agents with the same id one model, the others their own', () => {
    expect(modelSlots(tools()).map((s) => [s.id, s.agents])).toEqual([
      ['verifier', ['verifier']],
      ['tools', ['search', 'answer']],
    ]);
    const lr = tools({ optim: { perAgent: { search: { lr: 1e-4 }, answer: { lr: 1e-4 } } } });
    expect(modelOptim(modelSlots(lr)[1], lr.optim).lr).toBe(1e-4);
  });

  it('refuses sizes or learning rates that differ within a shared model, ids of unknown agents, and ids with one shared model', () => {
    expect(() =>
      modelSlots(
        tools({ models: { ids: { search: 'tools', answer: 'tools' }, perAgent: { answer: 'small' } } }),
      ),
    ).toThrow(
      'models.perAgent.answer: agents search, answer share model tools (models.ids), so they need one size',
    );
    expect(() =>
      modelSlots(
        tools({ optim: { perAgent: { search: { lr: 1e-4 }, answer: { lr: 1e-4, clipHigh: 0.3 } } } }),
      ),
    ).toThrow(
      /^optim\.perAgent\.answer\.clipHigh: agents search, answer share model tools \(models\.ids\), so they need one clipHigh/,
    );
    expect(() =>
      modelSlots(ExperimentSchema.parse({ task: 'search', models: { ids: { serch: 'tools' } } })),
    ).toThrow(/^models\.ids\.serch: task search has no agent/);
    expect(() =>
      modelSlots(
        ExperimentSchema.parse({
          task: 'search',
          models: { assignment: 'shared', ids: { search: 'tools' } },
        }),
      ),
    ).toThrow('models.ids (search) needs models.assignment = per-agent');
  });
});
