/**
 * Fuzzed signed files (docs/fuzz.md#checkpoints-and-run-states): a real small checkpoint's and run
 * state's bytes mutated, or their manifests edited as JSON and framed again with the hash kept (an
 * edit) or recomputed (a forgery). No mutation or edit is accepted; nothing crashes or pollutes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../src/model/checkpoint';
import { decodeRunState } from '../../src/train/run-state';
import { fuzz, RUNS } from './harness';
import {
  checkpointFile,
  signedFileCases,
  signedOutcome,
  tinyCheckpoint,
  tinyRunStateFile,
} from './signed-files';

const files: Record<string, Uint8Array> = {};
beforeAll(async () => {
  const ckpt = await tinyCheckpoint();
  files.checkpoints = checkpointFile(ckpt);
  files['run states'] = tinyRunStateFile(ckpt);
});

const suites = [
  { suite: 'checkpoints', magic: 'AGWGPT01', decode: decodeCheckpoint },
  { suite: 'run states', magic: 'AGWRUN01', decode: decodeRunState },
];

describe('fuzzed signed files', () => {
  it.each(suites)(
    `$suite: refuses every one of ${RUNS} mutated or edited files`,
    ({ suite, magic, decode }) => {
      const file = files[suite];
      expect(() => decode(file)).not.toThrow();
      const r = fuzz(
        suite,
        signedFileCases(magic, file),
        (c) => signedOutcome(file, c, decode),
        (c) => c.what,
        ['refused', 'accepted (forged)'], // a signed file accepts no mutation: forged ones are re-signed
      );
      expect(r.counts.accepted).toBeUndefined();
      expect(r.counts.refused).toBeGreaterThan(RUNS * 0.9);
    },
  );
});
