/**
 * A run state saved by an earlier build, read as today's: its models' checkpoints migrated to
 * today's vocabulary (src/model/vocab-migration.ts; AdamW moments of the new rows are zeros), and
 * its model ids and agents in today's role names (plan's `solver` is `planner`,
 * src/core/renamed-roles.ts), so `--resume` and the page go on from it.
 */
import { renameRole } from '../core/renamed-roles';
import { VOCAB } from '../core/vocab';
import { migrateCheckpoint, type Checkpoint, type CheckpointManifest } from '../model/checkpoint';
import type { AdamWState } from '../model/optim';
import { growMoments, isEarlierVocab } from '../model/vocab-migration';

/** Whether any model of a state's manifest was saved with an earlier vocabulary. */
export function hasEarlierVocab(models: readonly { weights: { vocab: unknown } }[]): boolean {
  return models.some((m) => isEarlierVocab(m.weights?.vocab));
}

/** One model's part of a run state (run-state.ts's ModelParts, named here by shape: no import back). */
interface Part {
  state: { id: string; agents: string[]; weights: CheckpointManifest; ref: CheckpointManifest | null };
  checkpoint: Checkpoint;
  moments: AdamWState;
  ref: Checkpoint | null;
}

/**
 * `parts` of a state of `task` in today's vocabulary and role names, unchanged where they are.
 * Called before the parts are verified: a part that is not an earlier vocabulary's is passed on
 * as it is, for verifyCheckpoint to judge.
 */
export function migrateParts<P extends Part>(parts: P[], task: string): P[] {
  // Unverified yet: a name that is not a string is passed on for verifyRunState to refuse.
  const role = <T>(name: T): T => (typeof name === 'string' ? (renameRole(name, task) as T) : name);
  return parts.map((p) => {
    const renamed = {
      ...p.state,
      id: role(p.state.id),
      agents: Array.isArray(p.state.agents) ? p.state.agents.map(role) : p.state.agents,
    };
    if (!isEarlierVocab(p.checkpoint.manifest?.vocab)) return { ...p, state: renamed };
    const oldV = p.checkpoint.manifest.vocab.length;
    const checkpoint = migrateCheckpoint(p.checkpoint);
    const ref = p.ref && migrateCheckpoint(p.ref);
    const C = p.checkpoint.manifest.config.dModel;
    const grow = (values: Float32Array) => growMoments(values, oldV, VOCAB.length, C);
    return {
      ...p,
      state: { ...renamed, weights: checkpoint.manifest, ref: ref?.manifest ?? null },
      checkpoint,
      moments: { ...p.moments, m: grow(p.moments.m), v: grow(p.moments.v) },
      ref,
    };
  });
}
