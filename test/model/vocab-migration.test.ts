/**
 * Roles are names, not token positions: a role added to the registry takes a free slot of the
 * reserved block, so no token id moves; and a checkpoint of the 73-id vocabulary before the block
 * loads migrated (plan's planner reading as its old `solver` token did), as the shipped ones were
 * migrated on disk, and trains.
 */
import * as tf from '@tensorflow/tfjs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADDED_ROLES,
  CHARSET,
  ROLE_BLOCK,
  ROLES,
  roleToken,
  roleTokensOf,
  SPECIAL,
  VOCAB,
} from '../../src/core/vocab';
import { Prng } from '../../src/core/prng';
import {
  decodeCheckpoint,
  encodeCheckpoint,
  loadCheckpoint,
  type CheckpointManifest,
} from '../../src/model/checkpoint';
import { GPT } from '../../src/model/gpt';
import { packRows, toTensors, disposeBatch } from '../../src/model/logprobs';
import { AdamW } from '../../src/model/optim';
import { tokenizer } from '../../src/model/tokenizer';
import { supervisedStep } from '../../src/model/warmstart';
import { planTask } from '../../src/tasks/plan';
import { earlier, shipped } from './earlier-vocab';
import { useBackend } from './helpers';

beforeAll(() => useBackend('cpu'));

function split(m: CheckpointManifest, weights: ArrayBuffer): Float32Array[] {
  let at = 0;
  return m.params.map((p) => {
    const n = p.shape.reduce((a, d) => a * d, 1);
    at += n;
    return new Float32Array(weights, 4 * (at - n), n);
  });
}

describe('role tokens', () => {
  it('a role added to the registry leaves every token id unchanged (property over VOCAB)', () => {
    const old = earlier('sync/per-agent/alice.ckpt').manifest;
    expect(old.hash).toBe('f3f0fe1caeef77ec'); // the file as it shipped before the role block
    // Today's vocabulary is the shipped one with the role block after it.
    expect(VOCAB.slice(0, 73)).toEqual(old.vocab);
    expect(VOCAB).toHaveLength(73 + ROLE_BLOCK);
    const ids = new Map(VOCAB.map((ch, i) => [ch, i]));
    const free = ROLE_BLOCK - ADDED_ROLES.length;
    const newRoles = fc.uniqueArray(
      fc.stringMatching(/^[a-z]{3,12}$/).filter((r) => !(ROLES as readonly string[]).includes(r)),
      { minLength: 1, maxLength: free },
    );
    fc.assert(
      fc.property(newRoles, (added) => {
        const tokens = roleTokensOf([...ADDED_ROLES, ...added]);
        // Every existing role keeps its token, hence its id; VOCAB itself does not depend on the roles.
        for (const r of ROLES) expect(tokens.get(r)).toBe(roleToken(r));
        // A new role's token is one of the block's ids, after CHARSET, distinct from every other.
        const newIds = added.map((r) => ids.get(tokens.get(r)!)!);
        for (const id of newIds) expect(id).toBeGreaterThanOrEqual(73);
        expect(new Set([...newIds, ...ROLES.map((r) => ids.get(roleToken(r)))]).size).toBe(
          newIds.length + ROLES.length,
        );
      }),
      { numRuns: 200 },
    );
    // Characters and the first roles sit where the shipped checkpoints have them.
    expect(tokenizer.idOf('a')).toBe(14);
    expect(tokenizer.idOf(CHARSET.at(-1)!)).toBe(72);
    expect(tokenizer.idOf(roleToken('solver'))).toBe(8);
    expect(tokenizer.idOf(roleToken('planner'))).toBe(73);
    expect(tokenizer.idOf(roleToken('executor'))).toBe(74);
    const tooMany = Array.from({ length: free + 1 }, (_, k) => `role${k}`);
    expect(() => roleTokensOf([...ADDED_ROLES, ...tooMany])).toThrow(
      /do not fit the 16 reserved role slots: widen ROLE_BLOCK/,
    );
  });
});

