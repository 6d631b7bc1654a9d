/**
 * One run's training loop, one optimizer iteration per `trainStep()`, in CleanRL order, six phases:
 *   1 rollout → 2 rewards → 3 advantages → 4 PPO update (ppo-update.ts) → 5 evaluation → 6 metric values
 * (step-metrics.ts). The live hyper-parameters it trains under are live-settings.ts's.
 * Backend-agnostic: the browser worker and the CLI call the same code. Every run of an experiment
 * sees the same task instances and sampling seeds at every step (they differ only in what the
 * config declares, by default the estimator), so at step 0 two runs roll out identically.
 */
import type { Experiment } from '../core/config';
import type { Run } from '../core/config-run';
import { armsOf } from '../core/config-sections';
import type { LiveParam, LiveSchedule } from '../core/live-params';
import { metricKeys } from '../core/metrics';
import { dialReward, unknownDials } from '../rl/rows';
import type { Checkpoint } from '../model/checkpoint';
import { computeAdvantages } from '../rl/advantage';
import { sameBatchOfStep } from '../rl/same-batch';
import { InProcessEnvRunner, type EnvRunner } from '../tasks/env';
import type { Row, TrajectoryResult } from '../tasks/orchestrator';
import { getSampling } from '../tasks/sampling';
import { evaluateModels } from './evaluate';
import { mixSeed, Prng } from '../core/prng';
import { getTask, sampleInstances, taskRefOf, validationSet, type TaskRef } from '../tasks/registry';
import { agentModelsOf, buildModels, disposeModels, modelOptim, type PolicyModel } from './models';
import { modelPolicy, type PolicyCounters, type SampledTokens } from './policy';
import { ppoUpdate, shadowGradNorms } from './ppo-update';
import { batchCredit, type BatchCredit } from './credit';
import { filterGroups } from '../rl/group-filter';
import { AgentBuffers, updateBatch } from './buffers';
import { LiveSettings } from './live-settings';
import { stepMetrics, type ModelStep } from './step-metrics';

export interface TrainStepResult {
  step: number;
  metrics: Record<string, number>;
  /** The batch, for the rollout inspector: rows with their advantages. */
  rows: Row<SampledTokens>[];
  advantages: Float64Array;
  trajectories: TrajectoryResult[];
  /**
   * Per-agent credit (reward.credit ≠ shared): per row, its agent's credit and the outcome of the
   * replay without that agent. The estimator saw each row's reward + λ × its credit.
   */
  credit: BatchCredit | null;
}

export interface TrainerOptions {
  exp: Experiment;
  run: Run;
  /** The run's seed (experiment seed, or one of its repeats). */
  seed: number;
  /** Starting weights per model id; null = seeded fresh init. */
  base?: Readonly<Record<string, Checkpoint>> | null;
  env?: EnvRunner;
  /**
   * Models to train instead of building them; the caller keeps ownership. Their optimizers read
   * lr and grad clip from the settings they were built with, so setLiveNow does not reach those two.
   */
  models?: PolicyModel[];
  /** Live changes laid over the run's own `live` (a resumed page session's, recorded after its save). */
  schedule?: LiveSchedule;
}

export class RunTrainer {
  readonly exp: Experiment;
  readonly run: Run;
  readonly seed: number;
  readonly models: PolicyModel[];
  readonly agents: string[];
  /** The experiment's task, looked up once (its registry entry does not change), and its ref. */
  private readonly task: ReturnType<typeof getTask>;
  private readonly taskRef: TaskRef;
  private readonly ownsModels: boolean;
  private readonly env: EnvRunner;
  /** The run's live hyper-parameters: its settings as they stand, and its changes by step. */
  private readonly live: LiveSettings;
  private readonly valSet: unknown[];
  /** performance.now() at which this run would have started had it never stopped (time_s). */
  private t0 = performance.now();
  /** L_max of the sum-norm loss modes: the longest response any agent may give, plus EOS. */
  private readonly lMax: number;
  step = 0;
  /** True while a step computes: a change set then waits for the next step. */
  private inStep = false;
  /** Each agent's rows waiting to train it (train.buffer=per-agent), else null: part of the run state. */
  readonly buffers: AgentBuffers | null;

