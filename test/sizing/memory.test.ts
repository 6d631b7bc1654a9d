import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ExperimentSchema } from '../../src/core/config';
import { estimateMemory, WASM_LIMIT_BYTES } from '../../src/sizing/memory';

describe('the memory estimate of a config', () => {
  it('grows with B·G and the model, and stays an upper bound of the measured peaks', () => {
    const est = (c: object) => estimateMemory(ExperimentSchema.parse(c)).bytes;
    // Peak RSS measured with `/usr/bin/time -f %M` over one CLI step (README): 0.53, 1.09, 0.79 GB.
    expect(est({})).toBeGreaterThan(0.53e9);
    expect(est({ rollout: { batchSize: 16 } })).toBeGreaterThan(1.09e9);
    expect(
      est({ task: 'sync', models: { preset: 'small' }, rollout: { batchSize: 16, groupSize: 16 } }),
    ).toBeGreaterThan(0.79e9);
    expect(est({ rollout: { batchSize: 8 } })).toBeGreaterThan(est({}));
    expect(est({ optim: { miniBatches: 4 } })).toBeLessThan(est({}));
    expect(est({ models: { preset: 'base' }, rollout: { batchSize: 64, groupSize: 32 } })).toBeGreaterThan(
      WASM_LIMIT_BYTES,
    );
  });

  it('counts a search tree’s nodes under mcts: 32 nodes outgrow G = 8 rollouts of math’s 3 calls', () => {
    const est = (c: object) => estimateMemory(ExperimentSchema.parse({ task: 'math', ...c })).bytes;
    const parallel = est({ rollout: { nodes: 32 } });
    expect(est({ rollout: { sampling: 'mcts', nodes: 32 } })).toBeGreaterThan(parallel);
    // Every run grows trees: G is not used and does not count, however large.
    const mcts8 = est({ rollout: { sampling: 'mcts', nodes: 8 } });
    expect(mcts8).toBeLessThan(parallel); // 8 nodes < G = 8 rollouts × 3 calls
    expect(est({ rollout: { sampling: 'mcts', nodes: 8, groupSize: 32 } })).toBe(mcts8);
    // One run back on parallel sampling: its G rollouts count again.
    const mixed = { rollout: { sampling: 'mcts', nodes: 8, groupSize: 32 } };
    const runs = [
      { label: 'MARS2', estimator: 'mars2' },
      { label: 'GRPO', estimator: 'grpo', rollout: { sampling: 'parallel' } },
    ];
    expect(est({ ...mixed, runs })).toBeGreaterThan(mcts8);
  });

  it('refuses the largest config up front with "needs about X GB", before building anything', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'train',
        '--config',
        'v=1&models.preset=base&rollout.batchSize=64&rollout.groupSize=32',
        '--quiet',
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /this experiment needs about 179\.8 GB \(estimate.*over the 4\.0 GB the wasm backend can address/,
    );
  });
});
