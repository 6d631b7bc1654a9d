// train.buffer=per-agent (docs/estimators.md#per-agent-buffers): rows accumulate across steps, an agent
// updates only once its buffer holds train.bufferSize rows, and a resumed run with a half-full buffer
// repeats the uninterrupted one bit for bit. rollout.filter=mixed on a real step: a step whose groups
// are all uniform updates nothing and says so.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadShippedBase } from '../../src/cli/base-models';
import { ExperimentSchema, type Experiment } from '../../src/core/config';
import { agentKey, FILTER_METRICS, M } from '../../src/core/metrics';
import { decodeRunState, encodeRunState } from '../../src/train/run-state';
import { resumeRunTrainer, saveRunState } from '../../src/train/trainer-state';
import { RunTrainer } from '../../src/train/trainer';

/** sync: two agents, one call each per trajectory, so 2 × 4 = 8 rows per agent per step. */
const exp = (train: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  ExperimentSchema.parse({
    task: 'sync',
    rollout: { batchSize: 2, groupSize: 4 },
    eval: { every: 0 },
    runs: [{ label: 'MAGRPO', estimator: 'magrpo', optim: { policyLoss: 'reinforce' } }],
    train,
    ...more,
  });

const science = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('mem/') && k !== M.timeS),
  );

/** The shipped base models: they succeed sometimes, so advantages (and gradients) are not all 0. */
const base = async (e: Experiment) => (await loadShippedBase(e)).checkpoints;

const weights = async (t: RunTrainer) =>
  Promise.all(
    t.models.map(async (m) =>
      Array.from(await tf.concat(m.model.variables.map((v) => tf.reshape(v, [-1]))).data()),
    ),
  );

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('per-agent buffers', () => {
  it('with 20 rows per buffer and 8 rows a step, each agent skips two steps and updates at the third', async () => {
    const e = exp({ buffer: 'per-agent', bufferSize: 20 });
    const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 3, base: await base(e) });
    try {
      expect(t.metricKeys()).toContain(agentKey(t.agents[0], 'updated'));
      const start = await weights(t);
      const steps = [];
      for (let s = 0; s < 2; s++) steps.push((await t.trainStep()).metrics);
      // Two skipped steps leave every weight as it was; 2 × 8 rows wait for the third.
      expect(await weights(t)).toEqual(start);
      steps.push((await t.trainStep()).metrics);
      for (const a of t.agents) {
        expect(steps.map((m) => m[agentKey(a, 'calls')])).toEqual([8, 8, 8]);
        expect(steps.map((m) => m[agentKey(a, 'buffer')])).toEqual([8, 16, 24]);
        expect(steps.map((m) => m[agentKey(a, 'updated')])).toEqual([0, 0, 1]);
        expect(steps[1][agentKey(a, 'grad_norm')]).toBeUndefined();
        expect(steps[2][agentKey(a, 'grad_norm')]).toBeGreaterThan(0);
        expect(t.buffers!.save()[a].length).toBe(0); // emptied by the update
      }
      expect(await weights(t)).not.toEqual(start);
    } finally {
      t.dispose();
    }
  });

  it('by default every agent updates every step, and no buffer metric exists', async () => {
    const e = exp({});
    const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 3, base: await base(e) });
    try {
      expect(t.buffers).toBeNull();
      expect(t.metricKeys().some((k) => k.endsWith('/updated') || k.endsWith('/buffer'))).toBe(false);
      const m = (await t.trainStep()).metrics;
      for (const a of t.agents) expect(m[agentKey(a, 'grad_norm')]).toBeGreaterThan(0);
    } finally {
      t.dispose();
    }
  });

  it('a run resumed with a half-full buffer repeats the uninterrupted run bit for bit', async () => {
    const e = exp({ buffer: 'per-agent', bufferSize: 12 });
    const checkpoints = await base(e);
    const straight = new RunTrainer({ exp: e, run: e.runs[0], seed: 5, base: checkpoints });
    const expected: Record<string, number>[] = [];
    try {
      for (let s = 0; s < 4; s++) expected.push(science((await straight.trainStep()).metrics));
    } finally {
      straight.dispose();
    }
    // After step 0 each buffer holds 8 of 12 rows when the state is saved.
    const first = new RunTrainer({ exp: e, run: e.runs[0], seed: 5, base: checkpoints });
    let bytes: Uint8Array;
    try {
      await first.trainStep();
      for (const a of first.agents) expect(first.buffers!.save()[a].length).toBe(8);
      bytes = encodeRunState(await saveRunState(first));
    } finally {
      first.dispose();
    }
    const resumed = resumeRunTrainer(decodeRunState(bytes));
    try {
      const got = [];
      for (let s = 1; s < 4; s++) got.push(science((await resumed.trainStep()).metrics));
      expect(got).toEqual(expected.slice(1));
      // The saved rows trained at the first step after the resume (8 + 8 ≥ 12), and learned.
      for (const a of resumed.agents) {
        expect(got.map((m) => m[agentKey(a, 'updated')])).toEqual([1, 0, 1]);
        expect(got[0][agentKey(a, 'grad_norm')]).toBeGreaterThan(0);
      }
    } finally {
      resumed.dispose();
    }
    // Without its buffers the resumed run would differ: the state must carry them.
    const state = decodeRunState(bytes);
    expect(Object.values(state.manifest.buffers!).map((rows) => rows.length)).toEqual([8, 8]);
  });
});