  constructor(o: TrainerOptions) {
    this.exp = o.exp;
    this.run = o.run;
    this.seed = o.seed;
    this.live = new LiveSettings(o.exp, o.run, o.schedule);
    this.env = o.env ?? new InProcessEnvRunner();
    this.ownsModels = !o.models;
    // The optimizers read lr and grad clip from this.settings at every step: setLiveNow changes only it.
    this.models = o.models ?? buildModels(o.exp, () => this.settings.optim, o.seed, o.base ?? null);
    this.agents = this.models.flatMap((m) => m.agents);
    this.taskRef = taskRefOf(o.exp);
    const task = getTask(this.taskRef);
    this.task = task;
    const unknown = unknownDials(this.settings.reward, this.agents);
    if (unknown.length)
      throw new Error(
        `${unknown.join(', ')}: no such agent in task ${o.exp.task} (its agents: ${this.agents.join(', ')})`,
      );
    this.lMax = Math.max(...task.agents.map((a) => a.maxResponse)) + 1;
    const { train } = this.settings;
    this.buffers = train.buffer === 'per-agent' ? new AgentBuffers(this.agents, train.bufferSize) : null;
    this.valSet =
      o.exp.eval.every > 0
        ? validationSet(task, new Prng(mixSeed(o.seed, 'validation')), o.exp.eval.questions)
        : [];
  }

  /** The B training instances of step `s`: a pure function of (seed, s), shared by all runs. */
  instancesAt(s: number): unknown[] {
    return sampleInstances(
      this.task,
      new Prng(mixSeed(this.seed, `train/${s}`)),
      'train',
      this.exp.rollout.batchSize,
    );
  }

  /**
   * One step: first the live changes scheduled for it (the run's `live` and those set while it
   * trains), then rollout to update.
   */
  async trainStep(): Promise<TrainStepResult> {
    this.inStep = true;
    try {
      this.live.applyDue(this.step);
      return await this.computeStep();
    } finally {
      this.inStep = false;
    }
  }

  /** The first step a change set now can take effect at: the step in flight keeps its values. */
  get nextStep(): number {
    return this.inStep ? this.step + 1 : this.step;
  }

  /**
   * Changes a live parameter from step `at` on (the next step, if that is later), through the
   * schedule (as a replay would). Returns the step it takes effect at.
   */
  scheduleLive(param: LiveParam, value: number, at = 0): number {
    const due = Math.max(at, this.nextStep);
    this.live.scheduleAt(param, value, due);
    return due;
  }

  /** Every live change of this run, taken or due (what its saved state carries). */
  get liveSchedule(): LiveSchedule {
    return this.live.schedule;
  }

  /** The run's resolved optimizer, advantage and rollout settings as live parameters made them. */
  private get settings(): LiveSettings['current'] {
    return this.live.current;
  }

