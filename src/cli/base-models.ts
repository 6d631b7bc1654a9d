/**
 * The shipped base checkpoints on disk: `models/<task>/<assignment>/<id>.ckpt`, written by
 * `npm run pretrain`. A model whose preset differs from the shipped one (heterogeneous sizes)
 * starts from a seeded fresh init instead, and the caller is told which.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Experiment } from '../core/config';
import type { Checkpoint } from '../model/checkpoint';
import { readCheckpointFile } from '../model/checkpoint-node';
import { modelSlots } from '../train/models';

export async function loadShippedBase(
  exp: Experiment,
  root = 'models',
): Promise<{ checkpoints: Record<string, Checkpoint>; notices: string[] }> {
  const checkpoints: Record<string, Checkpoint> = {};
  const notices: string[] = [];
  if (exp.models.base === 'scratch') return { checkpoints, notices: ['models start from a seeded fresh init (models.base = scratch)'] };
  for (const slot of modelSlots(exp)) {
    const path = join(root, exp.task, exp.models.assignment, `${slot.id}.ckpt`);
    if (!existsSync(path)) {
      throw new Error(`no shipped base model at ${path}: run \`npm run pretrain -- --task ${exp.task}\`, or set models.base=scratch`);
    }
    const ckpt = await readCheckpointFile(path);
    if (ckpt.manifest.preset !== slot.preset) {
      notices.push(`${slot.id}: preset ${slot.preset} has no shipped base (shipped: ${ckpt.manifest.preset}); fresh init`);
      continue;
    }
    checkpoints[slot.id] = ckpt;
  }
  return { checkpoints, notices };
}
