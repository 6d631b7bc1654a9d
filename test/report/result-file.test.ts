/**
 * Result files (docs/sharing.md#what-a-result-file-holds): what is written reads back whole, to
 * the last bit of every frame, with its content hash; and every way a file can be wrong is refused
 * with a message saying how: not gzip, cut off, corrupt, over 50 MB, inflating past its bound, a
 * newer version, a hash that does not match, nesting too deep, a prototype key, a non-finite
 * number, a giant list, a frame that does not fit its keys.
 */
import { gunzipSync, gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/sha256';
import { readResult, readResultNative, writeResult } from '../../src/report/result-file';
import { MAX_BODY_BYTES, MAX_RESULT_BYTES, ResultRefused } from '../../src/report/result-format';
import { framed, smallBody } from './result-fixture';

/** The refusal's message, failing if the read does anything but refuse. */
function refusal(bytes: Uint8Array): string {
  try {
    readResult(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(ResultRefused);
    return (e as Error).message;
  }
  throw new Error('read, not refused');
}

const bodyText = () => {
  const text = new TextDecoder().decode(gunzipSync(writeResult(smallBody())));
  return text.slice(text.indexOf('\n') + 1);
};

describe('a result file reads back as it was written', () => {
  it('every field, every frame to the last bit (NaN where a key had no value), and its content hash', () => {
    const body = smallBody();
    const bytes = writeResult(body);
    const { body: back, sha256 } = readResult(bytes);
    expect(back).toEqual(body);
    // toEqual treats NaN as NaN: check that the gaps are where they were, and the values' bits.
    back.runs.forEach((r, i) =>
      r.frames.forEach((f, j) =>
        expect(Buffer.from(f.buffer)).toEqual(Buffer.from(body.runs[i].frames[j].buffer)),
      ),
    );
    expect(back.runs[0].rollouts[0].trajectories[0].turns[0].credit!.without).toBeNaN();
    expect(back.experiments[0].findings.runs).toEqual(['GRPO', 'Dr. MAS']);
    expect(back.experiments[0].whatDiffers?.run).toBe('GRPO #0');
    expect(back.experiments[0].experiment?.runs[1].live).toEqual({ 6: { optim: { lr: 0.002 } } });
    // The hash names the body: the same result gives the same bytes and hash.
    expect(sha256).toBe(sha256Hex(new TextEncoder().encode(bodyText())));
    expect(writeResult(smallBody())).toEqual(bytes);
  });
});

describe('a result served inflated (a host sending it with Content-Encoding: gzip)', () => {
  it('opens as the file does, header and hash checked; its text edited, it is refused', async () => {
    const good = writeResult(smallBody());
    const text = gunzipSync(good);
    expect(text[0]).toBe(0x7b); // the header line's "{"
    const [file, inflated] = [readResult(good), readResult(text)];
    expect(inflated.sha256).toBe(file.sha256);
    expect(JSON.stringify(inflated.body.experiments)).toBe(JSON.stringify(file.body.experiments));
    expect((await readResultNative(text)).sha256).toBe(file.sha256);
    const edited = text.slice();
    edited[text.length - 10] ^= 0x01;
    expect(refusal(edited)).toMatch(/does not match|damaged|not JSON/);
  });
});

describe('a result file that is not as written is refused, saying why', () => {
  const good = writeResult(smallBody());

  it('not gzip, cut off, or corrupt', () => {
    expect(refusal(new TextEncoder().encode('PK\u0003\u0004'))).toBe(
      "neither gzip-compressed nor a result's text: not a result file (*.lab.json.gz)",
    );
    expect(refusal(new TextEncoder().encode('{"runs": []}'))).toBe('no header line: not a result file');
    for (const at of [10, good.length >> 1, good.length - 5])
      expect(refusal(good.slice(0, at)), `cut at ${at}`).toMatch(/cut off|damaged/);
    const flipped = good.slice();
    flipped[good.length >> 1] ^= 0x10;
    expect(refusal(flipped)).toMatch(/damaged|does not match/);
  });

  it('cut anywhere, says so, never that it is too large: a cut file ends in compressed data, not a trailer', () => {
    const cuts = Array.from({ length: (good.length - 18) / 53 }, (_, i) => good.slice(0, 18 + 53 * i));
    // Most cuts end in bytes that, read as a trailer, claim hundreds of MB (2.5 GB on average).
    const claim = (b: Uint8Array) => new DataView(b.buffer).getUint32(b.length - 4, true);
    expect(cuts.filter((b) => claim(b) > MAX_BODY_BYTES).length).toBeGreaterThan(cuts.length / 2);
    for (const cut of cuts) {
      const message = refusal(cut);
      expect(message, `cut at ${cut.length}`).toMatch(/: the file was cut off( or damaged)?$/);
      expect(message, `cut at ${cut.length}`).not.toMatch(/past/);
    }
    expect(refusal(good.slice(0, 400))).toMatch(
      /^its compressed data ends early or is damaged \(its last bytes claim \d+\.\d MB inflated, more than gzip makes of 400 bytes\)/,
    );
  });

  it('a long file cut off, whose last bytes could be a trailer past 256 MB, is cut off by its header', () => {
    // 4 MB stored (gzip level 0), cut at 3 MB: its last bytes read as 1927.5 MB ('xxxx'), which
    // 3 MB of gzip could make; the header line, the first kilobyte inflated, says 4.0 MB.
    const body = 'x'.repeat(4 * 2 ** 20);
    const head = JSON.stringify({
      format: 'agentwise-lab-result',
      version: 1,
      sha256: '0'.repeat(64),
      bytes: body.length,
    });
    const stored = gzipSync(new TextEncoder().encode(`${head}\n${body}`), { level: 0 });
    const cut = stored.slice(0, 3 * 2 ** 20);
    expect(refusal(cut)).toBe(
      'its compressed data ends early or is damaged (its last bytes claim 1927.5 MB inflated, where its header says 4.0 MB): the file was cut off or damaged',
    );
  });

  it('over 50 MB, before reading it; and a body that would inflate past its bound, before inflating it', () => {
    expect(refusal(new Uint8Array(MAX_RESULT_BYTES + 1))).toBe('50.0 MB: a result file is at most 50.0 MB');
    // A gzip bomb: 16 MB of zeros compress about 1000-fold. Its trailer's size says what it holds:
    // past the bound, refused unread; shorter than what it holds (several members one after
    // another, a forged trailer), refused as soon as the inflated bytes pass it.
    const member = gzipSync(new Uint8Array(16 * 2 ** 20));
    const claims = (bytes: Uint8Array, size: number) => {
      const out = bytes.slice();
      new DataView(out.buffer).setUint32(out.length - 4, size, true);
      return out;
    };
    // Past the bound, from a file long enough to hold it (deflate makes at most 1032 bytes of one):
    // refused before inflating. From this short one, no gzip: its end is no trailer.
    const long = new Uint8Array(Math.ceil((MAX_BODY_BYTES + 1) / 1032));
    long.set(member.subarray(0, 10));
    expect(refusal(claims(long, MAX_BODY_BYTES + 1))).toBe(
      'its gzip trailer says 256.0 MB inflated, past 256.0 MB: the file was cut off or damaged, or is no result this lab writes',
    );
    expect(refusal(claims(member, MAX_BODY_BYTES + 1))).toMatch(
      /^its compressed data ends early or is damaged .*: the file was cut off or damaged$/,
    );
    const members = new Uint8Array(member.length * 20);
    for (let i = 0; i < 20; i++) members.set(member, i * member.length);
    for (const bomb of [members, claims(member, 1000)])
      expect(refusal(bomb)).toBe(
        'its compressed data does not match its length: the file was cut off or damaged',
      );
  });

  it('a newer format version, a changed body, a header that is not a result’s', () => {
    expect(refusal(framed(bodyText(), 2))).toBe(
      'format version 2, written by a newer lab: this one reads version 1; open it in a newer lab',
    );
    // The body edited and recompressed with its old header: the hash says so.
    const text = new TextDecoder().decode(gunzipSync(good));
    const edited = text.replace('"GRPO #0"', '"GRPO #9"');
    expect(refusal(gzipSync(new TextEncoder().encode(edited)))).toBe(
      'its content hash does not match its body: the file was changed or damaged after it was written',
    );
    expect(refusal(gzipSync(new TextEncoder().encode('{"format":"x"}\n{}')))).toBe(
      'not a result file (no "format": "agentwise-lab-result")',
    );
  });

  it('a hostile body, even correctly hashed: deep nesting, prototype keys, non-finite numbers, giant lists, misfit frames', () => {
    const body = JSON.parse(bodyText());
    const cases: [string, string][] = [
      ['['.repeat(5000) + ']'.repeat(5000), 'its body nests deeper than 32 levels'],
      [
        bodyText().replace('"made":', '"__proto__":{"polluted":1},"made":'),
        'it holds a key "__proto__", which no result has',
      ],
      [
        bodyText().replace('"made":', '"__pro\\u0074o__":1,"made":'),
        'it holds a key "__proto__", which no result has',
      ],
      [
        bodyText().replace('"seed":0,"experiment":0', '"seed":1e999,"experiment":0'),
        'runs.0.seed: Invalid input: expected number, received Infinity',
      ],
      [
        JSON.stringify({ ...body, runs: new Array(10_001).fill(0) }), // refused at its length, unread
        'runs: 10001 items, where at most 10000 are read',
      ],
      [
        JSON.stringify({ ...body, runs: [{ ...body.runs[0], frames: [[0, 1]] }] }),
        `runs.0.frames.0: not a list of ${body.runs[0].keys.length} values, one per key`,
      ],
      [
        JSON.stringify({
          ...body,
          runs: [{ ...body.runs[0], frames: [body.runs[0].frames[1], body.runs[0].frames[0]] }],
        }),
        'runs.0.frames.1: its step is not a whole number after the one before',
      ],
      [JSON.stringify({ ...body, extra: 1 }), 'its body: Unrecognized key: "extra"'],
      [
        JSON.stringify({ ...body, experiments: [{ ...body.experiments[0], experiment: { task: 'nope' } }] }),
        'experiments.0.experiment: task must be one of: search, math, sync',
      ],
    ];
    for (const [text, message] of cases) expect(refusal(framed(text)), message).toContain(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the result worker's reader: the platform's gzip and SHA-256", () => {
  /** readResultNative's refusal, failing if it does anything but refuse. */
  const nativeRefusal = (bytes: Uint8Array) =>
    readResultNative(bytes).then(
      () => {
        throw new Error('read, not refused');
      },
      (e: unknown) => {
        expect(e).toBeInstanceOf(ResultRefused);
        return (e as Error).message;
      },
    );

  it('opens the same result, to the last bit of every frame, with the same hash', async () => {
    const bytes = writeResult(smallBody(true));
    const sync = readResult(bytes);
    const native = await readResultNative(bytes);
    expect(native).toEqual(sync);
    native.body.runs.forEach((r, i) =>
      r.frames.forEach((f, j) =>
        expect(Buffer.from(f.buffer)).toEqual(Buffer.from(sync.body.runs[i].frames[j].buffer)),
      ),
    );
  });

  it('refuses what readResult refuses, in its words: cut off, corrupt, bombs, a changed body, a hostile one', async () => {
    const good = writeResult(smallBody());
    const flipped = good.slice();
    flipped[good.length >> 1] ^= 0x10;
    const member = gzipSync(new Uint8Array(16 * 2 ** 20));
    const members = new Uint8Array(member.length * 20);
    for (let i = 0; i < 20; i++) members.set(member, i * member.length);
    const lying = member.slice();
    new DataView(lying.buffer).setUint32(lying.length - 4, 1000, true);
    const boasting = lying.slice();
    new DataView(boasting.buffer).setUint32(boasting.length - 4, MAX_BODY_BYTES + 1, true);
    const text = new TextDecoder().decode(gunzipSync(good));
    const files = [
      new Uint8Array(MAX_RESULT_BYTES + 1),
      new TextEncoder().encode('{"runs": []}'),
      ...[10, 400, good.length >> 1, good.length - 5].map((at) => good.slice(0, at)),
      flipped,
      members,
      lying,
      boasting,
      gzipSync(new TextEncoder().encode(text.replace('"GRPO #0"', '"GRPO #9"'))),
      framed(bodyText(), 2),
      framed('['.repeat(5000) + ']'.repeat(5000)),
      framed(bodyText().replace('"made":', '"__proto__":{"polluted":1},"made":')),
    ];
    for (const [i, bytes] of files.entries())
      expect(await nativeRefusal(bytes), `file ${i}`).toBe(refusal(bytes));
  });
});
