/**
 * Which register tile the a·b GEMMs run: kernels.wat's gemm_ep (4 rows × 8 columns), gemm3_ep
 * (3 × 12) or gemm6_ep (6 × 8), written from one template by scripts/gemm-wat.ts. They do the same
 * multiply-adds in the same order, so they give the same bits; the fastest depends on the engine's
 * register allocator and on plain or relaxed SIMD (Node 20 with relaxed SIMD: 3 × 12; Chromium: 6 × 8;
 * plain SIMD: 4 × 8; scripts/gemm-wat.ts says why). So each kernels instance times them on its real
 * calls, in turn, once they are past the first calls (the engine compiles a function hot enough a
 * second time, faster), and keeps the fastest for good (docs/figures.md#gemm-tiles). A busy machine
 * once made the sum of each tile's times pick Node's slowest; the fastest of a few calls on one
 * shape does not mislead that way.
 */
import type { GemmEpArgs, GemmTnArgs, KernelExports } from './kernel-types';

/** The tiles, by the index that travels to the kernel threads (kernel-thread-ops.ts). */
export const GEMM_TILES = ['4x8', '3x12', '6x8'] as const;
export type GemmTile = 'auto' | (typeof GEMM_TILES)[number];
const EXPORTS = ['gemm_ep', 'gemm3_ep', 'gemm6_ep'] as const;
const TN_EXPORTS = ['gemm_tn_rows', 'gemm3_tn_rows', 'gemm6_tn_rows'] as const;

/**
 * Multiply-adds each tile runs before it is timed: the engine compiles a hot function a second time,
 * faster, in the background, and uses it from a later call on. After 2^26 the timed calls in Node
 * still ran at 26–53 GFLOP/s, the tiles' order blurred (one run kept 6 × 8); after 2^28 at 45–58,
 * in their steady order.
 */
const WARM = 1 << 28;
/** Timed calls of each tile on one (K, N) before its fastest there counts. */
const SAMPLES = 2;
/**
 * Multiply-adds of the shapes where every tile has its SAMPLES before the choice: about a tenth of
 * a `small` train step, whose shapes come 2–4 calls a step each, so the choice falls in its third.
 */
const DECIDE = 1 << 29;

interface TileState {
  /** The tile kept, as an index of GEMM_TILES, or -1 while still timing. */
  chosen: number;
  /** Multiply-adds each tile has run. */
  work: number[];
  /**
   * Per (K, N), while undecided: the tile its next call runs (each shape takes the tiles in turn,
   * so every tile meets every shape), and per tile its timed calls and fastest ms per multiply-add.
   * The fastest, not the mean: a call that waited for a core (a busy machine) only ever looks slower.
   */
  shapes: Map<number, { next: number; calls: number[]; best: number[]; work: number }>;
}

const states = new WeakMap<KernelExports, TileState>();
let forced: GemmTile = 'auto';

/** Forces a tile (tests, benchmarks) or lets each instance choose ('auto', the default). */
export function setGemmTile(tile: GemmTile): void {
  forced = tile;
}

const stateOf = (k: KernelExports): TileState => {
  let s = states.get(k);
  if (!s) {
    s = { chosen: -1, work: GEMM_TILES.map(() => 0), shapes: new Map() };
    states.set(k, s);
  }
  return s;
};

/** The tile an instance chose, or null while it is still timing them. */
export const chosenGemmTile = (k: KernelExports): (typeof GEMM_TILES)[number] | null => {
  const chosen = states.get(k)?.chosen ?? -1;
  return chosen < 0 ? null : GEMM_TILES[chosen];
};

/**
 * The tile (an index of GEMM_TILES) for an instance's next GEMM of K × N and, while it is choosing,
 * a function to call with the call's milliseconds and multiply-adds. Once the shapes on which every
 * tile has SAMPLES timed calls have seen DECIDE multiply-adds, the tile whose fastest calls there,
 * weighted by each shape's multiply-adds, take least time is kept.
 */
export function gemmTile(
  k: KernelExports,
  K: number,
  N: number,
): { tile: number; timed?: (ms: number, work: number) => void } {
  if (forced !== 'auto') return { tile: GEMM_TILES.indexOf(forced) };
  const s = stateOf(k);
  if (s.chosen >= 0) return { tile: s.chosen };
  const key = K * 0x10000 + N;
  const at = s.shapes.get(key) ?? {
    next: 0,
    calls: GEMM_TILES.map(() => 0),
    best: GEMM_TILES.map(() => Infinity),
    work: 0,
  };
  s.shapes.set(key, at);
  const tile = at.next;
  at.next = (tile + 1) % GEMM_TILES.length;
  return {
    tile,
    timed: (ms, work) => {
      s.work[tile] += work;
      if (s.chosen >= 0 || s.work[tile] <= WARM) return;
      at.calls[tile]++;
      at.best[tile] = Math.min(at.best[tile], ms / work);
      at.work += work;
      const done = [...s.shapes.values()].filter((x) => x.calls.every((n) => n >= SAMPLES));
      if (done.reduce((sum, x) => sum + x.work, 0) < DECIDE) return;
      const cost = GEMM_TILES.map((_, t) => done.reduce((sum, x) => sum + x.best[t] * x.work, 0));
      s.chosen = cost.indexOf(Math.min(...cost));
      s.shapes.clear();
    },
  };
}

/** Runs gemm_ep's arguments on tile `tile` (an index of GEMM_TILES). */
export const runGemmTile = (k: KernelExports, tile: number, ...args: GemmEpArgs): void =>
  k[EXPORTS[tile]](...args);

/**
 * The tile for an instance's xᵀ·dy products: the one its a·b products kept (the two loops hold the
 * same registers: b's vectors, a's splats and the accumulators), 4 × 8 until then.
 */
export const gemmTnTile = (k: KernelExports): number =>
  forced !== 'auto' ? GEMM_TILES.indexOf(forced) : Math.max(0, states.get(k)?.chosen ?? 0);

/**
 * The scratch an xᵀ·dy call (gemm_tn_rows and its tiles) needs for dy (N, J), in floats: a block of
 * 64 of dy's rows, below its last multiple of 8 columns, copied in strips (scripts/gemm-wat.ts).
 */
export const gemmTnScratchFloats = (J: number): number => 64 * (J & ~7);

/** Runs gemm_tn_rows's arguments on tile `tile` (an index of GEMM_TILES). */
export const runGemmTnTile = (k: KernelExports, tile: number, ...args: GemmTnArgs): void =>
  k[TN_EXPORTS[tile]](...args);
