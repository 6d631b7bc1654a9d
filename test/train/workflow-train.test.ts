/**
 * The built-in tasks as workflows, trained: three steps of examples/workflows/sync-own.yaml and
 * math.yaml from the shipped base models give exactly the metrics of task=sync-own and task=math
 * (every key but wall-clock figures), with evaluation due on the way. The rollout-level check is
 * test/tasks/workflow-builtins.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../../src/cli/base-models';
import { ExperimentSchema } from '../../src/core/config';
import { agentKey, M } from '../../src/core/metrics';
import { RunTrainer } from '../../src/train/trainer';
import { exampleWorkflow } from '../tasks/workflow-examples';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

/** Everything a step measured, without wall-clock figures. */
const science = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(([k]) => !k.startsWith('perf/') && k !== M.timeS && !k.startsWith('mem/')),
  );

describe.each(['sync-own', 'math'] as const)('%s as a workflow, trained', (name) => {
  it('gives the metrics of the built-in task, step for step', async () => {
    const shared = { rollout: { batchSize: 4, groupSize: 4 }, eval: { every: 2, questions: 8, k: 2 } };
    const builtin = ExperimentSchema.parse({ task: name, ...shared });
    const asWorkflow = ExperimentSchema.parse({
      task: 'workflow',
      workflow: exampleWorkflow(name),
      ...shared,
    });
    const [a, b] = [await loadShippedBase(builtin), await loadShippedBase(asWorkflow)];
    expect(b.notes).toEqual(a.notes);
    const t1 = new RunTrainer({ exp: builtin, run: builtin.runs[1], seed: 3, base: a.checkpoints });
    const t2 = new RunTrainer({ exp: asWorkflow, run: asWorkflow.runs[1], seed: 3, base: b.checkpoints });
    try {
      for (let s = 0; s < 3; s++) {
        const [x, y] = [await t1.trainStep(), await t2.trainStep()];
        expect(science(y.metrics)).toEqual(science(x.metrics));
        expect(y.rows.map((r) => [r.agent, r.prompt, r.response, r.reward])).toEqual(
          x.rows.map((r) => [r.agent, r.prompt, r.response, r.reward]),
        );
        // Not vacuous: rewards vary, and each agent's own success is measured.
        expect(x.metrics[M.rewardStd]).toBeGreaterThan(0);
        expect(Number.isFinite(x.metrics[agentKey(name === 'math' ? 'solver' : 'bob', 'own_success')])).toBe(
          true,
        );
      }
    } finally {
      t1.dispose();
      t2.dispose();
    }
  });
});
