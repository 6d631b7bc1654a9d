/**
 * The lab's signed binary files (checkpoints, run states): one framing, and the hashes that cover
 * every byte of it. Pure: no tfjs, no DOM, no Node.
 */

/**
 * The framing shared by every binary file of the lab: an 8-byte ASCII magic | JSON length (u32 LE)
 * | JSON | zero pad to 4 | payload. The pad keeps the payload float32-aligned for zero-copy views.
 */
export function encodeFramed(magic: string, manifest: unknown, payload: ArrayBuffer): Uint8Array {
  return encodeFramedText(magic, JSON.stringify(manifest), payload);
}

/** encodeFramed with the manifest's JSON text given. */
export function encodeFramedText(magic: string, manifestJson: string, payload: ArrayBuffer): Uint8Array {
  const json = new TextEncoder().encode(manifestJson);
  const start = Math.ceil((12 + json.length) / 4) * 4;
  const out = new Uint8Array(start + payload.byteLength);
  out.set(new TextEncoder().encode(magic), 0);
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  out.set(new Uint8Array(payload), start);
  return out;
}

/** Splits encodeFramed's bytes; `what` names the kind of file in errors. Checks only the framing. */
export function decodeFramed<T>(
  magic: string,
  what: string,
  bytes: Uint8Array | ArrayBuffer,
): { manifest: T; payload: ArrayBuffer } {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 12 || new TextDecoder().decode(b.subarray(0, 8)) !== magic)
    throw new Error(`not an ${what} file (bad magic bytes)`);
  const jsonLength = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(8, true);
  if (12 + jsonLength > b.length)
    throw new Error(`${what} truncated: manifest of ${jsonLength} bytes, only ${b.length - 12} present`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(12, 12 + jsonLength));
  } catch (e) {
    throw new Error(`${what} manifest is not valid UTF-8 text`, { cause: e });
  }
  let manifest: T;
  try {
    manifest = JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} manifest is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  // Every byte is the writer's: a manifest re-encoded differently (spaces, escapes, a repeated key)
  // or a non-zero pad is refused, so no byte of a signed file lies outside what its hash covers.
  // (Strict UTF-8 makes equal text equal bytes.)
  const again = JSON.stringify(manifest);
  if (again !== text) {
    let at = 0;
    while (again[at] === text[at]) at++;
    throw new Error(`${what} manifest was edited: character ${at} is not as this lab writes it`);
  }
  const start = Math.ceil((12 + jsonLength) / 4) * 4;
  const pad = b.subarray(12 + jsonLength, start).findIndex((x) => x !== 0);
  if (pad >= 0) throw new Error(`${what} padding byte ${12 + jsonLength + pad} is not zero (edited file?)`);
  // A fresh, exact-length copy: aligned, and independent of the input (a Node Buffer may be a view
  // into a shared pool, where .slice() would not copy).
  return { manifest, payload: new Uint8Array(b.subarray(start)).buffer as ArrayBuffer };
}

/**
 * The hash of a signed file: the payload's hash folded into the header's JSON (every manifest
 * field but `hash`, in the order written), so an edited field is caught like an edited byte of the
 * payload. Checkpoints and run states share it.
 */
export function contentHash(manifest: object, payload: ArrayBuffer | Uint8Array): string {
  return headerHash(manifest, hashBytes(payload instanceof Uint8Array ? payload : new Uint8Array(payload)));
}

/** contentHash from the payload's hash, for a writer that has it already (no second pass over the bytes). */
export function headerHash(manifest: object, payloadHash: string): string {
  const { hash: _ignored, ...header } = manifest as { hash?: unknown };
  return hashBytes(new TextEncoder().encode(JSON.stringify(header) + payloadHash));
}

/**
 * 64-bit hex hash of bytes: two 32-bit multiply-xorshift lanes (murmur3-style mixing) over the
 * bytes, with the length folded in. Fast in plain JS; not cryptographic.
 */
export function hashBytes(bytes: Uint8Array): string {
  let h1 = 0x811c9dc5 ^ bytes.length;
  let h2 = 0x01000193 ^ Math.imul(bytes.length, 0x9e3779b1);
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i], 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  const fin = (h: number): number => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  return (
    fin(h1).toString(16).padStart(8, '0') +
    fin(h2 ^ h1)
      .toString(16)
      .padStart(8, '0')
  );
}

/**
 * A fast 64-bit hex hash of bytes, for a check that is no file's (a run state the page keeps in
 * IndexedDB after every step, src/train/run-state.ts `stateCheck`): four independent
 * multiply-rotate lanes over 32-bit words, so it runs at several bytes per cycle where hashBytes,
 * one byte at a time through a chain, takes a few nanoseconds a byte (4 MB: about 1 ms against 12).
 * Little-endian words; a tail of 1–3 bytes is folded in as one word. Not cryptographic, and not
 * hashBytes: files keep theirs.
 */
export function hashWords(bytes: Uint8Array): string {
  const n = bytes.byteLength >>> 2;
  const words =
    bytes.byteOffset % 4 === 0
      ? new Uint32Array(bytes.buffer, bytes.byteOffset, n)
      : new Uint32Array(bytes.slice(0, n * 4).buffer);
  let a = 0x9e3779b1 ^ bytes.byteLength;
  let b = 0x85ebca77;
  let c = 0xc2b2ae3d;
  let d = 0x27d4eb2f;
  const last = n - (n % 4);
  for (let i = 0; i < last; i += 4) {
    a = Math.imul(a ^ words[i], 0x01000193);
    b = Math.imul(b ^ words[i + 1], 0x5bd1e995);
    c = Math.imul(c ^ words[i + 2], 0x85ebca6b);
    d = Math.imul(d ^ words[i + 3], 0xcc9e2d51);
    a = (a << 13) | (a >>> 19);
    b = (b << 15) | (b >>> 17);
    c = (c << 17) | (c >>> 15);
    d = (d << 19) | (d >>> 13);
  }
  for (let i = last; i < n; i++) a = Math.imul(((a << 13) | (a >>> 19)) ^ words[i], 0x01000193);
  let tail = 0;
  for (let i = n * 4; i < bytes.byteLength; i++) tail = (tail << 8) | bytes[i];
  b = Math.imul(b ^ tail, 0x5bd1e995);
  const mix = (h: number): number => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const hi = mix(a ^ mix(c));
  const lo = mix(b ^ mix(d) ^ hi);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/**
 * A value read from a file, as a message shows it: strings as they are, anything else as JSON. A
 * template literal would throw on an object whose own `toString` is not a function (JSON.parse
 * makes one from `{"toString": 1}`).
 */
export const shown = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
