/**
 * Writes the a·b GEMM's register tiles for kernels.wat (scripts/build-kernels.ts puts them where
 * the source says `;; @gemm-tiles`): one template, three tile shapes, because which shape is fastest
 * depends on the engine's register allocator (src/model/kernels/gemm-tile.ts times them and keeps
 * one; docs/figures.md#gemm-tiles):
 *
 *   gemm_ep   4 rows × 8 columns:  8 accumulators. Plain SIMD's best (its add has a shorter latency
 *             than the fused multiply-add, so 8 chains keep both units busy).
 *   gemm3_ep  3 × 12:               9 accumulators. Node 20's V8 hoists every splat of a to the top
 *             of the loop, so a tile holds accumulators + b's vectors + a's rows at once: 9 + 3 + 3
 *             = 15, all of x64's allocatable xmm registers; 4 × 8 holds 14 but has too few chains
 *             to hide the multiply-add's latency, 6 × 8 needs 20 and spills.
 *   gemm6_ep  6 × 8:               12 accumulators. Chromium's V8 loads each splat where it is used
 *             (12 + 2 + 1 = 15) and runs it fastest.
 *
 * Every output is the same multiply-adds in the same order whatever the tile: bias first, k
 * ascending, fused on the columns below N8 (the last multiple of 8), unfused one at a time past it
 * (kernels.wat's gemm_tail). So the tiles give the same bits, and the choice changes only speed.
 * A tile wider than 8 covers the columns up to N8 in its own width, then in tiles of 8 (N8 − NC is
 * 0, 8 or 16 columns: N8 mod 12 is 0, 4 or 8, and a 4 is taken as 16 = 12 + 4 columns less).
 * Rows come in groups of R; a group running past M repeats row M − 1 (the same values written
 * again), so rows need no tail. K ≥ 1.
 *
 * The epilogue (mode 1: c = gelu(c); mode 2: also d = gelu'(c), d laid out as c) runs on each
 * group's rows while they are in L1. Per group rather than per register tile: a call inside the
 * tile spilled its accumulators and made every GEMM 8–15 % slower at K = 128.
 */

/** One R × (4·V) register tile's loop over k, and its stores: the accumulators are c{r}_{v}. */
function tileLoop(R: number, V: number, label: string): string {
  const acc = (r: number, v: number) => `$c${r}_${v}`;
  const lines: string[] = [];
  // bias (or zero) into row 0's accumulators, copied to the other rows
  for (let v = 0; v < V; v++)
    lines.push(
      `(local.set ${acc(0, v)} (if (result v128) (local.get $bias) (then (v128.load offset=${16 * v} (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2))))) (else (v128.const i32x4 0 0 0 0))))`,
    );
  for (let r = 1; r < R; r++)
    for (let v = 0; v < V; v++) lines.push(`(local.set ${acc(r, v)} (local.get ${acc(0, v)}))`);
  for (let r = 0; r < R; r++)
    lines.push(`(local.set $pa${r} (i32.add (local.get $a) (i32.mul (local.get $r${r}) (local.get $ks))))`);
  lines.push(`(local.set $end (i32.add (local.get $pa0) (local.get $ks)))`);
  lines.push(`(local.set $pb (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))`);
  lines.push(`(loop ${label}`);
  for (let v = 0; v < V; v++) lines.push(`  (local.set $b${v} (v128.load offset=${16 * v} (local.get $pb)))`);
  for (let r = 0; r < R; r++) {
    lines.push(`  (local.set $x (v128.load32_splat (local.get $pa${r})))`);
    for (let v = 0; v < V; v++)
      lines.push(
        `  (local.set ${acc(r, v)} (f32x4.relaxed_madd (local.get $x) (local.get $b${v}) (local.get ${acc(r, v)})))`,
      );
  }
  for (let r = 1; r < R; r++) lines.push(`  (local.set $pa${r} (i32.add (local.get $pa${r}) (i32.const 4)))`);
  lines.push(`  (local.set $pb (i32.add (local.get $pb) (local.get $ns)))`);
  lines.push(
    `  (br_if ${label} (i32.lt_u (local.tee $pa0 (i32.add (local.get $pa0) (i32.const 4))) (local.get $end))))`,
  );
  lines.push(`(local.set $pc (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 2))))`);
  for (let r = 0; r < R; r++)
    for (let v = 0; v < V; v++)
      lines.push(
        `(v128.store offset=${16 * v} (i32.add (local.get $pc) (i32.mul (local.get $r${r}) (local.get $ns))) (local.get ${acc(r, v)}))`,
      );
  return lines.join('\n');
}

