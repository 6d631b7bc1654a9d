/**
 * The types the kernel modules share: the wasm backend's surface we use, the kernels module's
 * exports, and the attention kernels' attributes. They live here, below every kernel module, so
 * that imports point one way (wasm.ts loads the thread pool and the identity kernel; neither may
 * import back from it, nor attention-webgpu.ts from attention.ts).
 */
import type * as tf from '@tensorflow/tfjs';

/** The parts of tfjs-backend-wasm 4.22's BackendWasm used here (pin tfjs exactly, docs/backends.md#pinned-to-one-tfjs-version). */
export interface WasmBackendLike {
  getMemoryOffset(dataId: object): number;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(dataId: object, force?: boolean): boolean;
  incRef(dataId: object): void;
  /** Frees the heap (tfjs's engine reset or removeBackend): the kernels' helper threads end with it. */
  dispose(): void;
  /** The heap: exported by the single-threaded builds (asm.memory); imported, and kept as wasmMemory, by the threaded one. */
  wasm: { asm?: { memory?: unknown }; wasmMemory?: unknown };
}

/**
 * gemm_tn_rows's arguments: out (A, J) = xᵀ·dy (kernels.wat), w a scratch of gemmTnScratchFloats(J)
 * floats (gemm-tile.ts) that the call overwrites.
 */
export type GemmTnArgs = [
  x: number,
  dy: number,
  out: number,
  N: number,
  A: number,
  J: number,
  xrow: number,
  w: number,
];

/** gemm_ep's arguments: c (M, N) = a (M, K) · b (K, N) + bias, then the epilogue `mode` on c and d. */
export type GemmEpArgs = [
  a: number,
  b: number,
  c: number,
  M: number,
  K: number,
  N: number,
  bias: number,
  d: number,
  mode: number,
  A: number,
];

/** kernels.wat's exports; pointers are byte addresses on the backend heap. */
export interface KernelExports {
  zero(ptr: number, bytes: number): void;
  attn_fwd(...args: number[]): void;
  attn_bwd(...args: number[]): void;
  colsum(x: number, out: number, N: number, M: number): void;
  transpose(x: number, out: number, R: number, C: number): void;
  gather_rows(ids: number, table: number, out: number, N: number, C: number, V: number): void;
  log_softmax_pick(
    z: number,
    targets: number,
    p: number,
    ml: number,
    lp: number,
    H: number,
    N: number,
    V: number,
  ): void;
  log_softmax_pick_grad(
    z: number,
    targets: number,
    p: number,
    ml: number,
    H: number,
    dlp: number,
    dH: number,
    dz: number,
    N: number,
    V: number,
  ): void;
  scatter_add_rows(ids: number, dy: number, out: number, N: number, C: number, V: number): void;
  ln_fwd(
    x: number,
    g: number,
    b: number,
    y: number,
    mean: number,
    rstd: number,
    N: number,
    C: number,
    eps: number,
  ): void;
  ln_bwd(
    x: number,
    g: number,
    mean: number,
    rstd: number,
    dy: number,
    dx: number,
    dg: number,
    db: number,
    tmp: number,
    N: number,
    C: number,
  ): void;
  gelu_fwd(x: number, y: number, n: number, A: number): void;
  gelu_bwd(x: number, dy: number, dx: number, n: number, A: number): void;
  /**
   * out (A, J) = xᵀ·dy for x (N, ·) whose rows are xrow floats apart and dy (N, J): the rows [0, A)
   * of the whole product's (xrow its A), on the 4 × 8 register tile; gemm3_tn_rows and gemm6_tn_rows
   * on 3 × 12 and 6 × 8, the same bits (gemm-tile.ts). Each copies dy's blocks of 64 rows to the
   * scratch w (gemmTnScratchFloats(J) floats) first.
   */
  gemm_tn_rows(...args: GemmTnArgs): void;
  gemm3_tn_rows(...args: GemmTnArgs): void;
  gemm6_tn_rows(...args: GemmTnArgs): void;
  /**
   * c = a·b + bias, then an epilogue on c (and d, laid out as c) by `mode`, an EPILOGUE value; A is
   * GELU's constant. On the 4 × 8 register tile; gemm3_ep and gemm6_ep on 3 × 12 and 6 × 8, the
   * same bits (gemm-tile.ts).
   */
  gemm_ep(...args: GemmEpArgs): void;
  gemm3_ep(...args: GemmEpArgs): void;
  gemm6_ep(...args: GemmEpArgs): void;
  /** Σ x² over n floats at x, one value at a time in order (f32): tfjs-backend-wasm's Square then Sum. */
  sumsq(x: number, n: number): number;
  adamw(
    w: number,
    g: number,
    m: number,
    v: number,
    wo: number,
    mo: number,
    vo: number,
    n: number,
    k: number,
  ): number;
  /** out = a + b over n floats (out may be a). */
  add(out: number, a: number, b: number, n: number): void;
  /** x[n] = wte[ids[n]] + wpe[pos[n]], rows of C floats, n < N (ids, pos int32). */
  embed(ids: number, pos: number, wte: number, wpe: number, x: number, N: number, C: number): void;
  /** rows × n floats from src to dst, rows ss and ds floats apart. */
  copy_rows(src: number, ss: number, dst: number, ds: number, rows: number, n: number): void;
}

/**
 * What kernels.wat's attention reads besides its operands' addresses: B batch elements of H heads
 * of hd floats, T queries over S keys, the scale of the scores, and the strides in floats.
 */
export interface AttnShape {
  B: number;
  T: number;
  S: number;
  H: number;
  hd: number;
  scale: number;
  /** Row stride of q, k, v in their tensors. */
  qs: number;
  ks: number;
  vs: number;
  /** Bias batch stride: T·S, or 0 for one bias shared by every row. */
  bbs: number;
}

/**
 * Attributes shared by both kernels (and the WGSL programs, attention-webgpu.ts): the shape, and
 * the column offset of q, k, v in their tensors, in floats.
 */
export interface Dims extends AttnShape {
  qo: number;
  ko: number;
  vo: number;
}

/** Where attention forward's operands lie: byte addresses on the backend heap. */
export interface AttnFwdAt {
  q: number;
  k: number;
  v: number;
  bias: number;
  /** Out: y (B·T, H·hd) and the probabilities p (B·H·T·S). */
  y: number;
  p: number;
}

/** Where attention backward's operands lie: byte addresses on the backend heap. */
export interface AttnBwdAt {
  q: number;
  k: number;
  v: number;
  /** The forward's probabilities and the gradient of its output. */
  p: number;
  dy: number;
  /** Out: the gradients of q, k and v (rows `gs` floats apart: attnBwdRows). */
  dq: number;
  dk: number;
  dv: number;
  /** Scratch: S + 2·T·S floats per part of a split (kernelParts). */
  tmp: number;
}
