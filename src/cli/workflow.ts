/**
 * Workflow files on the command line: `--workflow F` reads F (JSON or YAML) and the dataset file
 * beside it, checks the dataset against the SHA-256 the workflow names (and fills it in), and
 * makes its rows known to the task registry; `lab pretrain --workflow F` prepares its base models;
 * `lab train --workflow F` finds them in the cache, or pretrains first and says so
 * (docs/workflows.md#on-the-command-line).
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Experiment } from '../core/config';
import { sha256Hex } from '../core/sha256';
import {
  describeIssues,
  MAX_WORKFLOW_BYTES,
  placedIssues,
  readDataset,
  readWorkflow,
} from '../core/workflow/file';
import type { Workflow } from '../core/workflow/schema';
import { expandWorkflow, type WorkflowSpec } from '../core/workflow/families';
import { encodeCheckpoint } from '../model/checkpoint';
import { registerDataset, taskOf } from '../tasks/registry';
import { WorkflowRefused } from '../tasks/workflow';
import { usesShippedBase } from '../tasks/workflow-generators';
import { pretrainWorkflowBase } from '../train/pretrain';
import { UsageError } from './args';
import { fieldErrorText, validateExperiment } from '../core/config-validate';
import { baseModelsKey, recipeGoal } from '../core/workflow/base-key';

/** An experiment's whole workflow (a family's built), or null. */
const wholeOf = (exp: Pick<Experiment, 'workflow'>): Workflow | null =>
  exp.workflow ? expandWorkflow(exp.workflow) : null;

/** The dataset files read, by SHA-256: their bytes, to copy into a train folder beside its config. */
const DATA_BYTES = new Map<string, { file: string; bytes: Uint8Array }>();

/** A file's bytes, refused before reading when it is over the limit. */
function readLimited(path: string, what: string): Uint8Array {
  if (!existsSync(path)) throw new UsageError(`${what}: no such file ${path}`);
  const size = statSync(path).size;
  if (statSync(path).isDirectory()) throw new UsageError(`${what}: ${path} is a folder`);
  if (size > MAX_WORKFLOW_BYTES)
    throw new UsageError(
      `${what}: ${path} is ${(size / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_WORKFLOW_BYTES / 1024 / 1024} MB`,
    );
  return new Uint8Array(readFileSync(path));
}

/**
 * Reads a workflow's dataset file from `dir`, checks it against the SHA-256 the workflow names,
 * registers its rows, and returns the workflow with `sha256` filled in.
 */
export function loadWorkflowData(wf: WorkflowSpec, dir: string, source: string): WorkflowSpec {
  if ('family' in wf || !('file' in wf.data)) return wf;
  const path = join(dir, wf.data.file);
  const bytes = readLimited(path, `${source}: data.file`);
  const sha256 = sha256Hex(bytes);
  if (wf.data.sha256 !== undefined && wf.data.sha256 !== sha256)
    throw new UsageError(
      `${path} is not the dataset ${source} names: its SHA-256 is ${sha256.slice(0, 16)}…, the workflow says ${wf.data.sha256.slice(0, 16)}… (the file changed since; drop data.sha256 to take it as it is)`,
    );
  registerDataBytes(wf.data.file, bytes, path);
  return { ...wf, data: { file: wf.data.file, sha256 } };
}

/** A dataset file's bytes read and registered by their SHA-256 (a sweep's thread gets them so). */
export function registerDataBytes(file: string, bytes: Uint8Array, path = file): string {
  const read = readDataset(new TextDecoder().decode(bytes), file);
  if (!read.ok) throw new UsageError(describeIssues(path, read.issues));
  const sha256 = sha256Hex(bytes);
  registerDataset(sha256, read.value);
  DATA_BYTES.set(sha256, { file, bytes });
  return sha256;
}

