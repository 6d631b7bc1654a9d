/**
 * The comparison the lab exists for, on the shipped base models: in the synchronous control the
 * two estimators must coincide step for step; on `search` they must part from the first batch.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readFileSync } from 'node:fs';
import { DEFAULT_EXPERIMENT, ExperimentSchema } from '../../src/core/config';
import { whatDiffers } from '../../src/report/what-differs';
import { agentKey, agentSameBatchKey, M, modelKey } from '../../src/core/metrics';
import { loadShippedBase } from '../../src/cli/base-models';
import { loadBase } from '../../src/train/base';
import { encodeCheckpoint, signCheckpoint } from '../../src/model/checkpoint';
import { earlier } from '../model/earlier-vocab';
import { RunTrainer } from '../../src/train/trainer';
import { presetById } from '../../src/core/presets';
import { Prng } from '../../src/core/prng';
import { rollout } from '../../src/tasks/orchestrator';
import { getTask, sampleInstances } from '../../src/tasks/registry';
import { buildModels, disposeModels } from '../../src/train/models';
import { modelPolicy, type SampledTokens } from '../../src/train/policy';
import type { SearchInstance } from '../../src/tasks/search';
import { routeErrors, searchRoutingTask } from '../../src/tasks/search-routing';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const small = (task: string) =>
  ExperimentSchema.parse({ task, rollout: { batchSize: 4, groupSize: 4 }, eval: { every: 0 } });

/** Everything a step measured, without wall-clock figures. */
const science = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(([k]) => !k.startsWith('perf/') && k !== M.timeS && !k.startsWith('mem/')),
  );

