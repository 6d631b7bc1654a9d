/**
 * A run state saved by an earlier build, read as today's: its models' checkpoints migrated to
 * today's vocabulary (src/model/vocab-migration.ts; AdamW moments of the new rows are zeros), and
 * its model ids and agents in today's role names (plan's `solver` is `planner`,
 * src/core/renamed-roles.ts), so `--resume` and the page go on from it.
 */
import { renameRole } from '../core/renamed-roles';
import { VOCAB } from '../core/vocab';
import { migrateCheckpoint } from '../model/checkpoint';
import { growMoments, isEarlierVocab } from '../model/vocab-migration';
import type { ModelParts } from './run-state';

/** Whether any model of a state's manifest was saved with an earlier vocabulary. */
export function hasEarlierVocab(models: readonly { weights: { vocab: unknown } }[]): boolean {
  return models.some((m) => isEarlierVocab(m.weights.vocab));
}

/** `parts` of a state of `task` in today's vocabulary and role names (unchanged where they are). */
export function migrateParts(parts: ModelParts[], task: string): ModelParts[] {
  return parts.map((p) => {
    const role = (name: string) => renameRole(name, task);
    const oldV = p.checkpoint.manifest.vocab.length;
    const checkpoint = migrateCheckpoint(p.checkpoint);
    const ref = p.ref && migrateCheckpoint(p.ref);
    const C = p.checkpoint.manifest.config.dModel;
    const grow = (values: Float32Array) =>
      checkpoint.migrated ? growMoments(values, oldV, VOCAB.length, C) : values;
    return {
      state: {
        ...p.state,
        id: role(p.state.id),
        agents: p.state.agents.map(role),
        weights: checkpoint.manifest,
        ref: ref?.manifest ?? null,
      },
      checkpoint,
      moments: { ...p.moments, m: grow(p.moments.m), v: grow(p.moments.v) },
      ref,
    };
  });
}
