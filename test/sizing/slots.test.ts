/**
 * What is checked against the task before anything is built (src/sizing/slots.ts, read by the
 * page's and the CLI's memory verdict): names of agents in rollout.arms.
 */
import { describe, expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import { memoryVerdict } from '../../src/sizing/memory';

describe('agent names checked before a run starts', () => {
  it('refuses an arm the task does not have before anything is built, experiment-wide or per run', () => {
    // The page and the CLI size a config (memoryVerdict, over modelSlots) before they start a run:
    // an unknown arm is refused there, not by the search at the first step of a started run.
    const at = (link: string) => {
      const read = decodeExperiment(link);
      if (!read.ok) throw new Error(read.errors.map((e) => e.message).join('; '));
      const v = memoryVerdict(read.config, 'wasm');
      return v.error?.message;
    };
    const mcts = 'v=1&task=coder-tester&rollout.sampling=mcts&runs.0.label=a&runs.0.estimator=mars2';
    expect(at(`${mcts}&rollout.arms=coder,judge`)).toBe(
      'rollout.arms: task coder-tester has no agent "judge" (agents: tester, coder)',
    );
    expect(at(`${mcts}&runs.0.rollout.arms=judge`)).toBe(
      'runs.0.rollout.arms: task coder-tester has no agent "judge" (agents: tester, coder)',
    );
    expect(at(`${mcts}&runs.0.rollout.arms=coder`)).toBeUndefined();
  });
});
