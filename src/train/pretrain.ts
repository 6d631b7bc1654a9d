/**
 * Base models by supervised warm-start: the task's demonstrator plays (error rate 0 unless
 * `demoErrors` says otherwise), and each
 * model learns its agents' turns by next-token cross-entropy on the responses. Training stops at
 * the first check where validation success reaches the target, so RL starts from a policy that
 * succeeds sometimes (room to improve, and group variance to learn from). Deterministic from the
 * seed on a given backend. Used by `npm run pretrain`; backend-agnostic like the trainer.
 */
import type { Experiment } from '../core/config';
import { ExperimentSchema } from '../core/config';
import { SPECIAL } from '../core/vocab';
import { saveCheckpoint, type Checkpoint } from '../model/checkpoint';
import { disposeBatch, packRows, toTensors } from '../model/logprobs';
import { tokenizer } from '../model/tokenizer';
import { supervisedStep } from '../model/warmstart';
import { demonstratorPolicy, type ErrorRates } from '../tasks/demo';
import { rollout } from '../tasks/orchestrator';
import { mixSeed, Prng } from '../core/prng';
import { getTask, sampleInstances, taskRefOf, validationSet } from '../tasks/registry';
import type { TaskChoice } from '../core/config-names';
import { expandWorkflow, type WorkflowSpec } from '../core/workflow/families';
import { evaluateRun } from './evaluate';
import type { Role } from '../core/vocab';
import { agentModelsOf, buildModels, disposeModels } from './models';
import { pretrainRecipe } from '../core/workflow/base-key';

interface PretrainOptions {
  /** The task, or `workflow` with the workflow whose agents learn. */
  task: TaskChoice;
  workflow?: WorkflowSpec;
  assignment: Experiment['models']['assignment'];
  preset: Experiment['models']['preset'];
  seed: number;
  /** Stop once validation avg@k reaches this (checked every `checkEvery` steps). */
  targetSuccess: number;
  /**
   * And once every agent whose own part the task tells reaches this own validation success (a
   * workflow's specialist that never succeeds gives RL nothing to learn from). A model whose
   * agents have all reached it stops learning at that check, so a quick learner is not trained
   * far past the others while they catch up. Default 0 (no such stop; the shipped models').
   */
  minOwnSuccess?: number;
  maxSteps: number;
  checkEvery: number;
  /** Task instances per supervised step (one demonstrated trajectory each). */
  batchSize: number;
  lr: number;
  /**
   * Mistake rates of the demonstrator per agent (default 0). A verifier only learns to say "no"
   * from demonstrations in which the solver errs, so its partner's demonstrations must err.
   */
  demoErrors?: ErrorRates;
  /**
   * Only these agents' turns are learned (default: all), by the models that serve them; other
   * models keep `init`'s weights. A shared model then learns one role's turns without the
   * others' (deliberately erring) demonstrations.
   */
  learn?: readonly Role[];
  /** Per-agent model sizes (models.perAgent), e.g. the heterogeneous preset's. */
  perAgent?: Readonly<Record<string, Experiment['models']['preset']>>;
  /** Starting weights per model id (default: a seeded fresh init). */
  init?: Readonly<Record<string, Checkpoint>>;
  /** After each step; at a check, with validation success (the team's, and each agent's own). */
  onProgress?: (p: { step: number; loss: number; success?: number; own?: Record<string, number> }) => void;
  /** Stops at the next step when aborted (the page's Stop): the models as they stand are returned. */
  stop?: AbortSignal;
}

interface PretrainResult {
  checkpoints: Record<string, Checkpoint>;
  steps: number;
  /** Validation avg@k and pass@k of the result at the training temperature (1). */
  success: number;
  passAtK: number;
  /** Each agent's own validation success, where the task tells (a workflow with rules). */
  own: Record<string, number>;
  k: number;
  /**
   * Whether it stopped by its recipe's rule (the team's target with every agent's own, or every
   * model past its own), not at maxSteps or a Stop: the page says "short of the recipe" otherwise.
   */
  reached: boolean;
  recipe: Record<string, unknown>;
}

