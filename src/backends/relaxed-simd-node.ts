/**
 * Node 20's V8 (11.3) validates relaxed SIMD only behind `--experimental-wasm-relaxed-simd`
 * (Chrome ≥ 114 and Node ≥ 22 run it by default). Setting the flag at run time works as long as it
 * happens before the kernels module is first validated (src/model/kernels/wasm.ts does that lazily,
 * at the first fused kernel), so the Node entry points call this first. Node only.
 *
 * `LAB_SIMD=plain` runs the plain-SIMD kernels instead, on any engine. Their float32 sums round
 * differently from the fused multiply-add's, so a study rerun with it is a second kernel set on one
 * machine: the check of which verdicts hold across machines
 * (docs/findings.md#tables-drift-across-machines). The variable reaches sweep workers and the
 * processes `npm run studies` starts, as any environment does.
 */
import v8 from 'node:v8';
import { setRelaxedSimd } from '../model/kernels/wasm';

/** LAB_SIMD's values; unset or empty means 'relaxed'. */
const SIMD = ['relaxed', 'plain'] as const;

/** Why LAB_SIMD cannot be used, or null: an entry point checks it before it runs anything. */
export function simdVariableError(value = process.env.LAB_SIMD): string | null {
  return !value || (SIMD as readonly string[]).includes(value)
    ? null
    : `LAB_SIMD must be ${SIMD.join(' or ')} (unset or empty: relaxed); got "${value}"`;
}

/**
 * Relaxed SIMD on (the default), or the plain kernels where LAB_SIMD=plain. And wasm-into-wasm
 * inlining, which newer V8s (Chrome's) do by default and Node 20's only behind a flag: the kernels
 * call small functions per vector (kernels.wat's exp4, sig4, gelu_u), and a real call each costs
 * GELU about a third of its time (gelu forward and backward on 4096 × 512: 21.9 → 13.8 ms,
 * `scripts/bench-kernels.ts`; the `small` train step about 5 %, docs/figures.md#gemm-tiles).
 * Inlining moves no arithmetic, so the bits stay those of the calls.
 */
export function enableRelaxedSimd(): void {
  const error = simdVariableError();
  if (error) throw new Error(error);
  v8.setFlagsFromString('--experimental-wasm-inlining');
  if (process.env.LAB_SIMD === 'plain') setRelaxedSimd(false);
  else v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
}
