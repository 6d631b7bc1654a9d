// An action that needs new runs asks first while runs are on screen, and applies at once with none.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import type { Experiment } from '../../src/core/config';
import { presetById } from '../../src/core/presets';
import { answerPending, applyExperiment, proposeConfig } from '../../src/ui/config-edit';
import { ask, resetLab, useLab } from '../../src/ui/session/store';
import type { LabState } from '../../src/ui/session/store';

const G = (g: number) => ({
  ...DEFAULT_EXPERIMENT,
  rollout: { ...DEFAULT_EXPERIMENT.rollout, groupSize: g },
});
const g = () => useLab.getState().config.rollout.groupSize;

afterEach(() => resetLab());

describe('ask', () => {
  it('applies at once with no runs on screen', () => {
    proposeConfig(G(4));
    expect(g()).toBe(4);
    expect(useLab.getState().pending).toBeNull();
  });

  it('waits for the answer with runs on screen: keep drops it, start new applies it', () => {
    resetLab({ sessionState: 'paused', config: G(2) });
    const dropped: string[] = [];
    proposeConfig(G(4), () => dropped.push('G 4'));
    expect(g()).toBe(2);
    expect(useLab.getState().pending).toMatchObject({
      title: 'This change needs new runs',
      detail: 'Group size G 2 → 4',
    });
    answerPending(false);
    expect([g(), useLab.getState().pending, dropped]).toEqual([2, null, ['G 4']]);

    proposeConfig(G(8));
    answerPending(true);
    expect([g(), useLab.getState().pending, useLab.getState().sessionState]).toEqual([8, null, 'idle']);
  });

  it('a newer question replaces an unanswered one, which is answered "keep"', () => {
    resetLab({ sessionState: 'done' });
    const seen: string[] = [];
    ask({ title: 'a', detail: '', apply: () => seen.push('apply a'), drop: () => seen.push('drop a') });
    ask({ title: 'b', detail: '', apply: () => seen.push('apply b'), drop: () => seen.push('drop b') });
    answerPending(true);
    expect(seen).toEqual(['drop a', 'apply b']);
  });

  it('while a result is opened, even a live value is not edited into it: it asks for a new session', () => {
    // An opened result's state as the controller leaves it (openResult): its runs done on screen.
    const opened = { name: 'shared.lab.json.gz' } as LabState['opened'];
    resetLab({ sessionState: 'done', config: G(2), opened });
    const lr = DEFAULT_EXPERIMENT.optim.lr;
    applyExperiment({ ...G(2), optim: { ...DEFAULT_EXPERIMENT.optim, lr: lr * 2 } });
    expect(useLab.getState().config.optim.lr).toBe(lr);
    expect(useLab.getState().pending).toMatchObject({ title: 'This change needs new runs' });
    answerPending(false);
    expect(useLab.getState().config.optim.lr).toBe(lr);
    // Without a result on screen, the same change is a live one: it applies to the idle page at once.
    resetLab({ config: G(2) });
    applyExperiment({ ...G(2), optim: { ...DEFAULT_EXPERIMENT.optim, lr: lr * 2 } });
    expect([useLab.getState().config.optim.lr, useLab.getState().pending]).toEqual([lr * 2, null]);
  });
});

describe('what a change says it changes', () => {
  const detail = (from: Experiment, to: Experiment) => {
    resetLab({ sessionState: 'paused', config: from });
    proposeConfig(to);
    const d = useLab.getState().pending?.detail;
    answerPending(false);
    return d;
  };

  it('a preset: every changed field by its label, values as the page shows them, an added run said as one', () => {
    // The default experiment (GRPO vs Dr. MAS on search) to Where they part: a task, a dial and a run.
    expect(detail(DEFAULT_EXPERIMENT, presetById('sync-own-scaled')!.config)).toBe(
      'Task search → sync-own, Reward scale of alice 1 → 8, adds a run Step-level',
    );
    // Back again: the run removed, never "Estimator – →" on another run.
    expect(detail(presetById('sync-own-scaled')!.config, DEFAULT_EXPERIMENT)).toBe(
      'Task sync-own → search, Reward scale of alice 8 → 1, removes a run Step-level',
    );
    // A run whose label does not name its estimator says it after the label.
    expect(detail(DEFAULT_EXPERIMENT, presetById('credit')!.config)).toMatch(
      /adds a run GRPO \+ credit \(GRPO\), .*adds a run Dr\. MAS \+ credit \(Dr\. MAS\)/,
    );
  });

  it("a run's own change: its estimator by name, an override by the value it trains with", () => {
    const tree = presetById('atgrpo-tree')!.config;
    const runs = [tree.runs[0], { ...tree.runs[1], estimator: 'drmas' as const, rollout: {} }];
    expect(detail(tree, { ...tree, runs })).toBe(
      'AT-GRPO tree run: Estimator AT-GRPO → Dr. MAS, AT-GRPO tree run: Sampling tree → parallel',
    );
    expect(detail(tree, { ...tree, runs: [...tree.runs].reverse() })).toBe(
      'Run order AT-GRPO parallel, AT-GRPO tree → AT-GRPO tree, AT-GRPO parallel',
    );
  });
});
