/**
 * Where AdamW's moments live (optim.ts): per parameter, shaped as its variable (for tfjs's ops and
 * the wasm kernel), or flat over all parameters in model order (for the one WGSL dispatch,
 * kernels/adamw-webgpu.ts). The update that runs picks the layout, and a switch of kernels (a
 * backend change mid-run) moves the moments there, values unchanged. Kept apart from the update's
 * arithmetic: this is bookkeeping of tensors, and the moments' save and restore go through it.
 */
import * as tf from '@tensorflow/tfjs';
import { FlatAdamW } from './kernels/adamw-webgpu';

/** One parameter AdamW updates, and whether weight decay applies to it. */
export interface Param {
  variable: tf.Variable;
  decay: boolean;
}

/** The moments per parameter, shaped as its variable: for the plain ops and the wasm kernel. */
export interface PerParam {
  m: tf.Variable[];
  v: tf.Variable[];
}

export class AdamWMoments {
  private perParam: PerParam | null = null;
  private flat: FlatAdamW | null = null;

  /** Zero moments for `params`, flat when the one-dispatch update runs (`fused`), else per parameter. */
  constructor(
    private readonly params: readonly Param[],
    fused: boolean,
  ) {
    if (fused) this.flat = new FlatAdamW(params.map((s) => ({ size: s.variable.size, decay: s.decay })));
    else {
      // tidy frees the zerosLike tensors; the variables keep their own reference to the data.
      const zeros = () => params.map((s) => tf.tidy(() => tf.variable(tf.zerosLike(s.variable), false)));
      this.perParam = { m: zeros(), v: zeros() };
    }
  }

  /** The moments in the layout the update that runs needs, moved there if they are in the other. */
  layout(flat: boolean): PerParam | FlatAdamW {
    if (flat && !this.flat) {
      const { m, v } = this.perParam!;
      const join = (xs: tf.Variable[]) =>
        tf.tidy(() => tf.concat(xs.map((x) => tf.reshape(x, [-1]))) as tf.Tensor1D);
      this.flat = new FlatAdamW(
        this.params.map((s) => ({ size: s.variable.size, decay: s.decay })),
        join(m),
        join(v),
      );
      tf.dispose([...m, ...v]);
      this.perParam = null;
    } else if (!flat && !this.perParam) {
      const { m, v } = this.flat!;
      // tidy frees the parts; the variables keep their own reference to the data.
      const split = (x: tf.Tensor1D) =>
        tf.tidy(() =>
          tf
            .split(
              x,
              this.params.map((s) => s.variable.size),
            )
            .map((part, i) => tf.variable(tf.reshape(part, this.params[i].variable.shape), false)),
        );
      this.perParam = { m: split(m), v: split(v) };
      this.flat!.dispose();
      this.flat = null;
    }
    return this.flat ?? this.perParam!;
  }

  /** The first and second moments, in model order, in the layout they are in. */
  get current(): { m: tf.Tensor[]; v: tf.Tensor[] } {
    return this.flat ? { m: [this.flat.m], v: [this.flat.v] } : this.perParam!;
  }

  /** Replaces the moments with `m` and `v`, flattened in model order (sizes checked by the caller). */
  load(m: Float32Array, v: Float32Array): void {
    if (this.flat) this.flat.load(m, v);
    else {
      const per = this.perParam!;
      let offset = 0;
      tf.tidy(() => {
        this.params.forEach((s, i) => {
          const size = s.variable.size;
          per.m[i].assign(tf.tensor(m.subarray(offset, offset + size), s.variable.shape, 'float32'));
          per.v[i].assign(tf.tensor(v.subarray(offset, offset + size), s.variable.shape, 'float32'));
          offset += size;
        });
      });
    }
  }

  dispose(): void {
    this.flat?.dispose();
    if (this.perParam) tf.dispose([...this.perParam.m, ...this.perParam.v]);
  }
}