export async function pretrainBase(o: PretrainOptions): Promise<PretrainResult> {
  const exp = ExperimentSchema.parse({
    task: o.task,
    ...(o.workflow ? { workflow: o.workflow } : {}),
    models: { assignment: o.assignment, preset: o.preset, perAgent: o.perAgent ?? {}, base: 'scratch' },
    eval: { every: 1, k: 4, questions: 64, temperature: 1, topP: 1 },
  });
  const optim = { ...exp.optim, lr: o.lr, weightDecay: 0.01, maxGradNorm: 1 };
  const models = buildModels(exp, () => optim, o.seed, o.init ?? null);
  const ref = taskRefOf(exp);
  const task = getTask(ref);
  const demo = demonstratorPolicy(ref, o.demoErrors ?? 0);
  const learns = (m: (typeof models)[number]) => !o.learn || m.agents.some((a) => o.learn?.includes(a));
  // The trainer's evaluation (same policy adapter and metrics as RL) on the same models.
  const valSet = validationSet(task, new Prng(mixSeed(o.seed, 'validation')), exp.eval.questions);
  let step = 0;
  let success = 0;
  let pass = 0;
  let own: Record<string, number> = {};
  /** Models whose agents all reached minOwnSuccess: they learn no more. */
  const reached = new Set<string>();
  let stoppedByRule = false;
  try {
    for (; step < o.maxSteps && !o.stop?.aborted; step++) {
      // ---- data: one demonstrated trajectory per fresh training instance
      const instances = sampleInstances(
        task,
        new Prng(mixSeed(o.seed, `pretrain/${step}`)),
        'train',
        o.batchSize,
      );
      const policies = Object.fromEntries(models.map((m) => [m.id, demo]));
      const { rows } = await rollout({
        task: ref,
        instances,
        groupSize: 1,
        policies,
        agentModels: agentModelsOf(models),
        seed: mixSeed(o.seed, `demo/${step}`),
      });

      // ---- one supervised step per model on its agents' turns
      let loss = 0;
      for (const m of models.filter((x) => learns(x) && !reached.has(x.id))) {
        const own = rows.filter((r) => m.agents.includes(r.agent) && (!o.learn || o.learn.includes(r.agent)));
        if (own.length === 0) continue;
        const packed = packRows(
          own.map((r) => ({
            prompt: tokenizer.encode(SPECIAL.BOS + r.prompt),
            response: tokenizer.encode(r.response + SPECIAL.EOS),
          })),
          {
            contextLength: m.model.config.contextLength,
            vocabSize: m.model.config.vocabSize,
            pad: tokenizer.pad,
          },
        );
        const batch = toTensors(packed);
        try {
          loss += (await supervisedStep(m.model, m.opt, batch)).loss / models.length;
        } finally {
          disposeBatch(batch);
        }
      }

      // ---- check: stop at the first validation success at or above the target
      if ((step + 1) % o.checkEvery === 0) {
        // Seeded as a fresh trainer's first evaluation always was, so the shipped models reproduce.
        const ev = await evaluateRun(exp, models, { instances: valSet, seed: mixSeed(o.seed, 'eval/0') });
        success = ev.avg;
        pass = ev.pass;
        own = ev.ownSuccess;
        o.onProgress?.({ step: step + 1, loss, success, own });
        const ownReached = Object.values(own).every((v) => !(v < (o.minOwnSuccess ?? 0)));
        if (o.minOwnSuccess)
          for (const m of models) if (m.agents.every((a) => !(own[a] < o.minOwnSuccess!))) reached.add(m.id);
        // Also once no model learns any more: nothing could change (a team target out of reach of
        // agents each past their own stayed so for the rest of the steps, 480 of 600 on a pair).
        const frozen = models.filter(learns).every((m) => reached.has(m.id));
        if ((success >= o.targetSuccess && ownReached) || frozen) {
          stoppedByRule = true;
          step++;
          break;
        }
      } else o.onProgress?.({ step: step + 1, loss });
    }
    const recipe = {
      method: 'supervised warm-start on demonstrator turns, stop at target validation success',
      demoErrors: o.demoErrors ?? 0,
      learn: o.learn ?? 'all',
      init: o.init ? 'shipped base' : 'seeded fresh init',
      task: o.task,
      ...(o.workflow ? { workflow: expandWorkflow(o.workflow).name } : {}),
      assignment: o.assignment,
      preset: o.preset,
      perAgent: o.perAgent ?? {},
      seed: o.seed,
      steps: step,
      batchSize: o.batchSize,
      lr: o.lr,
      targetSuccess: o.targetSuccess,
      ...(o.minOwnSuccess ? { minOwnSuccess: o.minOwnSuccess } : {}),
      validation: { questions: exp.eval.questions, k: exp.eval.k, temperature: 1, avg: success, pass, own },
    };
    const checkpoints: Record<string, Checkpoint> = {};
    for (const m of models.filter(learns)) {
      checkpoints[m.id] = await saveCheckpoint(m.model, {
        preset: m.preset,
        notes: { ...recipe, agents: m.agents },
      });
    }
    return {
      checkpoints,
      steps: step,
      success,
      passAtK: pass,
      own,
      k: exp.eval.k,
      reached: stoppedByRule,
      recipe,
    };
  } finally {
    disposeModels(models);
  }
}

/**
 * A workflow experiment's base models: its agents pretrained on their demonstrations with its
 * recipe (pretrainRecipe: the lab's constants and the workflow's own `base`; the CLI's `lab pretrain --workflow` and the page's Prepare base models
 * alike, so one key names one recipe), `o` overriding the seed, target or step cap.
 */
export function pretrainWorkflowBase(
  exp: Experiment,
  o: Partial<Pick<PretrainOptions, 'seed' | 'targetSuccess' | 'maxSteps' | 'onProgress' | 'stop'>>,
): Promise<PretrainResult> {
  const defined = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return pretrainBase({
    task: 'workflow',
    workflow: exp.workflow,
    assignment: exp.models.assignment,
    preset: exp.models.preset,
    perAgent: exp.models.perAgent,
    seed: 0,
    ...pretrainRecipe(expandWorkflow(exp.workflow!)),
    ...defined,
  });
}
