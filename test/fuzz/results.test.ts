/**
 * Fuzzed result files (docs/fuzz.md#result-files): a real small result (two runs × two seeds, 3
 * steps, Findings, What differs, a rollout sample) with its compressed bytes mutated; its body
 * edited as JSON or as text and framed again with a correct hash, as a forger would; hostile
 * bodies (deep nesting, prototype keys spelled plainly or with escapes, numbers past float64,
 * giant lists, a frame too short); headers of other versions and kinds; random bytes and random
 * text gzipped. readResult must return or throw a ResultRefused with a message, and what it
 * returns must hold frames that fit their key tables. The rollout samples `lab train` writes
 * (rollouts/<i>-<label>.json, which `lab bundle` reads) are fuzzed the same way as JSON text.
 */
import fc from 'fast-check';
import { gunzipSync, gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readResult, readResultNative, writeResult } from '../../src/report/result-file';
import { parseRolloutSample, ResultRefused } from '../../src/report/result-format';
import type { Result } from '../../src/report/result-format';
import { framed, smallBody } from '../report/result-fixture';
import { crashOf, fuzz, hostileValue, jsonEdit, mutatedBytes, RUNS, SEED } from './harness';

const good = writeResult(smallBody(true));
const inflated = new TextDecoder().decode(gunzipSync(good));
const bodyText = inflated.slice(inflated.indexOf('\n') + 1);
const body = JSON.parse(bodyText) as Record<string, unknown>;
const withRun = (run: Record<string, unknown>) =>
  JSON.stringify({ ...body, runs: [{ ...(body.runs as object[])[0], ...run }] });

/** Body text with `ins` put at a random place (and `cut` characters after it dropped). */
const textEdit = (ins: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.nat(bodyText.length), ins, fc.nat(8))
    .map(([at, s, cut]) => bodyText.slice(0, at) + s + bodyText.slice(at + cut));

const hostileBody = fc.oneof(
  fc.nat({ max: 200 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.nat({ max: 200 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  textEdit(
    fc.constantFrom(
      '"__proto__":{"polluted":1},',
      '"constructor":1,',
      '"__pro\\u0074o__":1,',
      '"prototype":{},',
    ),
  ),
  textEdit(fc.constantFrom('1e999', '-1e999', '1e-400', 'NaN', 'Infinity', '9007199254740993', '-0')),
  // Lists one item past their bounds, of items cheap to write (each must be refused at its length).
  fc.constantFrom(
    withRun({ frames: new Array(100_001).fill(0) }),
    withRun({ frames: [[0, 1]] }),
    withRun({ keys: new Array(4_097).fill('k') }),
    withRun({ markers: Array.from({ length: 1_000 }, () => ({ step: -1 })) }),
    withRun({ label: 'x'.repeat(1_000) }),
    JSON.stringify({ ...body, runs: new Array(10_001).fill(0) }),
  ),
  hostileValue.map((v) => JSON.stringify(v) ?? ''),
);

const header = fc.record({
  format: fc.oneof(fc.constant('agentwise-lab-result'), fc.string({ maxLength: 8 })),
  version: fc.oneof(fc.constant(1), hostileValue),
  sha256: fc.oneof(fc.constant('0'.repeat(64)), hostileValue),
  bytes: fc.oneof(fc.nat(), hostileValue),
});

const file = fc.oneof(
  mutatedBytes(good),
  jsonEdit(body).map((t) => framed(t)),
  textEdit(fc.string({ maxLength: 4 })).map((t) => framed(t)),
  hostileBody.map((t) => framed(t)),
  fc
    .tuple(header, fc.string({ maxLength: 40 }))
    .map(([h, b]) => gzipSync(new TextEncoder().encode(`${JSON.stringify(h)}\n${b}`))),
  fc.uint8Array({ maxLength: 300 }),
  fc.string({ maxLength: 200 }).map((s) => gzipSync(new TextEncoder().encode(s))),
  // served inflated (Content-Encoding: gzip): the text itself, mutated or with its body edited
  mutatedBytes(gunzipSync(good)),
  jsonEdit(body).map((t) => gunzipSync(framed(t))),
  fc.string({ maxLength: 200 }).map((s) => new TextEncoder().encode(`{${s}`)),
);

describe('fuzzed result files', () => {
  it(`reads or refuses each of ${RUNS} result files with a reason, never crashing`, () => {
    fuzz(
      'result files',
      file,
      (bytes) => {
        try {
          const { body: read } = readResult(bytes);
          for (const r of read.runs)
            if (r.frames.some((f) => !(f instanceof Float64Array) || f.length !== r.keys.length))
              return `run ${r.label}: a frame that does not fit its keys`;
          return 'accepted';
        } catch (e) {
          const crash = crashOf(e);
          if (crash) return crash;
          return e instanceof ResultRefused
            ? 'refused'
            : `threw ${(e as Error).name}: ${(e as Error).message}`;
        }
      },
      (bytes) => `${bytes.length} bytes`,
    );
  });
});

/** What a reader made of a file: what it opened (frames as their bytes, NaN's bits too), or its refusal's words. */
async function verdict(read: () => Result | Promise<Result>): Promise<unknown> {
  try {
    const { body, sha256 } = await read();
    const runs = body.runs.map((r) => ({ ...r, frames: r.frames.map((f) => Buffer.from(f.buffer)) }));
    return { sha256, body: { ...body, runs } };
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

describe("the result worker's reader (the platform's gzip and SHA-256) on the same fuzzed files", () => {
  // A fifth of the cases: each is read three times (this reader, then readResult for its refusal, and readResult).
  const runs = Math.ceil(RUNS / 5);
  it(`opens what readResult opens, to the bit, and refuses in its words, on ${runs} files`, async () => {
    const files = fc.sample(file, { seed: SEED, numRuns: runs });
    let opened = 0;
    for (const bytes of files) {
      const sync = await verdict(() => readResult(bytes));
      expect(await verdict(() => readResultNative(bytes)), `${bytes.length} bytes`).toEqual(sync);
      if (typeof sync !== 'string') opened++;
    }
    console.log(
      `fuzz result files, readResultNative: ${files.length} cases (seed ${SEED}): ${opened} opened, ${files.length - opened} refused, each as readResult did`,
    );
    expect(opened).toBeGreaterThan(0);
  });
});

/** A real rollout sample, as `lab train` writes one and `lab bundle` reads it. */
const sampleText = JSON.stringify(smallBody(true).runs[0].rollouts[0]);
const sampleFile = fc.oneof(
  jsonEdit(JSON.parse(sampleText)),
  fc
    .tuple(fc.nat(sampleText.length), fc.string({ maxLength: 4 }), fc.nat(8))
    .map(([at, ins, cut]) => sampleText.slice(0, at) + ins + sampleText.slice(at + cut)),
  hostileValue.map((v) => JSON.stringify(v) ?? ''),
  fc.nat({ max: 200 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.string({ maxLength: 200 }),
);

describe('fuzzed rollout samples', () => {
  it(`reads or refuses each of ${RUNS} rollout sample files, never crashing`, () => {
    fuzz(
      'rollout samples',
      sampleFile,
      (text) => {
        try {
          const sample = parseRolloutSample(text);
          if (!sample) return 'refused';
          return Array.isArray(sample.trajectories) ? 'accepted' : 'accepted without trajectories';
        } catch (e) {
          return crashOf(e) ?? `threw ${(e as Error).name}: ${(e as Error).message}`;
        }
      },
      (text) => `${text.length} characters`,
    );
  });
});
