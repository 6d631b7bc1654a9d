/** How far `got` is from `ref`: max |Δ| / (1 + |ref|); Infinity if their lengths differ. */
export function maxDiff(got: Float32Array, ref: Float32Array): number {
  let d = got.length === ref.length ? 0 : Infinity;
  for (let i = 0; i < ref.length; i++) d = Math.max(d, Math.abs(got[i] - ref[i]) / (1 + Math.abs(ref[i])));
  return d;
}
