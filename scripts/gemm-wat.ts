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

/**
 * Where a tile's loop reads a and b: a's row r (r one of the group's rows $r0…) from `aRow(r)`,
 * stepping `aStep` bytes a k, until $pa0 reaches `kEnd`; b from `bStart`, stepping `bStep(W)` bytes
 * (W: the tile's vectors per row). The accumulators start from the bias (or zero), or from c's
 * current values (the xᵀ·dy product, summed over blocks of rows into its output). c's row r is at
 * $c + r·$ns.
 */
interface Operands {
  init: 'bias' | 'c';
  aRow: (r: string) => string;
  aStep: string;
  kEnd: string;
  bStart: string;
  bStep: (W: number) => string;
}

/** One R × (4·V) register tile at columns $j: its loop over k and its stores (accumulators c{r}_{v}). */
function tileLoop(R: number, V: number, label: string, o: Operands): string {
  const acc = (r: number, v: number) => `$c${r}_${v}`;
  const cRow = (r: number) =>
    `(i32.add (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 2))) (i32.mul (local.get $r${r}) (local.get $ns)))`;
  const lines: string[] = [];
  if (o.init === 'bias') {
    // bias (or zero) into row 0's accumulators, copied to the other rows
    for (let v = 0; v < V; v++)
      lines.push(
        `(local.set ${acc(0, v)} (if (result v128) (local.get $bias) (then (v128.load offset=${16 * v} (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2))))) (else (v128.const i32x4 0 0 0 0))))`,
      );
    for (let r = 1; r < R; r++)
      for (let v = 0; v < V; v++) lines.push(`(local.set ${acc(r, v)} (local.get ${acc(0, v)}))`);
  } else
    for (let r = 0; r < R; r++)
      for (let v = 0; v < V; v++)
        lines.push(`(local.set ${acc(r, v)} (v128.load offset=${16 * v} ${cRow(r)}))`);
  for (let r = 0; r < R; r++) lines.push(`(local.set $pa${r} ${o.aRow(`$r${r}`)})`);
  lines.push(`(local.set $end ${o.kEnd})`);
  lines.push(`(local.set $pb ${o.bStart})`);
  lines.push(`(loop ${label}`);
  for (let v = 0; v < V; v++) lines.push(`  (local.set $b${v} (v128.load offset=${16 * v} (local.get $pb)))`);
  for (let r = 0; r < R; r++) {
    lines.push(`  (local.set $x (v128.load32_splat (local.get $pa${r})))`);
    for (let v = 0; v < V; v++)
      lines.push(
        `  (local.set ${acc(r, v)} (f32x4.relaxed_madd (local.get $x) (local.get $b${v}) (local.get ${acc(r, v)})))`,
      );
  }
  for (let r = 1; r < R; r++) lines.push(`  (local.set $pa${r} (i32.add (local.get $pa${r}) ${o.aStep}))`);
  lines.push(`  (local.set $pb (i32.add (local.get $pb) ${o.bStep(V)}))`);
  lines.push(
    `  (br_if ${label} (i32.lt_u (local.tee $pa0 (i32.add (local.get $pa0) ${o.aStep})) (local.get $end))))`,
  );
  for (let r = 0; r < R; r++)
    for (let v = 0; v < V; v++)
      lines.push(`(v128.store offset=${16 * v} ${cRow(r)} (local.get ${acc(r, v)}))`);
  return lines.join('\n');
}

/**
 * The columns below $N8 on the group's rows: tiles of R × (4·V) from 0 while below $NC, then (V = 3)
 * tiles of R × 8 up to $N8.
 */
function columns(R: number, V: 2 | 3, o: Operands): string {
  const loop = (W: number, limit: string, id: string) => `${id === 'w' ? '(local.set $j (i32.const 0))' : ''}
(block $dj${id} (loop $lj${id}
  (br_if $dj${id} (i32.ge_u (local.get $j) (local.get ${limit})))
${tileLoop(R, W, `$lk${id}`, o)}
(local.set $j (i32.add (local.get $j) (i32.const ${4 * W})))
(br $lj${id})))`;
  return V === 2 ? loop(2, '$N8', 'w') : `${loop(3, '$NC', 'w')}\n${loop(2, '$N8', '8')}`;
}

/** Locals of an R × (4·V) tile's function, besides its own `ints`. */
function locals(R: number, V: number, ints: string[]): string {
  const all = [...ints, 'j', 'N8', 'NC', 'ns', 'last', 'pb', 'end'];
  for (let r = 0; r < R; r++) all.push(`r${r}`, `pa${r}`);
  const vecs = ['x', 'b0', 'b1', 'b2'];
  for (let r = 0; r < R; r++) for (let v = 0; v < V; v++) vecs.push(`c${r}_${v}`);
  return `${all.map((n) => `(local $${n} i32)`).join(' ')}
    ${vecs.map((n) => `(local $${n} v128)`).join(' ')}`;
}

