/**
 * Node 20's V8 (11.3) validates relaxed SIMD only behind `--experimental-wasm-relaxed-simd`
 * (Chrome ≥ 114 and Node ≥ 22 run it by default). Setting the flag at run time works as long as it
 * happens before the kernels module is first validated (src/model/kernels/wasm.ts does that lazily,
 * at the first fused kernel), so the Node entry points call this first. Node only.
 */
import v8 from 'node:v8';

export function enableRelaxedSimd(): void {
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
}
