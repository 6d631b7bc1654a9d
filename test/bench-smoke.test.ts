/**
 * `npm run bench -- --smoke` runs the whole benchmark script on the smallest workload and prints
 * figures: a script that breaks fails here instead of in a user's hands. Asserts that it ran and
 * measured, not how fast (speed is the benchmark's report, never a test's verdict).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('bench --smoke measures a train step and decoding on wasm and writes them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const out = join(dir, 'r.json');
    const stdout = execFileSync('npx', ['tsx', 'scripts/bench.ts', '--smoke', '--out', out], {
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(stdout).toMatch(/nano\s+wasm\s+fused/);
    const { results } = JSON.parse(readFileSync(out, 'utf8')) as { results: Record<string, number>[] };
    expect(results).toHaveLength(1);
    const r = results[0];
    expect(r.params).toBe(109888); // nano over the 89-id vocabulary
    expect(r.trainMs).toBeGreaterThan(0);
    expect(r.decodeTokPerS).toBeGreaterThan(0);
    expect(r.dispatchesPerTrainStep).toBeGreaterThan(100); // kernels of forward + backward + AdamW
    expect(r.readbacksPerToken).toBeCloseTo(1 / 8, 6); // one logits readback per decode step of 8 rows
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
