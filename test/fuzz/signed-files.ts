/** Small real signed files for the fuzz suites: a checkpoint and a run state of a tiny model. */
import * as tf from '@tensorflow/tfjs';
import fc from 'fast-check';
import { ExperimentSchema } from '../../src/core/config';
import { resolveRun } from '../../src/core/config-run';
import { LIVE_PARAMS, liveValue } from '../../src/core/live-params';
import { checkpointOf, encodeCheckpoint, type Checkpoint } from '../../src/model/checkpoint';
import { GPT } from '../../src/model/gpt';
import { gptConfig } from '../../src/core/gpt-config';
import { contentHash, decodeFramed, encodeFramedText } from '../../src/core/signed-file';
import { encodeRunState, packRunState } from '../../src/train/run-state';
import { jsonEdit, mutatedBytes, outcomeOf } from './harness';

/** The smallest model the checkpoint format describes in full: one layer, one head, dModel 4. */
export async function tinyCheckpoint(): Promise<Checkpoint> {
  await tf.setBackend('cpu');
  const model = GPT.create(
    gptConfig('nano', { contextLength: 4, dModel: 4, nHeads: 1, nLayers: 1, dMlp: 4 }),
    7,
  );
  try {
    const flat = tf.tidy(() => tf.concat(model.variables.map((v) => tf.reshape(v, [-1]))));
    const values = (await flat.data()) as Float32Array;
    flat.dispose();
    return checkpointOf(model, values.slice(), {
      preset: 'nano',
      notes: { validation: { avg: 0.45 }, agents: ['alice'] },
    });
  } finally {
    model.dispose();
  }
}

export const checkpointFile = (c: Checkpoint): Uint8Array => encodeCheckpoint(c);

/** A run state of the sync experiment at step 3 holding one tiny model, with its moments and a reference. */
export function tinyRunStateFile(ckpt: Checkpoint): Uint8Array {
  const exp = ExperimentSchema.parse({ task: 'sync', models: { preset: 'nano', base: 'scratch' } });
  const n = ckpt.weights.byteLength / 4;
  const settings = resolveRun(exp, exp.runs[0]);
  const state = packRunState(
    {
      experiment: exp,
      runIndex: 0,
      label: exp.runs[0].label,
      seed: 0,
      step: 3,
      live: Object.fromEntries(LIVE_PARAMS.map((p) => [p, liveValue(settings, p)])) as Record<
        (typeof LIVE_PARAMS)[number],
        number
      >,
      elapsedS: 1.5,
      notes: { backend: 'cpu' },
    },
    [
      {
        id: 'alice',
        preset: 'nano',
        agents: ['alice'],
        checkpoint: ckpt,
        moments: { step: 3, m: new Float32Array(n).fill(1e-3), v: new Float32Array(n).fill(1e-6) },
        ref: ckpt,
      },
    ],
  );
  return encodeRunState(state);
}

/** One fuzz case of a signed file: its bytes, and whether its hash was recomputed after an edit (a forgery). */
export interface SignedCase {
  bytes: Uint8Array;
  forged: boolean;
  what: string;
}

/**
 * Cases for a signed file: its bytes mutated, or its manifest edited as JSON and framed again,
 * with the hash kept (an edit) or recomputed over the edit (a forgery).
 */
export function signedFileCases(magic: string, file: Uint8Array): fc.Arbitrary<SignedCase> {
  const { manifest, payload } = decodeFramed(magic, 'file', file);
  return fc.oneof(
    mutatedBytes(file).map((bytes) => ({ bytes, forged: false, what: `${bytes.length} mutated bytes` })),
    fc.tuple(jsonEdit(manifest), fc.boolean()).map(([json, forged]) => {
      let text = json;
      if (forged) {
        const edited = JSON.parse(json) as unknown;
        if (edited && typeof edited === 'object')
          (edited as { hash: string }).hash = contentHash(edited, payload);
        text = JSON.stringify(edited);
      }
      const bytes = encodeFramedText(magic, text, payload);
      return { bytes, forged, what: `${forged ? 'forged' : 'edited'} ${json.slice(0, 120)}` };
    }),
  );
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** A case's outcome: a mutation or edit must be refused; a forgery may pass, but not crash. */
export function signedOutcome(file: Uint8Array, c: SignedCase, decode: (b: Uint8Array) => unknown): string {
  if (same(c.bytes, file)) return 'unchanged';
  const outcome = outcomeOf(() => decode(c.bytes));
  if (outcome === 'accepted' && !c.forged) return `accepted a changed file: ${c.what}`;
  return outcome === 'accepted' ? 'accepted (forged)' : outcome;
}