describe('checkpoints of the 73-id vocabulary', () => {
  it('load migrated, and the migrated plan model computes what the old one did under its old role tokens', () => {
    const path = 'plan/shared/shared.ckpt';
    const { bytes, manifest: oldM, weights: payload } = earlier(path);
    expect(oldM.hash).toBe('107ca872c63d3e49'); // as shipped before the role block
    const ckpt = decodeCheckpoint(bytes);
    expect(ckpt.migrated).toBe('vocabulary migrated on load, 73 → 89 ids');
    expect(ckpt.manifest.vocab).toEqual(VOCAB);
    expect(ckpt.manifest.config.vocabSize).toBe(89);
    // Migrating on load gives what scripts/rehash-models.ts shipped, to the hash.
    const onDisk = decodeCheckpoint(shipped(path));
    expect(onDisk.migrated).toBeUndefined();
    expect(ckpt.manifest.hash).toBe(onDisk.manifest.hash);
    expect(ckpt.manifest.notes.vocabMigrated).toBe(
      '73 → 89 ids: wte rows 73–88 added, planner (73) from solver (8), executor (74) from coder (9), the rest from PAD (0)',
    );
    // The migrated checkpoint is signed anew: it round-trips without migrating again.
    const again = decodeCheckpoint(encodeCheckpoint(ckpt));
    expect(again.manifest.hash).toBe(ckpt.manifest.hash);
    expect(again.migrated).toBeUndefined();

    const before = GPT.fromValues(oldM.config, split(oldM, payload));
    const after = loadCheckpoint(ckpt);
    try {
      // The planner's and the executor's first prompts on one instance, in both role namings.
      let state = planTask.init(planTask.generate(new Prng(3)));
      const call = planTask.next(state)!;
      state = planTask.step(state, call.agent, 'rr').state;
      const prompts = [call.prompt, planTask.next(state)!.prompt];
      expect(prompts.map((p) => p.at(-1))).toEqual([roleToken('planner'), roleToken('executor')]);
      const asOld = (p: string) =>
        p
          .replace(roleToken('planner'), roleToken('solver'))
          .replace(roleToken('executor'), roleToken('coder'));
      for (const prompt of prompts) {
        const ids = tokenizer.encode(prompt);
        const oldIds = tokenizer.encode(asOld(prompt));
        expect(ids.at(-1)).toBeGreaterThanOrEqual(73);
        const [a, b] = tf.tidy(() => [
          before
            .logits(tf.tensor2d([oldIds], [1, oldIds.length], 'int32'))
            .arraySync()[0]
            .at(-1)!,
          after
            .logits(tf.tensor2d([ids], [1, ids.length], 'int32'))
            .arraySync()[0]
            .at(-1)!,
        ]);
        expect(b).toHaveLength(89);
        for (let i = 0; i < 73; i++) expect(b[i]).toBeCloseTo(a[i], 5);
        expect(b[73]).toBeCloseTo(a[8], 5); // planner's logit is solver's
        expect(b[88]).toBeCloseTo(a[0], 5); // a free slot's is PAD's
      }
    } finally {
      before.dispose();
      after.dispose();
    }
  });

  it("the shipped per-agent plan planner loads under its new name and trains a step on the demonstrator's turns", async () => {
    expect(earlier('plan/per-agent/planner.ckpt').manifest.hash).toBe('222800ed0eccf5ec'); // solver.ckpt as shipped
    const model = loadCheckpoint(decodeCheckpoint(shipped('plan/per-agent/planner.ckpt')));
    const opt = new AdamW(model, { lr: 1e-3 });
    const rng = new Prng(5);
    const rows = Array.from({ length: 8 }, () => {
      const state = planTask.init(planTask.generate(rng));
      const call = planTask.next(state)!;
      return {
        prompt: tokenizer.encode(SPECIAL.BOS + call.prompt),
        response: tokenizer.encode(planTask.demonstrate(state, 'planner', rng, 0) + SPECIAL.EOS),
      };
    });
    const batch = toTensors(
      packRows(rows, { contextLength: model.config.contextLength, vocabSize: 89, pad: tokenizer.pad }),
    );
    try {
      const wte0 = await model.variables[0].data();
      const first = await supervisedStep(model, opt, batch);
      const second = await supervisedStep(model, opt, batch);
      // A base at validation success 0.45 already predicts its demonstrator's moves well: far below log 89 = 4.49.
      expect(first.loss).toBeLessThan(1.5);
      expect(second.loss).toBeLessThan(first.loss);
      const wte1 = await model.variables[0].data();
      expect(wte1.some((v, i) => v !== wte0[i])).toBe(true);
    } finally {
      disposeBatch(batch);
      opt.dispose();
      model.dispose();
    }
  });
});