  private async computeStep(): Promise<TrainStepResult> {
    const { exp, step } = this;
    const { optim, advantage } = this.settings;
    const { temperature } = this.settings.rollout;

    // 1. rollout: B instances × G rollouts (parallel, or G-branch trees) through the transformer sampler
    const tRollout = performance.now();
    const counters: PolicyCounters = { forwards: 0, readbacks: 0, tokens: 0 };
    const instances = this.instancesAt(step);
    const batch = await getSampling(this.settings.rollout.sampling).rollout<SampledTokens>({
      task: this.taskRef,
      instances,
      groupSize: exp.rollout.groupSize,
      policies: Object.fromEntries(this.models.map((m) => [m.id, modelPolicy(m.model, counters)])),
      agentModels: agentModelsOf(this.models),
      env: this.env,
      seed: mixSeed(this.seed, `rollout/${step}`),
      temperature,
      topP: exp.rollout.topP,
      nodes: exp.rollout.nodes,
      arms: armsOf(this.settings.rollout.arms),
    });
    const rolloutMs = performance.now() - tRollout;

    // 2. rewards. A trajectory whose environment failed, hung or crashed has no judged reward: it
    // is left out of everything that follows (reward and success metrics, every estimator's
    // statistics, the per-agent stats and the update), and only counted in env/errors.
    // The step's rows are seen through lists of their indices in batch.rows: `judgedIdx`, the rows
    // of judged trajectories, and below `trainedIdx`, those of them the update trains on.
    const errored = new Set(batch.trajectories.filter((t) => t.status === 'error').map((t) => t.traj));
    const judged = batch.trajectories.filter((t) => !errored.has(t.traj));
    const judgedIdx = batch.rows.flatMap((r, i) => (errored.has(r.traj) ? [] : [i]));
    // Per-agent credit: coalition replays in the env runner (src/train/credit.ts); each judged
    // row's reward becomes its shared reward + λ × its agent's credit.
    const credit = await batchCredit({
      task: this.task,
      step: (inputs) => this.env.step(this.taskRef, inputs),
      instances,
      rows: batch.rows,
      trajectories: batch.trajectories,
      options: this.settings.reward,
      seed: mixSeed(this.seed, `credit/${step}`),
    });
    // reward.joint: every row starts from its trajectory's outcome reward (MAGRPO's joint reward).
    const outcome = new Map(judged.map((t) => [t.traj, t.reward]));
    const baseReward = (i: number) =>
      this.settings.reward.joint ? outcome.get(batch.rows[i].traj)! : batch.rows[i].reward;
    // The reward dials, ρ_k·r + b_k, last: the estimator and every per-agent statistic see this reward.
    const rewardOf = (i: number) =>
      dialReward(
        this.settings.reward,
        batch.rows[i].agent,
        baseReward(i) + (credit ? credit.weight * credit.rowCredit[i] : 0),
      );

    // 3. advantages: the run's estimator, one scalar per judged row (0 for errored rows); and the
    // same rows under every estimator, to tell how differently they weigh these very rows (each
    // estimator computed once: the run's own is one of them)
    const judgedRows = judgedIdx.map((i) => {
      const r = batch.rows[i];
      return { group: r.group, traj: r.traj, agent: r.agent, turn: r.turn, reward: rewardOf(i) };
    });
    // rollout.filter: the groups the step trains on (groups/kept_frac); the others are left out of
    // the advantages and the update as errored rows are, and a step left with none updates nothing.
    // filtered.rows index judgedRows; trainedIdx and trainedRows are the same rows, as batch.rows
    // indices and as the estimator's rows.
    const filtered = filterGroups(this.settings.rollout.filter, judgedRows);
    const trainedIdx = filtered.rows.map((j) => judgedIdx[j]);
    const trainedRows = filtered.rows.map((j) => judgedRows[j]);
    const own = computeAdvantages(trainedRows, { ...advantage, estimator: this.run.estimator });
    // One advantage per row of the batch: 0 for a row the step does not train on.
    const advantages = new Float64Array(batch.rows.length);
    trainedIdx.forEach((i, j) => (advantages[i] = own.advantages[j]));
    const sameBatch = sameBatchOfStep(
      trainedRows,
      own.advantages,
      this.run.estimator,
      advantage,
      this.agents,
    );

    // 4. PPO update of every model (per-agent loss terms on shared models) on this step's rows, or on
    // what the full per-agent buffers release; with diagnostics.shadowGradNorm, first each
    // estimator's gradient norm on this very batch
    const tUpdate = performance.now();
    const updates: ModelStep[] = [];
    // What the update trains on: this step's trained rows, or what the full per-agent buffers release.
    const toTrain = updateBatch(this.buffers, batch.rows, advantages, trainedIdx);
    for (const m of this.models) {
      const options = {
        optim: modelOptim(m, optim), // its agents' own clip ratios, entropy bonus, …
        temperature,
        lMax: this.lMax,
        seed: mixSeed(this.seed, `minibatch/${step}/${m.id}`),
      };
      // Before the update moves the weights: each estimator's gradient on this very batch.
      const sameBatchGradNorms = exp.diagnostics.shadowGradNorm
        ? await shadowGradNorms({
            model: m,
            rows: batch.rows,
            trained: trainedIdx,
            all: sameBatch.all,
            estimator: this.run.estimator,
            idx: trainedIdx.filter((i) => m.agents.includes(batch.rows[i].agent)),
            options,
          })
        : [];
      // Nothing to train on (every group filtered out, no agent's buffer full) takes no optimizer step.
      const mine = toTrain.idx.filter((i) => m.agents.includes(toTrain.rows[i].agent));
      const update = await ppoUpdate(m, toTrain.rows, toTrain.advantages, mine, options);
      updates.push({ model: m.id, sameBatchGradNorms, update });
    }
    const updateMs = performance.now() - tUpdate;

    // 5. evaluation every N steps: avg@k / pass@k on the held-out questions
    const evalDue = exp.eval.every > 0 && (step + 1) % exp.eval.every === 0;
    const tEval = performance.now();
    const evaluation = evalDue ? await this.evaluate() : {};
    const evalMs = evalDue ? performance.now() - tEval : 0;

    // 6. the step's metrics, in one block (step-metrics.ts)
    const metrics = stepMetrics({
      step,
      agents: this.agents,
      judged,
      errored: errored.size,
      reward: this.settings.reward,
      credit,
      ownSuccess: this.task.ownSuccess,
      advantageStats: own.stats,
      sameBatch: sameBatch.metrics,
      updates,
      filtered: this.settings.rollout.filter !== 'none' ? filtered : null,
      trainedAgents: toTrain.agents,
      evaluation,
      batch,
      counters,
      ms: { rollout: rolloutMs, update: updateMs, eval: evalMs },
      t0: this.t0,
    });

    this.step++;
    return { step, metrics, rows: batch.rows, advantages, trajectories: batch.trajectories, credit };
  }