/** The bytes of the experiment's dataset file, as read here (for a sweep's threads), or null. */
export function dataBytesOf(exp: Experiment): { file: string; bytes: Uint8Array } | null {
  const data = wholeOf(exp)?.data;
  return data && 'file' in data && data.sha256 ? (DATA_BYTES.get(data.sha256) ?? null) : null;
}

/**
 * The experiment with its task replaced by the workflow in `path`: its agents' model sizes join
 * models.perAgent, and the whole is checked again as a link would be (a dial naming an agent the
 * workflow lacks, say).
 */
export function withWorkflow(exp: Experiment, path: string): Experiment {
  const workflow = readWorkflowFile(path);
  const sizes = Object.fromEntries(
    expandWorkflow(workflow).agents.flatMap((a) => (a.model ? [[a.name, a.model]] : [])),
  );
  const r = validateExperiment({
    ...exp,
    task: 'workflow',
    workflow,
    models: { ...exp.models, perAgent: { ...sizes, ...exp.models.perAgent } },
  });
  if (!r.ok)
    throw new UsageError(
      `${path} with the experiment:\n${r.errors.map((e) => `  ${fieldErrorText(e)}`).join('\n')}`,
    );
  return r.config;
}

/** `--workflow F`: the workflow file read and checked, its dataset registered; refusals name the line. */
export function readWorkflowFile(path: string): WorkflowSpec {
  const text = new TextDecoder().decode(readLimited(path, '--workflow'));
  const read = readWorkflow(text);
  if (!read.ok) throw new UsageError(describeIssues(path, read.issues));
  const wf = loadWorkflowData(read.value, dirname(path), path);
  checkTrainable({ task: 'workflow', workflow: wf }, path, text);
  return wf;
}

/**
 * Compiles the workflow's task now, so a flow or rule problem is refused before anything starts;
 * `text`: the workflow file's, where each refusal's place then gets its line.
 */
export function checkTrainable(
  exp: Pick<Experiment, 'task' | 'workflow'>,
  source: string,
  text?: string,
): void {
  try {
    taskOf(exp);
  } catch (e) {
    if (!(e instanceof WorkflowRefused)) throw e;
    const placed = text === undefined ? e : new WorkflowRefused(placedIssues(text, e.issues), e.workflow);
    throw new UsageError(`${source}: ${placed.message}`, { cause: e });
  }
}

/**
 * Makes sure the rows of an experiment's data file are known in this thread: read already here,
 * or read now from `dir` (a train folder keeps a copy beside its config.json).
 */
export function ensureWorkflowData(exp: Experiment, dir: string | null): void {
  const data = wholeOf(exp)?.data;
  if (!data || !('file' in data) || (data.sha256 && DATA_BYTES.has(data.sha256))) return;
  if (dir === null)
    throw new UsageError(
      `the dataset ${data.file} has not been read: give the workflow file with --workflow`,
    );
  loadWorkflowData(exp.workflow!, dir, join(dir, 'config.json'));
}

/** Copies the experiment's dataset file into a train folder, so its config.json reads back whole. */
export function keepDataBeside(exp: Experiment, dir: string): void {
  const data = wholeOf(exp)?.data;
  if (!data || !('file' in data) || !data.sha256) return;
  const kept = DATA_BYTES.get(data.sha256);
  if (kept && !existsSync(join(dir, kept.file))) writeFileSync(join(dir, kept.file), kept.bytes);
}

// ---- base models ----

/** Where `lab train` keeps the base models it prepared, by key (gitignored). */
export const BASE_CACHE = join('.lab-cache', 'base-models');

/** The cached base models of an experiment's workflow, as user checkpoints; null when none. */
function cachedBase(dir: string): { name: string; bytes: Uint8Array }[] | null {
  if (!existsSync(join(dir, 'manifest.json'))) return null;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ckpt'))
    .map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(dir, f))) }));
}

/**
 * Pretrains an experiment's workflow agents on their demonstrations and writes `out/<model>.ckpt`
 * and `out/manifest.json` (recipe, steps, validation success, per-agent own success).
 */