describe('GRPO vs Dr. MAS from the shipped base models', () => {
  it('sync: identical advantages, updates and metrics, step after step', async () => {
    const exp = small('sync');
    const { checkpoints, notes } = await loadShippedBase(exp);
    expect(Object.values(notes).every((n) => n.startsWith('shipped base'))).toBe(true);
    const grpo = new RunTrainer({ exp, run: exp.runs[0], seed: 11, base: checkpoints });
    const drmas = new RunTrainer({ exp, run: exp.runs[1], seed: 11, base: checkpoints });
    try {
      for (let s = 0; s < 2; s++) {
        const [a, b] = [await grpo.trainStep(), await drmas.trainStep()];
        expect(a.advantages).toEqual(b.advantages);
        expect(science(a.metrics)).toEqual(science(b.metrics));
        // Not vacuous: the base model succeeds sometimes, so groups carry signal.
        expect(a.metrics[M.zeroAdvFrac]).toBeLessThan(1);
        expect(Math.max(...a.advantages.map(Math.abs))).toBeGreaterThan(0.1);
        // The same batch weighed by both estimators: exactly the same weights for every agent.
        for (const agent of grpo.agents) {
          expect(a.metrics[agentSameBatchKey(agent, 'drmas', 'corr')]).toBe(1);
          expect(a.metrics[agentSameBatchKey(agent, 'drmas', 'sq_mean')]).toBe(
            a.metrics[agentSameBatchKey(agent, 'grpo', 'sq_mean')],
          );
          expect(a.metrics[agentSameBatchKey(agent, 'grpo', 'sq_mean')]).toBeGreaterThan(0.1);
        }
      }
    } finally {
      grpo.dispose();
      drmas.dispose();
    }
  });

  it('search: same rollouts at step 0, different advantages', async () => {
    const exp = small('search');
    const { checkpoints } = await loadShippedBase(exp);
    const grpo = new RunTrainer({ exp, run: exp.runs[0], seed: 2, base: checkpoints });
    const drmas = new RunTrainer({ exp, run: exp.runs[1], seed: 2, base: checkpoints });
    try {
      const [a, b] = [await grpo.trainStep(), await drmas.trainStep()];
      expect(a.rows.map((r) => r.response)).toEqual(b.rows.map((r) => r.response));
      const diff = Math.max(...a.advantages.map((x, i) => Math.abs(x - b.advantages[i])));
      expect(diff).toBeGreaterThan(0.05);
      // On GRPO's own batch, Dr. MAS would weigh some agent's rows differently.
      const corr = grpo.agents.map((agent) => a.metrics[agentSameBatchKey(agent, 'drmas', 'corr')]);
      expect(Math.min(...corr)).toBeLessThan(0.999);
    } finally {
      grpo.dispose();
      drmas.dispose();
    }
  });

  it('the default experiment: What differs leaves amplification out (penalized rows), as the README and its preset say', async () => {
    // The page's default experiment, its GRPO run at the CLI's seed: the first steps of
    // `npm run lab -- train` (docs/estimators.md#on-the-default-experiment).
    const exp = ExperimentSchema.parse({
      ...DEFAULT_EXPERIMENT,
      eval: { ...DEFAULT_EXPERIMENT.eval, every: 0 },
    });
    const { checkpoints } = await loadShippedBase(exp);
    const grpo = new RunTrainer({ exp, run: exp.runs[0], seed: exp.seed, base: checkpoints });
    try {
      const frames: Record<string, number>[] = [];
      for (let s = 0; s < 4; s++) frames.push((await grpo.trainStep()).metrics);
      const card = whatDiffers(frames, grpo.agents, 'grpo', {
        trajectories: exp.rollout.batchSize * exp.rollout.groupSize,
        groupSize: exp.rollout.groupSize,
      })!;
      // A few rows carry an invalid answer's own penalty, so amplification applies to no agent…
      expect(card.summary).toMatch(
        /Amplification applies to none of its agents: it needs every row of an agent to carry its trajectory’s reward, and at most \d+ % do/,
      );
      for (const a of card.agents) {
        expect(a.carried, a.agent).toBeLessThan(1);
        expect(a.carried, a.agent).toBeGreaterThan(0.5);
        // …and the measured scale is what it gives: Dr. MAS near GRPO's, as the texts quote.
        expect(a.scale, a.agent).toBeGreaterThan(0.93);
        expect(a.scale, a.agent).toBeLessThan(1.05);
        expect(a.corr, a.agent).toBeGreaterThan(0.89);
        expect(a.sentence).not.toMatch(/Its amplification is/);
      }
      // The step-by-step factor sits at (G − 1)/G = 0.875 on most batches.
      const amps = frames.flatMap((f) => grpo.agents.map((a) => f[agentKey(a, 'amplification')]));
      const sorted = amps.filter(Number.isFinite).sort((x, y) => x - y);
      expect(sorted[Math.floor(sorted.length / 2)]).toBeCloseTo(0.875, 1);
      // The README and the preset say the same.
      const lookFor = presetById('drmas-vs-grpo')!.lookFor;
      const readme = readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
      for (const text of [lookFor, readme]) {
        expect(text).toContain('0.87–0.88');
        expect(text).toContain('0.93–1.05×');
        expect(text).toContain('0.89–1.00');
        expect(text).toMatch(/What differs says amplification (does not apply|applies to none)/);
      }
    } finally {
      grpo.dispose();
    }
  });

  it('refuses a corrupt base checkpoint naming the file', async () => {
    const exp = small('sync');
    const corrupt = async (path: string) =>
      path.endsWith('bob.ckpt') ? new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) : null;
    await expect(loadBase(exp, corrupt)).rejects.toThrow(
      /no shipped base model models\/sync\/per-agent\/alice\.ckpt/,
    );
    const real = await loadShippedBase(exp);
    const mixed = async (path: string) =>
      path.endsWith('bob.ckpt')
        ? new Uint8Array([65, 71, 87, 71, 80, 84, 48, 49, 255, 255, 0, 0])
        : (await import('node:fs')).readFileSync(`models/${path}`);
    await expect(loadBase(exp, mixed)).rejects.toThrow(
      /models\/sync\/per-agent\/bob\.ckpt: Agentwise checkpoint truncated/,
    );
    expect(Object.keys(real.checkpoints)).toEqual(['alice', 'bob']);
  });

  it('starts a model from an uploaded checkpoint that fits it, and refuses one that does not', async () => {
    const exp = small('sync');
    const { readFileSync } = await import('node:fs');
    const bob = new Uint8Array(readFileSync('models/sync/per-agent/bob.ckpt'));
    const shipped = async (path: string) => new Uint8Array(readFileSync(`models/${path}`));
    const r = await loadBase(exp, shipped, [{ name: 'my-bob.ckpt', bytes: bob }]);
    expect(r.notes).toEqual({
      bob: 'checkpoint file my-bob.ckpt',
      alice: expect.stringMatching(/^shipped base/),
    });
    // A search-task checkpoint matches no sync model; a shared sync model matches no per-agent one.
    const verifier = new Uint8Array(readFileSync('models/search/per-agent/verifier.ckpt'));
    await expect(loadBase(exp, shipped, [{ name: 'verifier.ckpt', bytes: verifier }])).rejects.toThrow(
      /verifier\.ckpt fits no model of this experiment \(models: alice, bob\)/,
    );
    const twice = [
      { name: 'a.ckpt', bytes: bob },
      { name: 'b.ckpt', bytes: bob },
    ];
    await expect(loadBase(exp, shipped, twice)).rejects.toThrow(
      "a.ckpt and b.ckpt are both checkpoints for model bob: every run starts from one checkpoint per model, so give one run's files",
    );
    await expect(loadBase(exp, shipped, [{ name: 'bad.ckpt', bytes: bob.subarray(0, 100) }])).rejects.toThrow(
      /^bad\.ckpt: /,
    );
    // The right agents but another size: refused with the mismatch named.
    const base = small('sync');
    base.models.perAgent = { bob: 'small' };
    await expect(loadBase(base, shipped, [{ name: 'bob.ckpt', bytes: bob }])).rejects.toThrow(
      /bob\.ckpt does not fit model bob \(small\)/,
    );
  });

  it("starts plan's planner from an earlier build's solver checkpoint (73 ids), migrated on load, and says so", async () => {
    const exp = small('plan');
    const { readFileSync } = await import('node:fs');
    const read = async (path: string) => new Uint8Array(readFileSync(`models/${path}`));
    // Named by its notes (agents: ["solver"]), and by its file name alone.
    const old = earlier('plan/per-agent/planner.ckpt');
    expect(old.manifest.notes.agents).toEqual(['solver']);
    for (const name of ['agentwise-grpo-step-9-x.ckpt', 'my-solver.ckpt']) {
      const bytes = name.includes('solver') ? earlierWithout(old, 'agents') : old.bytes;
      const r = await loadBase(exp, read, [{ name, bytes }]);
      expect(r.notes).toEqual({
        planner: `checkpoint file ${name} (vocabulary migrated on load, 73 → 89 ids)`,
        executor: 'shipped base (val success 0.45)',
      });
      expect(r.checkpoints.planner.manifest.config.vocabSize).toBe(89);
    }
  });
});

