/**
 * `npm run pretrain -- --task <task> [--seed N] [--target 0.3] [--max-steps N] [--out models]
 *   [--assignments per-agent,shared] [--demo-errors agent=rate,…] [--learn agent,…] [--from-shipped] [--sizes agent=size,…]`
 * Warm-starts base models from the task's demonstrator and writes, per assignment (one model per
 * agent, and one shared), `models/<task>/<assignment>/<id>.ckpt` plus `models/<task>/manifest.json`
 * with the recipe and the measured base success. Runs on the wasm backend, deterministically.
 * `--learn` retrains only those agents' models, starting (with `--from-shipped`) from the shipped
 * ones, and keeps the others; `--sizes agent=small,…` trains those agents' models at other sizes (shipped as
 * `<id>-<size>.ckpt`); `--demo-errors` makes the demonstrator err per agent (the math
 * verifier learns to reject only from a solver that errs). The manifest keeps the sets not rerun.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptArgs } from './cli-args';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { TASK_NAMES } from '../src/core/config-names';
import type { TaskName } from '../src/core/config-names';
import { encodeCheckpoint } from '../src/model/checkpoint';
import type { Role } from '../src/core/vocab';
import { loadShippedBase } from '../src/cli/base-models';
import { ExperimentSchema } from '../src/core/config';
import { pretrainBase } from '../src/train/pretrain';

const USAGE = `Usage: npm run pretrain -- [--task T] [options]

Warm-starts base models from a task's demonstrator (wasm, deterministic) and writes
models/<task>/<assignment>/<id>.ckpt and models/<task>/manifest.json. See docs/base-models.md.

  --task T               one task (default: every task)
  --seed N               initial weights and data order (default 0)
  --target X             stop once validation success reaches X (default 0.3; above 1: never)
  --max-steps N          at most N training steps (default 1500)
  --preset P             model size: nano, small or base (default nano)
  --out DIR              where models/ is written (default models)
  --assignments A,…      per-agent, shared or both (default per-agent,shared)
  --demo-errors a=r,…    the demonstrator of agent a errs with probability r
  --learn a,…            retrain only these agents' models; keep the others
  --from-shipped         start --learn from the shipped models
  --sizes a=size,…       train these agents' models at another size (<id>-<size>.ckpt)`;

const values = scriptArgs(USAGE, {
  task: { type: 'string' },
  seed: { type: 'string', default: '0' },
  target: { type: 'string', default: '0.3' },
  'max-steps': { type: 'string', default: '1500' },
  preset: { type: 'string', default: 'nano' },
  out: { type: 'string', default: 'models' },
  assignments: { type: 'string', default: 'per-agent,shared' },
  'demo-errors': { type: 'string', default: '' },
  learn: { type: 'string' },
  'from-shipped': { type: 'boolean', default: false },
  sizes: { type: 'string', default: '' },
});
const tasks = values.task ? [values.task] : [...TASK_NAMES];
for (const t of tasks)
  if (!TASK_NAMES.includes(t as TaskName)) throw new Error(`--task must be one of ${TASK_NAMES.join(', ')}`);

const demoErrors: Partial<Record<Role, number>> = {};
for (const pair of values['demo-errors'].split(',').filter(Boolean)) {
  const [agent, rate] = pair.split('=');
  if (!(Number(rate) >= 0 && Number(rate) <= 1))
    throw new Error(`--demo-errors: ${pair} is not agent=rate with rate in [0, 1]`);
  demoErrors[agent as Role] = Number(rate);
}
const perAgent: Record<string, 'nano' | 'small' | 'base'> = {};
for (const pair of values.sizes.split(',').filter(Boolean)) {
  const [agent, size] = pair.split('=');
  if (!['nano', 'small', 'base'].includes(size))
    throw new Error(`--sizes: ${pair} is not agent=nano|small|base`);
  perAgent[agent] = size as 'nano';
}
const learn = values.learn ? (values.learn.split(',') as Role[]) : undefined;

await tf.setBackend('wasm');
for (const task of tasks as TaskName[]) {
  const manifestPath = join(values.out, task, 'manifest.json');
  const old = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { sets?: object })
    : {};
  const manifest: Record<string, unknown> = {
    task,
    backend: 'wasm',
    generated: new Date().toISOString().slice(0, 10),
    sets: { ...old.sets },
  };
  for (const assignment of values.assignments.split(',') as ('per-agent' | 'shared')[]) {
    const t0 = performance.now();
    const exp = ExperimentSchema.parse({ task, models: { assignment, preset: values.preset, perAgent } });
    const init = values['from-shipped'] ? (await loadShippedBase(exp, values.out)).checkpoints : undefined;
    const r = await pretrainBase({
      demoErrors,
      learn,
      perAgent,
      init,
      task,
      assignment,
      preset: values.preset as 'nano',
      seed: Number(values.seed),
      targetSuccess: Number(values.target),
      maxSteps: Number(values['max-steps']),
      checkEvery: 10,
      batchSize: 32,
      lr: 3e-3,
      onProgress: (p) => {
        if (p.success !== undefined)
          console.log(
            `${task}/${assignment} step ${p.step} loss ${p.loss.toFixed(3)} val avg@4 ${p.success.toFixed(3)}`,
          );
      },
    });
    const dir = join(values.out, task, assignment);
    mkdirSync(dir, { recursive: true });
    const previous = (
      manifest.sets as Record<
        string,
        Record<string, unknown> & { files?: Record<string, string>; retrained?: unknown[] }
      >
    )[assignment];
    const files: Record<string, string> = { ...previous?.files };
    for (const [id, ckpt] of Object.entries(r.checkpoints)) {
      // A size other than the set's is shipped beside it as <id>-<size>.ckpt (src/train/base.ts).
      const stem = ckpt.manifest.preset === values.preset ? id : `${id}-${ckpt.manifest.preset}`;
      writeFileSync(join(dir, `${stem}.ckpt`), encodeCheckpoint(ckpt));
      files[stem] = `${assignment}/${stem}.ckpt`;
    }
    const result = {
      steps: r.steps,
      [`val_avg@${r.k}`]: r.success,
      [`val_pass@${r.k}`]: r.passAtK,
      seconds: Math.round((performance.now() - t0) / 1000),
      recipe: r.recipe,
    };
    // A retraining of some agents keeps the set's first recipe and lists itself after it.
    (manifest.sets as Record<string, unknown>)[assignment] =
      learn && previous
        ? { ...previous, files, retrained: [...(previous.retrained ?? []), { agents: learn, ...result }] }
        : { preset: values.preset, files, ...result };
    console.log(`${task}/${assignment}: ${r.steps} steps, base success ${r.success.toFixed(3)} → ${dir}`);
  }
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
}