/** $N8 (the columns below the last multiple of 8 of `n`) and $NC (those a tile of 4·V columns covers). */
const widths = (n: string, V: 2 | 3): string =>
  `(local.set $N8 (i32.and (local.get ${n}) (i32.const -8)))
    ${
      V === 2
        ? '(local.set $NC (local.get $N8))'
        : `(local.set $NC (i32.sub (local.get $N8) (i32.rem_u (local.get $N8) (i32.const 12))))
    (if (i32.eq (i32.sub (local.get $N8) (local.get $NC)) (i32.const 4)) (then (local.set $NC (i32.sub (local.get $NC) (i32.const 12)))))`
    }`;

/** The group's rows $r1… from $r0: the next R − 1, repeating $last past it. */
const groupRows = (R: number): string =>
  Array.from(
    { length: R - 1 },
    (_, r) =>
      `(local.set $r${r + 1} (select (local.get $last) (i32.add (local.get $r0) (i32.const ${r + 1})) (i32.gt_u (i32.add (local.get $r0) (i32.const ${r + 1})) (local.get $last))))`,
  ).join('\n');

/** c (M, N) = a·b + bias then the epilogue, on R × (4·V) tiles (V = 2 or 3): gemm_ep's arguments. */
export function gemmTileWat(name: string, R: number, V: 2 | 3): string {
  const ab: Operands = {
    init: 'bias',
    aRow: (r) => `(i32.add (local.get $a) (i32.mul (local.get ${r}) (local.get $ks)))`,
    aStep: '(i32.const 4)',
    kEnd: '(i32.add (local.get $pa0) (local.get $ks))',
    bStart: '(i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))',
    bStep: () => '(local.get $ns)',
  };
  const last = `$r${R - 1}`;
  return `(func $${name} (export "${name}") (param $a i32) (param $b i32) (param $c i32) (param $M i32) (param $K i32) (param $N i32) (param $bias i32)
    (param $d i32) (param $mode i32) (param $A f32)
    ${locals(R, V, ['ks'])}
    ${widths('$N', V)}
    (local.set $ks (i32.shl (local.get $K) (i32.const 2)))
    (local.set $ns (i32.shl (local.get $N) (i32.const 2)))
    (local.set $last (i32.sub (local.get $M) (i32.const 1)))
    (block $di (loop $li
      (br_if $di (i32.ge_u (local.get $r0) (local.get $M)))
${groupRows(R)}
${columns(R, V, ab)}
      (call $gemm_tail (local.get $a) (local.get $b) (local.get $c) (local.get $K) (local.get $N) (local.get $bias) (local.get $r0) (local.get ${last}))
      (if (local.get $mode)
        (then (call $epilogue
          (i32.add (local.get $c) (i32.mul (local.get $r0) (local.get $ns)))
          (i32.add (local.get $d) (i32.mul (local.get $r0) (local.get $ns)))
          (i32.mul (i32.sub (i32.add (local.get ${last}) (i32.const 1)) (local.get $r0)) (local.get $N))
          (local.get $mode) (local.get $A))))
      (local.set $r0 (i32.add (local.get $r0) (i32.const ${R})))
      (br $li)))
  )`;
}

/**
 * c (A, J) = aᵀ·b for a (N, A) whose rows are xrow floats apart and b (N, J) — xᵀ·dy, a weight's
 * gradient, without transposing x — on R × (4·V) tiles: gemm_tn_rows's arguments. Over blocks of 64
 * rows of a and b, each tile adding its block's sums to c (a sum stored and loaded again is the same
 * float, so the block size changes no bits). c's rows below the last multiple of 4 (A4) and columns
 * below J8 go through the tiles, the rest through gemm_tn_tail: the same split whatever R, so every
 * tile gives the same bits (and a thread's rows start at a multiple of 4: kernel-thread-ops.ts).
 *
 * Each block of b is first copied to the scratch $w (gemmTnScratchFloats(J) floats) as strips, one
 * per register tile's columns, each strip's rows one after another: a tile then reads its 64 rows of
 * b in order, where in place they were J floats apart (for J = 512, 2 KB: every row in the same two
 * of L1's 64 sets). The train step's J = 512 shape ran 7–11 % faster, J = 384 2–4 %, the rest within
 * 2 % (docs/figures.md#gemm-tiles). Copying a's columns too (each group's 64 × R floats) cost what it
 * gained.
 */
