/**
 * The 'atgrpo-tree' preset (AT-GRPO: tree vs parallel on plan) run for real in the CLI:
 * both runs record every agent's keys and the tree's cost keys; the tree's AT-GRPO sets are never
 * singletons, and its rows are G siblings per level.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentKey, M, metricKeys } from '../../src/core/metrics';
import { presetById } from '../../src/core/presets';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 240_000,
  });

describe('lab train --preset atgrpo-tree', () => {
  it('records every agent key and the sampling cost for both runs; the tree leaves no singleton', () => {
    const exp = presetById('atgrpo-tree')!.config;
    expect(exp.runs.map((r) => r.rollout.sampling ?? exp.rollout.sampling)).toEqual(['parallel', 'tree']);
    const out = mkdtempSync(join(tmpdir(), 'agentwise-tree-'));
    const r = lab(['train', '--preset', 'atgrpo-tree', '--steps', '1', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.run)).toEqual(['AT-GRPO parallel', 'AT-GRPO tree']);
    const { batchSize: B, groupSize: G } = exp.rollout;
    // Every key of the run's key table (per agent, per model, perf/completion_calls), eval aside (every 10 steps).
    const keys = metricKeys(['planner', 'executor'], ['planner', 'executor'], exp.eval.k).filter(
      (k) => !k.startsWith('eval/'),
    );
    for (const line of lines) {
      for (const key of keys) expect(line, key).toHaveProperty(key);
      for (const agent of ['planner', 'executor']) expect(line[agentKey(agent, 'calls')]).toBeGreaterThan(0);
      for (const key of [M.rolloutMs, M.updateMs, M.decodeForwards, M.completionCalls])
        expect(Number.isFinite(line[key]), key).toBe(true);
      expect(line[M.completionCalls]).toBe(0); // plan scores candidates by its turnReward
    }
    const tree = lines[1];
    expect(tree[M.singletonFrac]).toBe(0);
    // The planner and executor alternate: every level is one agent's G siblings, so each agent's
    // rows are a multiple of B·G.
    for (const agent of ['planner', 'executor']) expect(tree[agentKey(agent, 'calls')] % (B * G)).toBe(0);
  });
});
