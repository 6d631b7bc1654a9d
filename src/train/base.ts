/**
 * Which starting weights each model of an experiment gets. Shipped base models live at
 * `models/<task>/<assignment>/<id>.ckpt` (written by `npm run pretrain`), and a model of another
 * size at `<id>-<size>.ckpt` where one is shipped; a model whose size has no shipped checkpoint
 * starts from a seeded fresh init instead, and the note says so. I/O comes in as `read`, so Node (files) and the browser (fetch) share this.
 */
import type { Experiment } from '../core/config';
import { decodeCheckpoint, unverifiedNote, verifyCheckpoint, type Checkpoint } from '../model/checkpoint';
import { gptConfig } from '../core/gpt-config';
import { MAX_CONTEXT } from '../core/vocab';
import { modelSlots } from '../sizing/slots';
import { taskOf } from '../tasks/registry';
import { renameRole } from '../core/renamed-roles';

/** Reads a file under models/ (e.g. `search/per-agent/verifier.ckpt`), or null if it is not there. */
type ReadModelFile = (path: string) => Promise<Uint8Array | null>;

export interface BaseModels {
  checkpoints: Record<string, Checkpoint>;
  /** Per model id: `shipped base (…)` or why it starts fresh. */
  notes: Record<string, string>;
}

/** A user's checkpoint file refused (unreadable, or fitting no model): a message for the user, naming the file. */
export class CheckpointRefused extends Error {}

/** A checkpoint file a user supplied (uploaded, or named on a command line). */
export interface UserCheckpoint {
  name: string;
  bytes: Uint8Array;
}

/**
 * Starting weights per model: user checkpoints first (each must fit one model of the experiment:
 * its manifest's agents, or a file name ending in `<model id>.ckpt`, and the model's exact
 * architecture), then the shipped base models, then a seeded fresh init.
 */
export async function loadBase(
  exp: Experiment,
  read: ReadModelFile,
  user: readonly UserCheckpoint[] = [],
): Promise<BaseModels> {
  const checkpoints: Record<string, Checkpoint> = {};
  const notes: Record<string, string> = {};
  const slots = modelSlots(exp);
  const baseTask = taskOf(exp).variantOf ?? exp.task; // a variant starts from its task's models
  const fileOf: Record<string, string> = {}; // model id → the user file it starts from
  for (const file of user) {
    let ckpt: Checkpoint;
    try {
      ckpt = decodeCheckpoint(file.bytes);
    } catch (e) {
      throw new CheckpointRefused(`${file.name}: ${(e as Error).message}`, { cause: e });
    }
    const agents = renamedAgents((ckpt.manifest.notes as { agents?: unknown }).agents, exp);
    const named = renamedAgents(
      [
        file.name
          .replace(/\.ckpt$/, '')
          .split(/[-_ ]/)
          .at(-1),
      ],
      exp,
    );
    const slot = slots.find((s) =>
      Array.isArray(agents)
        ? agents.length === s.agents.length && s.agents.every((a) => agents.includes(a))
        : (named as unknown[])[0] === s.id,
    );
    if (!slot)
      throw new CheckpointRefused(
        `${file.name} fits no model of this experiment (models: ${slots.map((s) => s.id).join(', ')})`,
      );
    // The page's "Download checkpoints" gives every run's files; each run starts from one per model.
    if (checkpoints[slot.id]) {
      throw new CheckpointRefused(
        `${fileOf[slot.id]} and ${file.name} are both checkpoints for model ${slot.id}: every run starts from one checkpoint per model, so give one run's files`,
      );
    }
    try {
      verifyCheckpoint(ckpt, { config: gptConfig(slot.preset, { contextLength: MAX_CONTEXT }) });
    } catch (e) {
      throw new CheckpointRefused(
        `${file.name} does not fit model ${slot.id} (${slot.preset}): ${(e as Error).message}`,
        { cause: e },
      );
    }
    checkpoints[slot.id] = ckpt;
    fileOf[slot.id] = file.name;
    const said = [unverifiedNote(ckpt.manifest), ckpt.migrated ?? null].filter(Boolean);
    notes[slot.id] = `checkpoint file ${file.name}${said.length ? ` (${said.join('; ')})` : ''}`;
  }
  for (const slot of slots) {
    if (checkpoints[slot.id]) continue;
    if (exp.models.base === 'scratch') {
      notes[slot.id] = 'fresh seeded init (models.base = scratch)';
      continue;
    }
    // A model of another size than the set's (heterogeneous) has its own file, <id>-<size>.ckpt.
    // A model shared by a subset of the agents (models.ids) starts from the task's shared model,
    // which knows every role token.
    const subset = exp.models.assignment === 'per-agent' && slot.agents.length > 1;
    const dir = `${baseTask}/${subset ? 'shared' : exp.models.assignment}`;
    // models.from: another agent's file (a team of two coders); otherwise the model's own.
    const file = slot.from ?? slot.id;
    const sized = `${dir}/${file}-${slot.preset}.ckpt`;
    const sizedBytes = !subset && slot.preset !== exp.models.preset ? await read(sized) : null;
    // A variant may ship its own model of a slot, under models/<variant>/ (search-routing's
    // router, retrained to err cautiously); its task's models serve every other slot.
    const own =
      baseTask !== exp.task && !subset && !sizedBytes
        ? `${exp.task}/${exp.models.assignment}/${file}.ckpt`
        : null;
    const ownBytes = own ? await read(own) : null;
    const path =
      own && ownBytes ? own : sizedBytes ? sized : subset ? `${dir}/shared.ckpt` : `${dir}/${file}.ckpt`;
    const bytes = ownBytes ?? sizedBytes ?? (await read(path));
    if (!bytes) {
      // A workflow's own agents ship no base models: they are prepared for it, not pretrained per task.
      const remedy =
        exp.task === 'workflow'
          ? 'prepare its base models (Prepare base models in the page; lab train prepares them itself)'
          : `run \`npm run pretrain -- --task ${baseTask}\``;
      throw new Error(`no shipped base model models/${path}: ${remedy}, or set models.base=scratch`);
    }
    let ckpt: Checkpoint;
    try {
      ckpt = decodeCheckpoint(bytes);
    } catch (e) {
      throw new Error(`models/${path}: ${(e as Error).message}`, { cause: e });
    }
    if (ckpt.manifest.preset !== slot.preset) {
      notes[slot.id] = `fresh seeded init: no shipped ${slot.preset} base (shipped: ${ckpt.manifest.preset})`;
      continue;
    }
    checkpoints[slot.id] = ckpt;
    const v = (ckpt.manifest.notes as { validation?: { avg?: number } }).validation;
    const unverified = unverifiedNote(ckpt.manifest);
    const migrated = ckpt.migrated ?? null;
    const said = [
      ...(typeof v?.avg === 'number' ? [`val success ${v.avg.toFixed(2)}`] : []),
      ...(unverified ? [unverified] : []),
      ...(migrated ? [migrated] : []),
    ];
    const whose = slot.from ? ` of ${slot.from}` : '';
    notes[slot.id] = `shipped base${whose}${said.length ? ` (${said.join('; ')})` : ''}`;
  }
  return { checkpoints, notes };
}

/** A checkpoint's `agents` note in today's role names (plan's `solver` is `planner` now). */
function renamedAgents(agents: unknown, exp: Experiment): unknown {
  if (!Array.isArray(agents)) return agents;
  const task = taskOf(exp);
  const base = task.variantOf ?? exp.task; // a variant's checkpoints carry its base task's roles
  return agents.map((a) => (typeof a === 'string' ? renameRole(a, base) : a));
}
