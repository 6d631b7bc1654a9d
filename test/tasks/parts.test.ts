/**
 * The `parts` family (src/core/workflow/families.ts): N agents, each reversing its own word. The
 * N dial gives each agent its own rule at every N; mix = 0 makes GRPO and Dr. MAS coincide on this
 * synchronous workflow (every agent acts once, every row carries the team's reward) and mix = 1
 * does not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema } from '../../src/core/config';
import { agentKey } from '../../src/core/metrics';
import { Prng } from '../../src/core/prng';
import { expandWorkflow, type FamilyRef } from '../../src/core/workflow/families';
import { computeAdvantages } from '../../src/rl/advantage';
import { rollout, type Policy } from '../../src/tasks/orchestrator';
import { defineWorkflow, getTask, sampleInstances } from '../../src/tasks/registry';
import type { WorkflowInstance } from '../../src/tasks/workflow';
import { RunTrainer } from '../../src/train/trainer';

const parts = (agents: number, mix = 1): FamilyRef => ({ family: 'parts', args: { agents, mix } });
const reverse = (s: string) => [...s].reverse().join('');

beforeAll(async () => {
  await tf.setBackend('wasm');
});

/** Each agent answers its word reversed when `right(agent, call)`, else the word as it is. */
const answering =
  (right: (agent: string, seed: number) => boolean): Policy =>
  async (calls) =>
    calls.map((c) => {
      const word = c.prompt.slice(0, c.prompt.indexOf('<'));
      return { text: right(c.agent, c.seed) ? reverse(word) : word };
    });

describe('the parts family', () => {
  it.each([2, 8])(
    'at N = %i, every agent reverses its own word, and is rewarded by its own rule',
    async (n) => {
      const wf = expandWorkflow(parts(n));
      expect(wf.agents.map((a) => a.name)).toHaveLength(n);
      const ref = defineWorkflow(wf);
      const instances = sampleInstances(getTask(ref), new Prng(3), 'train', 4) as WorkflowInstance[];
      const right = (_: string, seed: number) => new Prng(seed).chance(0.5);
      const policy = answering(right);
      const r = await rollout({
        task: ref,
        instances,
        groupSize: 4,
        policies: Object.fromEntries(wf.agents.map((a) => [a.name, policy])),
        seed: 5,
      });
      expect(r.rows).toHaveLength(4 * 4 * n);
      for (const row of r.rows) {
        const k = wf.agents.findIndex((a) => a.name === row.agent);
        const word = instances[row.group].fields[`p${k + 1}`];
        expect(row.prompt.startsWith(`${word}<`)).toBe(true);
        expect(row.reward).toBe(row.response === reverse(word) ? 1 : 0);
      }
      for (const t of r.trajectories)
        expect(t.success).toBe(Object.values(t.agentSuccess ?? {}).every(Boolean));
    },
  );

  it.each([2, 8])(
    'at N = %i, step 0 records each agent’s own success and reward by its own rule',
    async (n) => {
      const exp = ExperimentSchema.parse({
        task: 'workflow',
        workflow: parts(n),
        models: { base: 'scratch' },
        rollout: { batchSize: 2, groupSize: 2 },
        eval: { every: 0 },
      });
      const t = new RunTrainer({ exp, run: exp.runs[0], seed: 1 });
      try {
        const { metrics, rows } = await t.trainStep();
        for (const a of expandWorkflow(parts(n)).agents.map((x) => x.name)) {
          const own = rows.filter((r) => r.agent === a);
          expect(own).toHaveLength(4);
          expect(metrics[agentKey(a, 'own_success')]).toBe(own.filter((r) => r.reward === 1).length / 4);
          expect(metrics[agentKey(a, 'reward/mean')]).toBe(own.reduce((s, r) => s + r.reward, 0) / 4);
        }
      } finally {
        t.dispose();
      }
    },
  );

  it('mix = 0 gives GRPO and Dr. MAS the same advantages; mix = 1 does not', async () => {
    const advantagesAt = async (mix: number) => {
      const wf = expandWorkflow(parts(3, mix));
      const ref = defineWorkflow(wf);
      const instances = sampleInstances(getTask(ref), new Prng(8), 'train', 4);
      // ann right four times in five, ben one in two, cal one in five: their own rewards differ.
      const rate: Record<string, number> = { ann: 0.8, ben: 0.5, cal: 0.2 };
      const policy = answering((agent, seed) => new Prng(seed).chance(rate[agent]));
      const r = await rollout({
        task: ref,
        instances,
        groupSize: 8,
        policies: Object.fromEntries(wf.agents.map((a) => [a.name, policy])),
        seed: 2,
      });
      return ['grpo', 'drmas'].map(
        (estimator) => computeAdvantages(r.rows, { estimator: estimator as 'grpo' }).advantages,
      );
    };
    const [grpo0, drmas0] = await advantagesAt(0);
    expect(drmas0).toEqual(grpo0);
    expect(grpo0.some((a) => a !== 0)).toBe(true);
    const [grpo1, drmas1] = await advantagesAt(1);
    expect(drmas1).not.toEqual(grpo1);
  });
});