/** `ckpt` re-signed without one of its notes. */
function earlierWithout(ckpt: ReturnType<typeof earlier>, note: string): Uint8Array {
  const { version: _v, hash: _h, fieldHashes: _f, ...header } = ckpt.manifest;
  const { [note]: _gone, ...notes } = header.notes;
  return encodeCheckpoint(signCheckpoint({ ...header, notes }, ckpt.weights));
}

describe('the mechanism presets on their shipped base models', () => {
  it('math-loop: the base verifier rejects first answers, so seeded rollouts have more solver calls than trajectories', async () => {
    const exp = presetById('math-loop')!.config;
    const { checkpoints } = await loadShippedBase(exp);
    const models = buildModels(exp, () => exp.optim, 0, checkpoints);
    try {
      const counters = { forwards: 0, readbacks: 0, tokens: 0 };
      const policies = Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)]));
      const instances = sampleInstances(getTask('math'), new Prng(21), 'train', exp.rollout.batchSize);
      const r = await rollout<SampledTokens>({
        task: 'math',
        instances,
        groupSize: exp.rollout.groupSize,
        policies,
        seed: 21,
      });
      const solverCalls = r.rows.filter((row) => row.agent === 'solver').length;
      expect(solverCalls).toBeGreaterThanOrEqual(1.3 * r.trajectories.length); // ≥ 30 % of first answers rejected
      expect(solverCalls).toBeLessThanOrEqual(1.6 * r.trajectories.length); // … and not nearly all
      expect(r.trajectories.some((t) => t.success)).toBe(true);
    } finally {
      disposeModels(models);
    }
  });
});

