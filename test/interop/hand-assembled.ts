/**
 * Event files assembled byte by byte from the formats' documented layouts (TFRecord framing,
 * protobuf wire format of tensorboard's Event/Summary/TensorProto), independent of the code under
 * test: its own bitwise CRC-32C, no protobuf library.
 */
/** CRC-32C bit by bit (reflected polynomial 0x82F63B78), independent of the library under test. */
export function crc32cBitwise(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
export const mask = (c: number) => ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;

export const bytesOf = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
export const le32 = (x: number) => [x & 255, (x >>> 8) & 255, (x >>> 16) & 255, (x >>> 24) & 255];
export const f32 = (x: number) => [...new Uint8Array(Float32Array.of(x).buffer)];
export const f64 = (x: number) => [...new Uint8Array(Float64Array.of(x).buffer)];
export const str = (s: string) => [...new TextEncoder().encode(s)];
/** A protobuf base-128 varint, low groups first, high bit = more follows. */
export function varint(x: number): number[] {
  const out: number[] = [];
  for (; x >= 128; x = Math.floor(x / 128)) out.push((x % 128) | 128);
  return [...out, x];
}
/** A length-delimited protobuf field (wire type 2). */
export const ld = (field: number, body: number[]) => [(field << 3) | 2, ...varint(body.length), ...body];

/** A TFRecord by the documented layout: u64 length, masked CRC of it, data, masked CRC of data. */
export function record(data: number[]): number[] {
  const len = [...le32(data.length), 0, 0, 0, 0];
  return [
    ...len,
    ...le32(mask(crc32cBitwise(Uint8Array.from(len)))),
    ...data,
    ...le32(mask(crc32cBitwise(Uint8Array.from(data)))),
  ];
}
/** Event{wall_time=1, step=2 (varint), summary=5{value=1{tag=1, simple_value=2 | tensor=8}}}. */
export function event(step: number, wall: number, values: number[][]): number[] {
  return [
    0x09,
    ...f64(wall),
    0x10,
    ...varint(step),
    ...ld(
      5,
      values.flatMap((v) => ld(1, v)),
    ),
  ];
}
export const simple = (tag: string, x: number) => [...ld(1, str(tag)), 0x15, ...f32(x)];
/** A rank-0 DT_FLOAT tensor with the scalars plugin's metadata, as tf.summary.scalar writes it. */
export const tensorFloat = (tag: string, x: number) => [
  ...ld(1, str(tag)),
  ...ld(9, ld(1, ld(1, str('scalars')))),
  ...ld(8, [0x08, 1, ...ld(2, []), ...ld(4, f32(x))]),
];
/** A rank-0 DT_DOUBLE tensor in double_val (packed, field 6). */
export const tensorDouble = (tag: string, x: number) => [
  ...ld(1, str(tag)),
  ...ld(8, [0x08, 2, ...ld(6, f64(x))]),
];