/** A column loop: tiles of R × (4·V) from $j while $j < `limit`. */
const columnLoop = (
  R: number,
  V: number,
  limit: string,
  id: string,
): string => `(block $dj${id} (loop $lj${id}
  (br_if $dj${id} (i32.ge_u (local.get $j) (local.get ${limit})))
${tileLoop(R, V, `$lk${id}`)}
(local.set $j (i32.add (local.get $j) (i32.const ${4 * V})))
(br $lj${id})))`;

/** The GEMM on R × (4·V) register tiles (V = 2 or 3), exported as `name`, with gemm_ep's arguments. */
export function gemmTileWat(name: string, R: number, V: 2 | 3): string {
  const ints = ['i', 'j', 'N8', 'NC', 'ks', 'ns', 'last', 'pb', 'end', 'pc'];
  for (let r = 0; r < R; r++) ints.push(`r${r}`, `pa${r}`);
  const vecs = ['x', 'b0', 'b1', 'b2'];
  for (let r = 0; r < R; r++) for (let v = 0; v < V; v++) vecs.push(`c${r}_${v}`);
  const rows = Array.from(
    { length: R - 1 },
    (_, r) =>
      `(local.set $r${r + 1} (select (local.get $last) (i32.add (local.get $i) (i32.const ${r + 1})) (i32.gt_u (i32.add (local.get $i) (i32.const ${r + 1})) (local.get $last))))`,
  ).join('\n');
  const widths =
    V === 2
      ? '(local.set $NC (local.get $N8))'
      : `(local.set $NC (i32.sub (local.get $N8) (i32.rem_u (local.get $N8) (i32.const 12))))
    (if (i32.eq (i32.sub (local.get $N8) (local.get $NC)) (i32.const 4)) (then (local.set $NC (i32.sub (local.get $NC) (i32.const 12)))))`;
  const last = `$r${R - 1}`;
  return `(func $${name} (export "${name}") (param $a i32) (param $b i32) (param $c i32) (param $M i32) (param $K i32) (param $N i32) (param $bias i32)
    (param $d i32) (param $mode i32) (param $A f32)
    ${ints.map((n) => `(local $${n} i32)`).join(' ')}
    ${vecs.map((n) => `(local $${n} v128)`).join(' ')}
    (local.set $N8 (i32.and (local.get $N) (i32.const -8)))
    ${widths}
    (local.set $ks (i32.shl (local.get $K) (i32.const 2)))
    (local.set $ns (i32.shl (local.get $N) (i32.const 2)))
    (local.set $last (i32.sub (local.get $M) (i32.const 1)))
    (block $di (loop $li
      (br_if $di (i32.ge_u (local.get $i) (local.get $M)))
      (local.set $r0 (local.get $i))
${rows}
      (local.set $j (i32.const 0))
${columnLoop(R, V, '$NC', 'w')}
${V === 3 ? columnLoop(R, 2, '$N8', '8') : ''}
      (call $gemm_tail (local.get $a) (local.get $b) (local.get $c) (local.get $K) (local.get $N) (local.get $bias) (local.get $i) (local.get ${last}))
      (if (local.get $mode)
        (then (call $epilogue
          (i32.add (local.get $c) (i32.mul (local.get $i) (local.get $ns)))
          (i32.add (local.get $d) (i32.mul (local.get $i) (local.get $ns)))
          (i32.mul (i32.sub (i32.add (local.get ${last}) (i32.const 1)) (local.get $i)) (local.get $N))
          (local.get $mode) (local.get $A))))
      (local.set $i (i32.add (local.get $i) (i32.const ${R})))
      (br $li)))
  )`;
}

/** The three tiles, in the order gemm-tile.ts names them ('4x8', '3x12', '6x8'). */
export const gemmTilesWat = (): string =>
  [gemmTileWat('gemm_ep', 4, 2), gemmTileWat('gemm3_ep', 3, 3), gemmTileWat('gemm6_ep', 6, 2)].join('\n\n');
