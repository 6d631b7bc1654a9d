/**
 * The 'credit' preset (Credit × normalization) run for real in the CLI: every run
 * records its step, and the counterfactual runs record every agent's credit and the replays.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const lab = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 240_000,
  });

describe('lab train --preset credit', () => {
  it('records agent/<name>/credit/{mean,std} for every agent of the credit runs, and their replays', () => {
    const out = mkdtempSync(join(tmpdir(), 'agentwise-credit-'));
    const r = lab(['train', '--preset', 'credit', '--steps', '1', '--out', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.run)).toEqual(['GRPO', 'Dr. MAS', 'GRPO + credit', 'Dr. MAS + credit']);
    for (const line of lines) {
      const credit = line.run.endsWith('+ credit');
      for (const agent of ['verifier', 'search', 'answer']) {
        for (const stat of ['mean', 'std']) {
          const key = `agent/${agent}/credit/${stat}`;
          if (credit) expect(line[key] === null || Number.isFinite(line[key]), key).toBe(true);
          else expect(line, key).not.toHaveProperty(key);
        }
      }
      // 3 agents: K = 3 replays per judged trajectory (B·G = 32), none under shared credit.
      expect(line['perf/credit_replays']).toBe(credit ? 3 * (32 - line['env/errors']) : 0);
    }
    // The verifier and the answer agent act in every trajectory: their credit is always defined.
    for (const line of lines.slice(2))
      for (const a of ['verifier', 'answer'])
        expect(Number.isFinite(line[`agent/${a}/credit/mean`])).toBe(true);
    // Same seed, same weights at step 0: the runs roll out the same batch, so credit shifts each
    // agent's mean row reward by exactly λ·credit/mean (λ = 1).
    for (const a of ['verifier', 'answer']) {
      expect(lines[2][`agent/${a}/reward/mean`]).toBeCloseTo(
        lines[0][`agent/${a}/reward/mean`] + lines[2][`agent/${a}/credit/mean`],
        10,
      );
    }
    expect(lines[2]['reward/mean']).toBe(lines[0]['reward/mean']);
  });
});
