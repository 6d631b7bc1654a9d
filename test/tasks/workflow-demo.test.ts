/**
 * An agent's `demo` is what its demonstrator answers, even where its reward rule names a right
 * answer (docs/workflows.md#agents: "default: from its reward rule"): a user who writes one means
 * it. Without one, the rule's right answer is demonstrated.
 */
import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { WorkflowSchema } from '../../src/core/workflow/schema';
import { demonstratorPolicy } from '../../src/tasks/demo';
import { rollout } from '../../src/tasks/orchestrator';
import { defineWorkflow, getTask, sampleInstances } from '../../src/tasks/registry';

const demonstrated = async (demo: object) => {
  const ref = defineWorkflow(
    WorkflowSchema.parse({
      version: 1,
      name: 'demo',
      agents: [{ name: 'ann', maxResponse: 4, ...demo }],
      data: {
        rows: ['abc', 'dog', 'sun', 'pea'].map((word, i) => ({ word, split: i < 2 ? 'train' : 'val' })),
      },
      flow: [{ agent: 'ann', prompt: '{word}>' }],
      rewards: { ann: { rule: 'exact', expect: '{word}' } },
    }),
  );
  const instances = sampleInstances(getTask(ref), new Prng(1), 'train', 4);
  const { rows } = await rollout({
    task: ref,
    instances,
    groupSize: 1,
    policies: { ann: demonstratorPolicy(ref, 0) },
    seed: 1,
  });
  return rows.map((r) => [r.prompt.slice(0, 3), r.response, r.reward] as const);
};

describe('a workflow agent’s demonstrator', () => {
  it('answers its demo where it has one, its rule’s right answer where not', async () => {
    const own = await demonstrated({ demo: '{word|reverse}' });
    expect(own.length).toBe(4);
    for (const [word, response, reward] of own) {
      expect(response).toBe([...word].reverse().join(''));
      expect(reward).toBe(0); // the rule wants the word itself: demonstrated wrong, on purpose
    }
    for (const [word, response, reward] of await demonstrated({}))
      expect([response, reward]).toEqual([word, 1]);
  });
});
