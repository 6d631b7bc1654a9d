/**
 * Which register tile the a·b GEMMs run: kernels.wat's gemm_ep (4 rows × 8 columns, 8
 * accumulators) or gemm6_ep (6 × 8, 12 accumulators, over copies of b and a packed into a
 * workspace). Both do the same multiply-adds in the same order, so they give the same bits, and the
 * faster one depends on the engine: 12 accumulators hide the multiply-add's latency where 8 do not
 * quite, if the engine keeps all 15 vectors in registers (Chromium's V8 does; Node 20's spills them
 * and runs 6 × 8 slower). So each kernels instance times both on its real calls, alternating, once
 * they are past the first calls (the engine compiles a function hot enough a second time, faster),
 * and keeps the faster for good (docs/figures.md#gemm-tiles).
 *
 * The workspace is the instance's own, taken from the wasm heap once (wasm.ts): one region per
 * thread part, each for b's panels and a's packed rows, WORKSPACE_FLOATS floats; a GEMM that needs
 * more runs 4 × 8.
 */
import type { KernelExports } from './kernel-types';

/** Floats per thread part of the workspace: b's panels (K·N) and a's 6 packed rows (6·K), up to 512 KB. */
export const WORKSPACE_FLOATS = 1 << 17;
/** Multiply-adds each tile runs before it is timed, then timed for the choice. */
const WARM = 1 << 26;
const TIMED = 1 << 28;

export type GemmTile = 'auto' | '4x8' | '6x8';

interface TileState {
  /** Byte address of the workspace (part p's region at ws + 4·p·WORKSPACE_FLOATS); 0: none. */
  ws: number;
  parts: number;
  chosen: '4x8' | '6x8' | null;
  /** Per tile while undecided: multiply-adds run, and those timed with their milliseconds. */
  seen: Record<'4x8' | '6x8', { work: number; timed: number; ms: number }>;
  next: '4x8' | '6x8';
}

const states = new WeakMap<KernelExports, TileState>();
let forced: GemmTile = 'auto';

/** Gives an instance its workspace (wasm.ts, once): `parts` regions of WORKSPACE_FLOATS at byte address `ws`. */
export function bindGemmWorkspace(k: KernelExports, ws: number, parts: number): void {
  const seen = () => ({ work: 0, timed: 0, ms: 0 });
  states.set(k, { ws, parts, chosen: null, seen: { '4x8': seen(), '6x8': seen() }, next: '6x8' });
}

/** Forces a tile (tests, benchmarks) or lets each instance choose ('auto', the default). */
export function setGemmTile(tile: GemmTile): void {
  forced = tile;
}

/** The tile an instance chose, or null while it is still timing both (or has no workspace). */
export const chosenGemmTile = (k: KernelExports): '4x8' | '6x8' | null => states.get(k)?.chosen ?? null;

/**
 * The workspace for a GEMM of K × N over `parts` parts if it runs 6 × 8 (0: run 4 × 8), and, while
 * the instance is choosing, a function to call with the call's milliseconds.
 */
export function gemmTile(
  k: KernelExports,
  K: number,
  N: number,
  parts: number,
): { ws: number; timed?: (ms: number, work: number) => void } {
  const s = states.get(k);
  const fits = !!s && s.ws > 0 && parts <= s.parts && K * (N & ~7) + 6 * K <= WORKSPACE_FLOATS;
  if (!s || !fits || forced === '4x8') return { ws: 0 };
  if (forced === '6x8') return { ws: s.ws };
  if (s.chosen) return { ws: s.chosen === '6x8' ? s.ws : 0 };
  const tile = s.next;
  s.next = tile === '6x8' ? '4x8' : '6x8';
  return {
    ws: tile === '6x8' ? s.ws : 0,
    timed: (ms, work) => {
      const t = s.seen[tile];
      t.work += work;
      if (t.work <= WARM) return;
      t.timed += work;
      t.ms += ms;
      const [a, b] = [s.seen['4x8'], s.seen['6x8']];
      if (!s.chosen && a.timed >= TIMED && b.timed >= TIMED)
        s.chosen = b.ms / b.timed < a.ms / a.timed ? '6x8' : '4x8';
    },
  };
}
