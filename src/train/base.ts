/**
 * Which starting weights each model of an experiment gets. Shipped base models live at
 * `models/<task>/<assignment>/<id>.ckpt` (written by `npm run pretrain`); a model whose preset
 * differs from the shipped one (heterogeneous sizes) starts from a seeded fresh init instead, and
 * the note says so. I/O comes in as `read`, so Node (files) and the browser (fetch) share this.
 */
import type { Experiment } from '../core/config';
import { decodeCheckpoint, type Checkpoint } from '../model/checkpoint';
import { modelSlots } from './models';

/** Reads a file under models/ (e.g. `search/per-agent/verifier.ckpt`), or null if it is not there. */
export type ReadModelFile = (path: string) => Promise<Uint8Array | null>;

export interface BaseModels {
  checkpoints: Record<string, Checkpoint>;
  /** Per model id: `shipped base (…)` or why it starts fresh. */
  notes: Record<string, string>;
}

export async function loadBase(exp: Experiment, read: ReadModelFile): Promise<BaseModels> {
  const checkpoints: Record<string, Checkpoint> = {};
  const notes: Record<string, string> = {};
  for (const slot of modelSlots(exp)) {
    if (exp.models.base === 'scratch') {
      notes[slot.id] = 'fresh seeded init (models.base = scratch)';
      continue;
    }
    const path = `${exp.task}/${exp.models.assignment}/${slot.id}.ckpt`;
    const bytes = await read(path);
    if (!bytes) {
      throw new Error(`no shipped base model models/${path}: run \`npm run pretrain -- --task ${exp.task}\`, or set models.base=scratch`);
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
    notes[slot.id] = `shipped base${v?.avg !== undefined ? ` (val success ${v.avg.toFixed(2)})` : ''}`;
  }
  return { checkpoints, notes };
}