describe('group filter mixed on a real step', () => {
  it('keeps exactly the groups with differing rewards; a step with none updates nothing', async () => {
    // Scratch models fail nearly everything: most groups are all-zero, so some steps have none.
    const e = exp(
      {},
      { task: 'sync', models: { base: 'scratch' }, rollout: { batchSize: 2, groupSize: 4, filter: 'mixed' } },
    );
    const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 1 });
    try {
      expect(t.metricKeys()).toContain(FILTER_METRICS.keptFrac);
      let empty = 0;
      for (let s = 0; s < 3; s++) {
        const before = await weights(t);
        const r = await t.trainStep();
        const byGroup = new Map<number, Set<number>>();
        for (const row of r.rows)
          (byGroup.get(row.group) ?? byGroup.set(row.group, new Set()).get(row.group)!).add(row.reward);
        const mixed = [...byGroup.values()].filter((rewards) => rewards.size > 1).length;
        expect(r.metrics[FILTER_METRICS.keptFrac]).toBe(mixed / byGroup.size);
        expect(r.metrics[FILTER_METRICS.emptyStep]).toBe(mixed === 0 ? 1 : 0);
        if (mixed === 0) {
          empty++;
          expect(await weights(t)).toEqual(before);
        }
      }
      expect(empty).toBeGreaterThan(0);
    } finally {
      t.dispose();
    }
  });
});

describe('group filter mixed on tree-sampled groups', () => {
  it('a group is one instance’s tree: kept exactly when its rows’ rewards differ', async () => {
    const e = exp(
      {},
      { task: 'sync', rollout: { batchSize: 6, groupSize: 4, sampling: 'tree', filter: 'mixed' } },
    );
    const t = new RunTrainer({ exp: e, run: e.runs[0], seed: 4, base: await base(e) });
    try {
      const r = await t.trainStep();
      const byGroup = new Map<number, Set<number>>();
      for (const row of r.rows) {
        if (!byGroup.has(row.group)) byGroup.set(row.group, new Set());
        byGroup.get(row.group)!.add(row.reward);
      }
      const mixed = [...byGroup].filter(([, rewards]) => rewards.size > 1).map(([g]) => g);
      expect(r.metrics[FILTER_METRICS.keptFrac]).toBe(mixed.length / byGroup.size);
      // Rows of dropped trees get no advantage; the kept ones are normalized among themselves.
      for (const [i, row] of r.rows.entries())
        if (!mixed.includes(row.group)) expect(r.advantages[i]).toBe(0);
      // Not vacuous: this step has trees of both kinds.
      expect(mixed.length).toBeGreaterThan(0);
      expect(mixed.length).toBeLessThan(byGroup.size);
    } finally {
      t.dispose();
    }
  });
});

describe('joint reward', () => {
  it("reward.joint: every row carries its trajectory's outcome, not its agent's own reward", async () => {
    // coder-tester's own rewards: coder 2 × pass share, tester consistency + pass share; outcome = pass share.
    const e = exp(
      {},
      { task: 'coder-tester', runs: [{ label: 'J', estimator: 'magrpo', reward: { joint: true } }] },
    );
    const own = exp({}, { task: 'coder-tester', runs: [{ label: 'O', estimator: 'magrpo' }] });
    const checkpoints = await base(e);
    const [tj, to] = [e, own].map(
      (x) => new RunTrainer({ exp: x, run: x.runs[0], seed: 2, base: checkpoints }),
    );
    try {
      const [rj, ro] = [await tj.trainStep(), await to.trainStep()];
      // The same rollouts (same seed and weights); only the rewards the estimator sees differ.
      expect(rj.rows.map((r) => r.response)).toEqual(ro.rows.map((r) => r.response));
      const outcome = new Map(rj.trajectories.map((t) => [t.traj, t.reward]));
      for (const a of ['coder', 'tester']) {
        const rows = rj.rows.filter((r) => r.agent === a);
        const mean = rows.reduce((acc, r) => acc + outcome.get(r.traj)!, 0) / rows.length;
        expect(rj.metrics[agentKey(a, 'reward/mean')]).toBeCloseTo(mean, 12);
      }
      expect(rj.metrics[agentKey('coder', 'reward/mean')]).toBe(
        rj.metrics[agentKey('tester', 'reward/mean')],
      );
      // Without it the coder's rows carry twice the pass share.
      expect(ro.metrics[agentKey('coder', 'reward/mean')]).toBeCloseTo(
        2 * rj.metrics[agentKey('coder', 'reward/mean')],
        12,
      );
      expect(rj.metrics[M.rewardMean]).toBeGreaterThan(0); // not vacuous
    } finally {
      tj.dispose();
      to.dispose();
    }
  });
});