export function gemmTnTileWat(name: string, R: number, V: 2 | 3): string {
  const tn: Operands = {
    init: 'c',
    aRow: (r) => `(i32.add (local.get $pi) (i32.shl (local.get ${r}) (i32.const 2)))`,
    aStep: '(local.get $xs)',
    kEnd: '(i32.add (local.get $pa0) (i32.mul (local.get $nb) (local.get $xs)))',
    bStart: '(i32.add (local.get $w) (i32.shl (i32.mul (local.get $j) (local.get $nb)) (i32.const 2)))',
    bStep: (W) => `(i32.const ${16 * W})`,
  };
  /** Row $k of the block's b, from $p on, into the strips of W vectors from column $j up to `limit`, row $k's place $q on. */
  const copyRow = (W: number, limit: string, id: string) => `(block $dc${id} (loop $lc${id}
          (br_if $dc${id} (i32.ge_u (local.get $j) (local.get ${limit})))
          ${Array.from({ length: W }, (_, v) => `(v128.store offset=${16 * v} (local.get $q) (v128.load offset=${16 * v} (local.get $p)))`).join('\n          ')}
          (local.set $p (i32.add (local.get $p) (i32.const ${16 * W})))
          (local.set $q (i32.add (local.get $q) (i32.mul (local.get $nb) (i32.const ${16 * W}))))
          (local.set $j (i32.add (local.get $j) (i32.const ${4 * W})))
          (br $lc${id})))`;
  return `(func $${name} (export "${name}") (param $a i32) (param $b i32) (param $c i32) (param $N i32) (param $A i32) (param $J i32) (param $xrow i32) (param $w i32)
    ${locals(R, V, ['i0', 'iend', 'nb', 'A4', 'xs', 'pi', 'k', 'p', 'q'])}
    ${widths('$J', V)}
    (local.set $A4 (i32.and (local.get $A) (i32.const -4)))
    (local.set $last (i32.sub (local.get $A4) (i32.const 1)))
    (local.set $xs (i32.shl (local.get $xrow) (i32.const 2)))
    (local.set $ns (i32.shl (local.get $J) (i32.const 2)))
    (memory.fill (local.get $c) (i32.const 0) (i32.mul (local.get $A) (local.get $ns)))
    (block $dblk (loop $lblk
      ;; no rows below A4 (a thread's empty block): nothing for the tiles, nor to copy
      (br_if $dblk (i32.or (i32.ge_u (local.get $i0) (local.get $N)) (i32.eqz (local.get $A4))))
      (local.set $iend (select (local.get $N) (i32.add (local.get $i0) (i32.const 64))
        (i32.lt_u (local.get $N) (i32.add (local.get $i0) (i32.const 64)))))
      (local.set $nb (i32.sub (local.get $iend) (local.get $i0)))
      (local.set $pi (i32.add (local.get $a) (i32.shl (i32.mul (local.get $i0) (local.get $xrow)) (i32.const 2))))
      ;; the block's b below column J8 into strips: column j's strip at $w + 4·j·nb, 16·(its vectors) bytes a row
      (local.set $k (i32.const 0))
      (block $dpk (loop $lpk
        (br_if $dpk (i32.ge_u (local.get $k) (local.get $nb)))
        (local.set $p (i32.add (local.get $b) (i32.mul (i32.add (local.get $i0) (local.get $k)) (local.get $ns))))
        (local.set $q (i32.add (local.get $w) (i32.mul (local.get $k) (i32.const ${16 * V}))))
        (local.set $j (i32.const 0))
        ${copyRow(V, '$NC', 'w')}
        ${
          V === 3
            ? `(local.set $q (i32.add (i32.add (local.get $w) (i32.shl (i32.mul (local.get $NC) (local.get $nb)) (i32.const 2))) (i32.shl (local.get $k) (i32.const 5))))
        ${copyRow(2, '$N8', '8')}`
            : ''
        }
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $lpk)))
      (local.set $r0 (i32.const 0))
      (block $di (loop $li
        (br_if $di (i32.ge_u (local.get $r0) (local.get $A4)))
${groupRows(R)}
${columns(R, V, tn)}
        (local.set $r0 (i32.add (local.get $r0) (i32.const ${R})))
        (br $li)))
      (local.set $i0 (local.get $iend))
      (br $lblk)))
    (call $gemm_tn_tail (local.get $a) (local.get $b) (local.get $c) (local.get $N) (local.get $A) (local.get $J) (local.get $xrow))
  )`;
}

/** The three tiles of both products, in the order gemm-tile.ts names them ('4x8', '3x12', '6x8'). */
export const gemmTilesWat = (): string =>
  [
    gemmTileWat('gemm_ep', 4, 2),
    gemmTileWat('gemm3_ep', 3, 3),
    gemmTileWat('gemm6_ep', 6, 2),
    gemmTnTileWat('gemm_tn_rows', 4, 2),
    gemmTnTileWat('gemm3_tn_rows', 3, 3),
    gemmTnTileWat('gemm6_tn_rows', 6, 2),
  ].join('\n\n');
