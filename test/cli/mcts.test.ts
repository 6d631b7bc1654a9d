/**
 * rollout.sampling=mcts run for real in the CLI: a few training steps of MARS2 and Dr. MAS on
 * `math` trees of 6 nodes record the search's metrics, with each agent's node count summing to
 * the tree's nodes and every node one row; stopped and resumed, it records the same lines
 * (docs/tree-sampling.md#mcts-sampling-mars2).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentKey, MCTS_KEYS, metricKeys } from '../../src/core/metrics';
import { lines as linesOf, science } from './metrics-lines';
import { runLab } from './run-lab';

describe('lab train with rollout.sampling=mcts', () => {
  it('records tree nodes, per-agent nodes summing to them, and each arm’s posterior mean; resumes bit for bit', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-mcts-'));
    const B = 2;
    const N = 6;
    const config = `v=1&task=math&rollout.sampling=mcts&rollout.nodes=${N}&rollout.batchSize=${B}&eval.every=0&runs.0.label=MARS2&runs.0.estimator=mars2&runs.1.label=Dr. MAS&runs.1.estimator=drmas`;
    const r = runLab(['train', '--config', config, '--steps', '3', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => `${l.run}@${l.step}`)).toEqual([
      'MARS2@0',
      'Dr. MAS@0',
      'MARS2@1',
      'Dr. MAS@1',
      'MARS2@2',
      'Dr. MAS@2',
    ]);
    const agents = ['solver', 'verifier'];
    const keys = metricKeys(agents, agents, 8, { mcts: true, ownSuccess: false }).filter(
      (k) => !k.startsWith('eval/'),
    );
    for (const line of lines) {
      for (const key of keys) expect(line, key).toHaveProperty(key);
      expect(line[MCTS_KEYS.treeNodes]).toBe(N);
      const nodes = agents.map((a) => line[agentKey(a, 'nodes')]);
      expect(nodes[0] + nodes[1]).toBeCloseTo(N, 12);
      // One row per node: each agent's calls are its nodes over the B trees.
      agents.forEach((a, i) => expect(line[agentKey(a, 'calls')]).toBeCloseTo(nodes[i] * B, 9));
      for (const a of agents) {
        const arm = line[agentKey(a, 'arm_mean')];
        expect(arm).toBeGreaterThan(0);
        expect(arm).toBeLessThan(1);
      }
    }
    // Stopped after 2 steps and resumed to 3: the same lines as the uninterrupted run (the search
    // is a function of the run's seed and step alone).
    const part = mkdtempSync(join(tmpdir(), 'agentwise-mcts-resume-'));
    const first = runLab([
      'train',
      '--config',
      config,
      '--steps',
      '2',
      '--out',
      part,
      '--quiet',
      '--checkpoint-every',
      '1',
    ]);
    expect(first.status, first.stderr).toBe(0);
    const resumed = runLab(['train', '--resume', part, '--steps', '3', '--quiet']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(linesOf(part).map(science)).toEqual(linesOf(out).map(science));
    // Step 0 starts both runs from the same weights: the same trees.
    for (const key of [MCTS_KEYS.treeNodes, agentKey('solver', 'nodes'), agentKey('solver', 'arm_mean')])
      expect(lines[1][key]).toBe(lines[0][key]);
  });
});