  /** The frame key table of this run: every metric a step can emit, in a fixed order. */
  metricKeys(): string[] {
    return metricKeys(
      this.agents,
      this.models.map((m) => m.id),
      this.exp.eval.k,
      {
        ...this.exp.diagnostics,
        credit: this.settings.reward.credit !== 'shared',
        estimator: this.run.estimator,
        ownSuccess: this.task.ownSuccess,
        mcts: this.settings.rollout.sampling === 'mcts',
        filter: this.settings.rollout.filter !== 'none',
        buffers: this.buffers !== null,
      },
    );
  }

  /**
   * Changes a live hyper-parameter (core/live-params.ts LIVE) now: the next step computed takes it.
   * A running run's change goes through its schedule instead (scheduleLive, from RunDriver.setLiveFrom).
   */
  setLiveNow(param: LiveParam, value: number): void {
    this.live.set(param, value);
  }

  /** The live hyper-parameters as they stand now. */
  liveValues(): Record<LiveParam, number> {
    return this.live.values();
  }

  /** Wall time trained so far, in seconds (a resumed run's includes the time before its save). */
  get elapsedS(): number {
    return (performance.now() - this.t0) / 1000;
  }
  set elapsedS(s: number) {
    this.t0 = performance.now() - s * 1000;
  }

  /**
   * avg@k and pass@k over the validation set at the eval temperature (train/evaluate.ts), seeded by
   * the step about to be trained (trainStep's phase 5 runs it before counting its step).
   */
  evaluate(): Promise<Record<string, number>> {
    return evaluateModels(this.exp, this.models, {
      instances: this.valSet,
      env: this.env,
      seed: mixSeed(this.seed, `eval/${this.step}`),
    });
  }

  dispose(): void {
    if (this.ownsModels) disposeModels(this.models);
  }
}
