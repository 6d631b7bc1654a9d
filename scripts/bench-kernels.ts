/**
 * Micro-benchmark of each fused wasm kernel against the plain tfjs ops it replaces, at the docs/figures.md#the-benchmark-workload
 * train shapes (small: 4096 rows, C 128, 4 heads, MLP 512): forward + backward ms, interleaved
 * A/B, medians. `npx tsx scripts/bench-kernels.ts [--reps 15]`. Node only.
 * Then the matmuls alone at the model's shapes, by process CPU time (steadier on a shared machine): XNNPACK
 * (tf.matMul; transpose + tf.matMul for xᵀ·dy) against the own GEMM kernels in plain and relaxed SIMD, in GFLOP/s,
 * each on each register tile (gemm-tile.ts: 4 × 8, 3 × 12, 6 × 8, the same bits; plain SIMD on 4 × 8),
 * and last the ceiling those rates are a share of: register-only f32x4 multiply-adds, 8 and 12 accumulators.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { selfAttention } from '../src/model/kernels/attention';
import { setFusedKernels, setRelaxedSimd, type KernelFamily } from '../src/model/kernels/wasm';
import { gelu, layerNorm, linear } from '../src/model/layers';
import { matMulNN, matMulTN } from '../src/model/kernels/rowwise';
import { setGemmTile, type GemmTile } from '../src/model/kernels/gemm-tile';
import { MASK } from '../src/model/gpt';
import { arg, median } from './cli-args';

enableRelaxedSimd(); // Node 20: the kernels' fused multiply-add (src/model/kernels/wasm.ts)

const reps = Number(arg('reps', '15'));
await tf.setBackend('wasm');
const [B, T, C, H, M] = [64, 64, 128, 4, 512];
const N = B * T;
const bias = tf.tensor4d(
  Float32Array.from({ length: T * T }, (_, k) => (k % T > Math.floor(k / T) ? MASK : 0)),
  [1, 1, T, T],
);
const r = (shape: number[]) => tf.randomUniform(shape, -1, 1, 'float32', 1);
const qkv = r([N, 3 * C]),
  x = r([N, C]),
  g = r([C]),
  b = r([C]),
  h = r([N, M]),
  w1 = r([C, M]),
  b1 = r([M]);

const cases: [string, KernelFamily, () => tf.Tensor, tf.Tensor[]][] = [
  ['attention (B·T, 3C) → (B·T, C)', 'attention', () => selfAttention(qkv as tf.Tensor2D, bias, B, H), [qkv]],
  [
    'layerNorm (4096, 128)',
    'rowwise',
    () => layerNorm(x as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D),
    [x, g, b],
  ],
  ['gelu (4096, 512)', 'rowwise', () => gelu(h as tf.Tensor2D), [h]],
  ['xᵀ·dy (4096, 128)ᵀ (4096, 512)', 'gemm', () => matMulTN(x as tf.Tensor2D, h as tf.Tensor2D), []],
  [
    'linear (4096, 128) → 512',
    'rowwise',
    () => linear(x as tf.Tensor2D, w1 as tf.Tensor2D, b1 as tf.Tensor1D),
    [x, w1, b1],
  ],
];
for (const [name, family, f, xs] of cases) {
  const step = (fused: boolean) => {
    setFusedKernels(fused, [family]);
    const t0 = performance.now();
    if (xs.length === 0) {
      const y = f();
      const ms = performance.now() - t0;
      y.dispose();
      return ms;
    }
    const { value, grads } = tf.valueAndGrads(() => tf.sum(f()) as tf.Scalar)(xs);
    const ms = performance.now() - t0;
    tf.dispose([value, ...grads]);
    return ms;
  };
  const times: Record<string, number[]> = { fused: [], plain: [] };
  step(true);
  step(false);
  for (let k = 0; k < reps; k++) {
    times.fused.push(step(true));
    times.plain.push(step(false));
  }
  console.log(
    `${name.padEnd(34)} fused ${median(times.fused).toFixed(1).padStart(7)} ms   plain ${median(times.plain).toFixed(1).padStart(7)} ms`,
  );
}
setFusedKernels(true);

// ---- the matmuls: (M, K, N) of the small train step (4096 rows), of decode (64 rows), and the head (73)
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const products: [string, KernelFamily, number[], (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor][] = [
  ['a·b', 'matmul', [4096, 128, 384], matMulNN],
  ['a·b', 'matmul', [4096, 128, 512], matMulNN],
  ['a·b', 'matmul', [4096, 512, 128], matMulNN],
  ['a·b', 'matmul', [4096, 128, 73], matMulNN],
  ['a·b', 'matmul', [64, 128, 512], matMulNN],
  ['xᵀ·dy', 'gemm', [4096, 128, 384], (x, dy) => matMulTN(x, dy)],
  ['xᵀ·dy', 'gemm', [4096, 512, 128], (x, dy) => matMulTN(x, dy)],
];
console.log(
  '\nmatmul (M, K, N)            GFLOP/s: XNNPACK     plain SIMD  relaxed 4×8  relaxed 3×12  relaxed 6×8',
);
for (const [name, family, [M, K, N], f] of products) {
  // xᵀ·dy: x (M rows, K) and dy (M, N) → (K, N); a·b: a (M, K), b (K, N)
  const a = r([M, K]) as tf.Tensor2D,
    b = r(name === 'a·b' ? [K, N] : [M, N]) as tf.Tensor2D;
  const best: Record<string, number> = {};
  for (let round = 0; round < 3; round++) {
    for (const mode of ['XNNPACK', 'plain', '4x8', '3x12', '6x8'] as const) {
      setFusedKernels(mode !== 'XNNPACK', [family]);
      setRelaxedSimd(mode !== 'plain');
      setGemmTile(mode.includes('x') ? (mode as GemmTile) : '4x8');
      const n = Math.max(3, Math.round(2e9 / (M * K * N)));
      f(a, b).dispose();
      const c0 = cpuMs();
      for (let i = 0; i < n; i++) f(a, b).dispose();
      best[mode] = Math.min(best[mode] ?? Infinity, (cpuMs() - c0) / n);
    }
  }
  const gf = (ms: number) => ((2 * M * K * N) / ms / 1e6).toFixed(1).padStart(12);
  console.log(
    `${name.padEnd(6)} (${M}, ${K}, ${N})`.padEnd(36) +
      gf(best.XNNPACK) +
      gf(best.plain) +
      gf(best['4x8']) +
      gf(best['3x12']) +
      gf(best['6x8']),
  );
  tf.dispose([a, b]);
}
setFusedKernels(true);
setRelaxedSimd(true);
setGemmTile('auto');

// ---- the ceiling: f32x4 multiply-adds with no memory traffic at all, each into its accumulator as a
// GEMM's are (12 independent accumulators, enough to cover the FMA latency on two pipes), so the GEMM
// rates above can be read as a share of what 128-bit SIMD can do on this core in this engine; and
// with 8 and 9, the 4 × 8 and 3 × 12 tiles', which the multiply-add's latency bounds below that.
const wabt = await (await import('wabt')).default();
/** The registers-only rate with `n` independent accumulators, GFLOP/s (best of 5 by CPU time). */
function ceiling(n: number): number {
  const accs = Array.from({ length: n }, (_, i) => `$c${i}`);
  const peakWat = `(module (func (export "run") (param $n i32) (result f32)
  (local $x v128) (local $y v128) ${accs.map((c) => `(local ${c} v128)`).join(' ')}
  (local.set $x (f32x4.splat (f32.const 0.999))) (local.set $y (f32x4.splat (f32.const 1e-3)))
  (loop $l
    ${accs.map((c) => `(local.set ${c} (f32x4.relaxed_madd (local.get $x) (local.get $y) (local.get ${c})))`).join('\n    ')}
    (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
  (f32x4.extract_lane 0 ${accs.slice(1).reduce((sum, c) => `(f32x4.add ${sum} (local.get ${c}))`, '(local.get $c0)')})))`;
  const peakMod = wabt.parseWat('peak.wat', peakWat, { simd: true, relaxed_simd: true });
  const peak = new WebAssembly.Instance(
    new WebAssembly.Module(peakMod.toBinary({}).buffer as Uint8Array<ArrayBuffer>),
  );
  const runPeak = peak.exports.run as (n: number) => number;
  const iters = 6e8 / n;
  runPeak(1e6);
  let peakMs = Infinity;
  for (let k = 0; k < 5; k++) {
    const c0 = cpuMs();
    runPeak(iters);
    peakMs = Math.min(peakMs, cpuMs() - c0);
  }
  return (iters * n * 8) / peakMs / 1e6;
}
console.log(
  `\nf32x4 relaxed_madd, registers only: ${ceiling(12).toFixed(1)} GFLOP/s with 12 accumulators (the ceiling), ${ceiling(9).toFixed(1)} with 9 (3 × 12's), ${ceiling(8).toFixed(1)} with 8 (4 × 8's)`,
);