describe('the search-routing preset on its base models', () => {
  it('starts from its own cautious router and search’s other models; search rows gather in failures, answer rows in successes', async () => {
    const exp = presetById('search-routing')!.config;
    const { checkpoints } = await loadShippedBase(exp);
    const trainedOn = (id: string) => (checkpoints[id].manifest.notes as { task: string }).task;
    expect([trainedOn('verifier'), trainedOn('search'), trainedOn('answer')]).toEqual([
      'search-routing',
      'search',
      'search',
    ]);
    const models = buildModels(exp, () => exp.optim, 0, checkpoints);
    try {
      const counters = { forwards: 0, readbacks: 0, tokens: 0 };
      const policies = Object.fromEntries(models.map((m) => [m.id, modelPolicy(m.model, counters)]));
      const G = exp.rollout.groupSize;
      const instances = sampleInstances(searchRoutingTask, new Prng(31), 'train', 16) as SearchInstance[];
      const r = await rollout<SampledTokens>({
        task: 'search-routing',
        instances,
        groupSize: G,
        policies,
        seed: 31,
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const failed = new Set(r.trajectories.filter((t) => !t.success).map((t) => t.traj));
      const of = (agent: string) => r.rows.filter((row) => row.agent === agent);
      const failShare = (agent: string) =>
        of(agent).filter((row) => failed.has(row.traj)).length / of(agent).length;
      const mu = mean(
        r.trajectories.map((t) => mean(r.rows.filter((row) => row.traj === t.traj).map((row) => row.reward))),
      );
      const [muS, muA] = ['search', 'answer'].map((a) => mean(of(a).map((row) => row.reward)));
      const success = mean(r.trajectories.map((t) => (t.success ? 1 : 0)));
      expect(success).toBeGreaterThan(0.15);
      expect(success).toBeLessThan(0.85);
      expect(failShare('search')).toBeGreaterThan(failShare('answer') + 0.05);
      expect(muS).toBeLessThan(mu);
      expect(mu).toBeLessThan(muA);
      // Both routing errors happen: timeouts after a cautious "no", and an eager "yes".
      const errs = r.trajectories.map((t) =>
        routeErrors(
          searchRoutingTask,
          instances[Math.floor(t.traj / G)],
          r.rows.filter((row) => row.traj === t.traj),
        ),
      );
      expect(errs.filter((e) => e.timeout).length).toBeGreaterThan(0.1 * errs.length);
      expect(errs.some((e) => e.eager > 0)).toBe(true);
      console.log(
        `search-routing, 128 seeded base rollouts: success ${success.toFixed(2)}, μ_S ${muS.toFixed(2)} < μ ${mu.toFixed(2)} < μ_A ${muA.toFixed(2)}, ` +
          `rows in failures search ${failShare('search').toFixed(2)} / answer ${failShare('answer').toFixed(2)}, timeouts ${errs.filter((e) => e.timeout).length}, eager ${errs.filter((e) => e.eager > 0).length}`,
      );
    } finally {
      disposeModels(models);
    }
  });
});

describe('the heterogeneous preset', () => {
  it('starts every agent from a shipped checkpoint of its size and earns task reward from the first steps', async () => {
    const exp = {
      ...presetById('heterogeneous')!.config,
      eval: { ...presetById('heterogeneous')!.config.eval, every: 0 },
    };
    const { checkpoints, notes } = await loadShippedBase(exp);
    expect(Object.values(notes).every((n) => n.startsWith('shipped base'))).toBe(true);
    expect(checkpoints.search.manifest.preset).toBe('small');
    const t = new RunTrainer({ exp, run: exp.runs[0], seed: 0, base: checkpoints });
    try {
      const rewards = [
        (await t.trainStep()).metrics[M.rewardMean],
        (await t.trainStep()).metrics[M.rewardMean],
      ];
      expect(Math.max(...rewards)).toBeGreaterThan(0);
    } finally {
      t.dispose();
    }
  });
});

describe('a model shared by a subset of the agents (models.ids)', () => {
  it('starts from the task’s shared base model and trains with one optimizer for its agents', async () => {
    const exp = ExperimentSchema.parse({
      task: 'search',
      models: { ids: { search: 'tools', answer: 'tools' } },
      rollout: { batchSize: 2, groupSize: 4 },
      eval: { every: 0 },
    });
    const { checkpoints, notes } = await loadShippedBase(exp);
    expect(Object.keys(checkpoints)).toEqual(['verifier', 'tools']);
    expect(notes.tools).toMatch(/^shipped base/);
    const t = new RunTrainer({ exp, run: exp.runs[1], seed: 2, base: checkpoints });
    try {
      const { metrics } = await t.trainStep();
      expect(metrics[modelKey('tools', 'grad_norm')]).toBeGreaterThan(0);
      expect(metrics[agentKey('search', 'grad_norm')]).toBeGreaterThan(0); // its own term on the shared model
      expect(metrics[M.rewardMean]).toBeGreaterThan(0);
    } finally {
      t.dispose();
    }
  });
});

describe("an agent's model started from another agent's base (models.from)", () => {
  it('starts the tester from the shipped coder, says so, and refuses what it cannot honour', async () => {
    const exp = ExperimentSchema.parse({ task: 'coder-tester', models: { from: { tester: 'coder' } } });
    const { checkpoints, notes } = await loadShippedBase(exp);
    expect(checkpoints.tester).toEqual(checkpoints.coder);
    expect(notes.tester).toMatch(/^shipped base of coder \(val success 0\.\d\d/);
    expect(notes.coder).toMatch(/^shipped base \(val success/);
    // Without it, each starts from its own file: the two differ.
    const own = await loadShippedBase(ExperimentSchema.parse({ task: 'coder-tester' }));
    expect(own.checkpoints.tester).not.toEqual(own.checkpoints.coder);
    expect(own.checkpoints.coder).toEqual(checkpoints.coder);
    // The mars2-team preset: a small coder from its own shipped file, the tester a nano coder.
    const team = await loadShippedBase(presetById('mars2-team')!.config);
    expect(team.checkpoints.coder.manifest.preset).toBe('small');
    expect(team.notes.coder).toMatch(/^shipped base \(val success 0\.30/);
    expect(team.checkpoints.tester).toEqual(checkpoints.coder);
    const refused = (models: object) =>
      loadShippedBase(ExperimentSchema.parse({ task: 'coder-tester', models }));
    await expect(refused({ from: { tester: 'judge' } })).rejects.toThrow(
      'models.from.tester: task coder-tester has no agent "judge"',
    );
    await expect(refused({ assignment: 'shared', from: { tester: 'coder' } })).rejects.toThrow(
      'models.from (tester) needs models.assignment = per-agent',
    );
    await expect(
      refused({ ids: { tester: 'both', coder: 'both' }, from: { tester: 'coder' } }),
    ).rejects.toThrow('models.from.tester: agents tester, coder share model both');
  });
});