export async function pretrainWorkflow(
  exp: Experiment,
  out: string,
  o: { seed: number; targetSuccess?: number; maxSteps?: number; note: (line: string) => void },
): Promise<void> {
  const t0 = performance.now();
  const own = wholeOf(exp)?.base.ownSuccess ?? 0;
  if (o.targetSuccess !== undefined && own > 0)
    o.note(
      `--target ${o.targetSuccess} has no effect here: this workflow stops each model once its agents' own validation success reaches base.ownSuccess ${own}; set base.ownSuccess: 0 in the workflow to stop on the team's`,
    );
  // The cache's key names the workflow's own recipe; a changed seed, target or step cap is another.
  const ownRecipe = o.seed === 0 && o.targetSuccess === undefined && o.maxSteps === undefined;
  const r = await pretrainWorkflowBase(exp, {
    seed: o.seed,
    targetSuccess: o.targetSuccess,
    maxSteps: o.maxSteps,
    onProgress: (p) => {
      if (p.success === undefined) return;
      const own = Object.entries(p.own ?? {})
        .map(([a, v]) => `${a} ${v.toFixed(2)}`)
        .join(', ');
      o.note(
        `pretrain step ${p.step}: loss ${p.loss.toFixed(3)}, team validation success ${p.success.toFixed(2)}${own ? ` (own: ${own})` : ''}`,
      );
    },
  });
  // Written whole in a folder of its own and then renamed into place, so another process (a
  // sweep's other shard) never reads a set half written; the first to finish keeps its set.
  const tmp = `${out}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  for (const [id, ckpt] of Object.entries(r.checkpoints))
    writeFileSync(join(tmp, `${id}.ckpt`), encodeCheckpoint(ckpt));
  const manifest = {
    workflow: wholeOf(exp)?.name,
    key: ownRecipe ? baseModelsKey(exp) : null,
    steps: r.steps,
    [`val_avg@${r.k}`]: r.success,
    own: r.own,
    seconds: Math.round((performance.now() - t0) / 1000),
    recipe: r.recipe,
  };
  writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  if (existsSync(out) && readdirSync(out).length > 0 && existsSync(join(out, 'manifest.json')))
    rmSync(tmp, { recursive: true });
  else {
    mkdirSync(dirname(out), { recursive: true });
    if (existsSync(out)) rmSync(out, { recursive: true });
    renameSync(tmp, out);
  }
  const short = r.reached
    ? ''
    : `, short of the recipe’s ${recipeGoal(wholeOf(exp)!)} (an agent that never succeeds gives RL nothing to learn from)`;
  o.note(`base models: ${r.steps} steps, team validation success ${r.success.toFixed(2)}${short} → ${out}`);
}

/**
 * The base models of a workflow experiment that has no shipped ones: from the cache, or
 * pretrained now (and cached). Null for an experiment that is not such a workflow.
 */
export async function workflowBaseFiles(
  exp: Experiment,
  note: (line: string) => void,
): Promise<{ name: string; bytes: Uint8Array }[] | null> {
  const wf = wholeOf(exp);
  if (!wf || usesShippedBase(wf)) return null;
  const dir = join(BASE_CACHE, baseModelsKey(exp));
  const cached = cachedBase(dir);
  if (cached) {
    note(`base models: ${dir} (prepared earlier for this workflow)`);
    return cached;
  }
  note(`base models: none yet for workflow ${wf.name}; pretraining them first (they are kept in ${dir})`);
  await pretrainWorkflow(exp, dir, { seed: 0, note });
  return cachedBase(dir);
}

/** --init's files: a folder given (lab pretrain --out DIR) stands for every .ckpt in it. */
export function initFiles(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p) || !statSync(p).isDirectory()) return [p];
    const files = readdirSync(p).filter((f) => f.endsWith('.ckpt'));
    if (!files.length)
      throw new UsageError(`--init: ${p} is a folder with no checkpoint files (.ckpt) in it`);
    return files.map((f) => join(p, f));
  });
}
