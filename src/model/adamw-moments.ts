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
export interface Slot {
  variable: tf.Variable;
  decay: boolean;
}

/** The moments per parameter, shaped as its variable: for the plain ops and the wasm kernel. */
export interface PerSlot {
  m: tf.Variable[];
  v: tf.Variable[];
}

export class AdamWMoments {
  private perSlot: PerSlot | null = null;
  private flat: FlatAdamW | null = null;

  /** Zero moments for `slots`, flat when the one-dispatch update runs (`fused`), else per slot. */
  constructor(
    private readonly slots: readonly Slot[],
    fused: boolean,
  ) {
    if (fused) this.flat = new FlatAdamW(slots.map((s) => ({ size: s.variable.size, decay: s.decay })));
    else {
      // tidy frees the zerosLike tensors; the variables keep their own reference to the data.
      const zeros = () => slots.map((s) => tf.tidy(() => tf.variable(tf.zerosLike(s.variable), false)));
      this.perSlot = { m: zeros(), v: zeros() };
    }
  }

  /** The moments in the layout the update that runs needs, moved there if they are in the other. */
  layout(flat: boolean): PerSlot | FlatAdamW {
    if (flat && !this.flat) {
      const { m, v } = this.perSlot!;
      const join = (xs: tf.Variable[]) =>
        tf.tidy(() => tf.concat(xs.map((x) => tf.reshape(x, [-1]))) as tf.Tensor1D);
      this.flat = new FlatAdamW(
        this.slots.map((s) => ({ size: s.variable.size, decay: s.decay })),
        join(m),
        join(v),
      );
      tf.dispose([...m, ...v]);
      this.perSlot = null;
    } else if (!flat && !this.perSlot) {
      const { m, v } = this.flat!;
      // tidy frees the parts; the variables keep their own reference to the data.
      const split = (x: tf.Tensor1D) =>
        tf.tidy(() =>
          tf
            .split(
              x,
              this.slots.map((s) => s.variable.size),
            )
            .map((part, i) => tf.variable(tf.reshape(part, this.slots[i].variable.shape), false)),
        );
      this.perSlot = { m: split(m), v: split(v) };
      this.flat!.dispose();
      this.flat = null;
    }
    return this.flat ?? this.perSlot!;
  }

  /** The first and second moments, in model order, in the layout they are in. */
  get current(): { m: tf.Tensor[]; v: tf.Tensor[] } {
    return this.flat ? { m: [this.flat.m], v: [this.flat.v] } : this.perSlot!;
  }

  /** Replaces the moments with `m` and `v`, flattened in model order (sizes checked by the caller). */
  load(m: Float32Array, v: Float32Array): void {
    if (this.flat) this.flat.load(m, v);
    else {
      const per = this.perSlot!;
      let offset = 0;
      tf.tidy(() => {
        this.slots.forEach((s, i) => {
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
    if (this.perSlot) tf.dispose([...this.perSlot.m, ...this.perSlot.v]);
  }
}
