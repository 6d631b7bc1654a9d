/**
 * AdamW (decoupled weight decay, Loshchilov & Hutter 2019) and global-norm clipping, hand-rolled:
 * tfjs 4.22 has neither (docs/estimators.md#clipping-and-adamw). θ ← θ·(1 − lr·wd) − lr·m̂/(√v̂ + ε), decay only on
 * matrices and embeddings (ParamSpec.decay). One optimizer per model. lr and clipNorm are read at
 * every step from where the optimizer was told to find them: a run's optimizers read the run's
 * settings (train/models.ts), so a live change there is the next step's value, with no copy here
 * to keep in sync. Owns its moments (adamw-moments.ts: where they live) until dispose(); the
 * global-norm clip it applies is grad-norm.ts's.
 */
import * as tf from '@tensorflow/tfjs';
import type { GPT } from './gpt';
import { AdamWMoments, type PerParam, type Param } from './adamw-moments';
import { clipCoefOnDevice, globalNorm, sumAll } from './grad-norm';
import { FlatAdamW, fusedAdamWAvailable, type AdamWConstants } from './kernels/adamw-webgpu';
import { adamWStepWasm, wasmAdamWAvailable } from './kernels/adamw-wasm';

/** A hyper-parameter that may change between steps: its value, or a getter read at every step. */
type PerStep = number | (() => number);

interface AdamWOptions {
  lr: PerStep;
  beta1?: number; // 0.9
  beta2?: number; // 0.999
  eps?: number; // 1e-8
  weightDecay?: number; // 0.01
  /** Global-norm clip threshold; Infinity turns clipping off. Default 1. */
  clipNorm?: PerStep;
}

const getter = (x: PerStep): (() => number) => (typeof x === 'number' ? () => x : x);

/** What AdamW carries between steps besides the weights. */
export interface AdamWState {
  step: number;
  m: Float32Array;
  v: Float32Array;
}

/** An update computed by AdamW.stage, not yet assigned. */
export interface StagedUpdate {
  /** 0 when every new weight and moment is finite; non-zero or NaN otherwise. */
  bad: tf.Scalar;
  /** Assigns the new weights and moments and counts the step. */
  commit(): void;
  /** Frees the new values (after commit too). */
  dispose(): void;
}

export class AdamW {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Where lr and clipNorm are read, at each step (AdamWOptions). */
  private lrOf: () => number;
  private clipNormOf: () => number;
  /** Updates applied so far (skipped steps don't count); drives the bias correction. */
  step = 0;
  private readonly params: Param[];
  /**
   * The moments, in one of two layouts: per parameter, or flat over all of them for the one WGSL
   * dispatch (adamw-webgpu.ts). The update that runs picks it; a switch of kernels moves them.
   */
  private readonly store: AdamWMoments;

  constructor(model: GPT, opts: AdamWOptions) {
    this.lrOf = getter(opts.lr);
    this.beta1 = opts.beta1 ?? 0.9;
    this.beta2 = opts.beta2 ?? 0.999;
    this.eps = opts.eps ?? 1e-8;
    this.weightDecay = opts.weightDecay ?? 0.01;
    this.clipNormOf = getter(opts.clipNorm ?? 1);
    this.params = model.specs.map((spec) => ({ variable: model.params.get(spec.name)!, decay: spec.decay }));
    // The moments exist from the start, so tf.memory().numTensors is the same before and after step 1.
    this.store = new AdamWMoments(this.params, this.fused);
  }

  /** The learning rate the next step takes. */
  get lr(): number {
    return this.lrOf();
  }
  /** Fixes the learning rate from now on, in place of where it was read (an optimizer of its own, not a run's). */
  set lr(lr: number) {
    this.lrOf = getter(lr);
  }

  /** The global-norm clip threshold the next step takes. */
  get clipNorm(): number {
    return this.clipNormOf();
  }

  /** Whether the one-dispatch update runs (adamw-webgpu.ts). */
  private get fused(): boolean {
    return fusedAdamWAvailable(this.params.reduce((a, s) => a + s.variable.size, 0));
  }

  /** The variables this optimizer updates, in model order. */
  get variables(): tf.Variable[] {
    return this.params.map((s) => s.variable);
  }

  /**
   * One AdamW update from grads keyed by variable name, each multiplied by `scale` first (the clip
   * coefficient, a number or a device scalar). A variable without a gradient is left alone, moments
   * included. Grads stay the caller's. Returns whether it was applied; see stage.
   */
  async apply(grads: tf.NamedTensorMap, scale: number | tf.Scalar = 1): Promise<boolean> {
    const staged = this.stage(grads, scale);
    try {
      const finite = (await staged.bad.data())[0] === 0;
      if (finite) staged.commit();
      return finite;
    } finally {
      staged.dispose();
    }
  }

  /**
   * Computes the update without assigning it. `bad` is 0 exactly when every new weight and second
   * moment is finite (a non-finite first moment always makes its weight non-finite): a finite
   * gradient can still overflow v = β₂v + (1−β₂)g² or a weight. The caller reads `bad` back — in
   * the same readback as the loss (update.ts) — and commits only when it is 0: otherwise nothing
   * is assigned and the step count stays, so the update is rolled back. On webgpu the one dispatch
   * sets `bad` to 1 where θ or v is not finite; on wasm the one AdamW kernel returns
   * Σ 0·x over every new θ, m, v; elsewhere it is Σ 0·x over the new θ and v. Either is NaN or
   * non-zero exactly when a value is not finite.
   */
  stage(grads: tf.NamedTensorMap, scale: number | tf.Scalar = 1): StagedUpdate {
    const moments = this.store.layout(this.fused);
    if (moments instanceof FlatAdamW) {
      const c = typeof scale === 'number' ? tf.scalar(scale) : scale;
      const staged = this.stageFlat(moments, grads, c);
      if (c !== scale) c.dispose(); // its buffer stays until the commands that read it are submitted
      return staged;
    }
    return this.stagePerParam(moments, grads, scale);
  }

  /**
   * stage, clipped to global norm `clipNorm` on the device, and that norm (‖g‖ over `grads`, before
   * clipping): nothing is read back. With webgpu's one-dispatch update, one workgroup sums g² and
   * computes the clip coefficient, then the update runs: 2 dispatches. Elsewhere globalNorm,
   * clipCoefOnDevice and stage.
   */
  stageClipped(grads: tf.NamedTensorMap): StagedUpdate & { norm: tf.Scalar } {
    const moments = this.store.layout(this.fused);
    if (moments instanceof FlatAdamW)
      return this.stageFlat(moments, grads, { clipNorm: this.clipNorm }) as StagedUpdate & {
        norm: tf.Scalar;
      };
    const norm = globalNorm(Object.values(grads));
    const coef = clipCoefOnDevice(norm, this.clipNorm);
    const staged = this.stagePerParam(moments, grads, coef);
    coef.dispose();
    return { ...staged, norm, dispose: () => (staged.dispose(), norm.dispose()) };
  }

  /**
   * The next step's constants as the kernels take them; `keep` is a decayed parameter's. The one
   * place a step reads lr, so every parameter of a step takes the same value.
   */
  private constants(): Omit<AdamWConstants, 'scale'> & { step: number } {
    const { beta1, beta2, lr, eps } = this;
    const step = this.step + 1;
    const keep = this.weightDecay > 0 ? 1 - lr * this.weightDecay : 1;
    return { step, beta1, beta2, lr, eps, keep, bc1: 1 - beta1 ** step, bc2: 1 - beta2 ** step };
  }

  /** The one-dispatch update (adamw-webgpu.ts): commit assigns its new θ and makes its moments current. */
  private stageFlat(
    flat: FlatAdamW,
    grads: tf.NamedTensorMap,
    c: tf.Scalar | { clipNorm: number },
  ): StagedUpdate & { norm: tf.Scalar | null } {
    const k = this.constants();
    const staged = flat.stage(
      this.variables,
      this.params.map((s) => grads[s.variable.name]),
      c,
      k,
    );
    const commit = () => {
      staged.thetas.forEach((w, i) => w && this.params[i].variable.assign(w));
      staged.commit();
      this.step = k.step;
    };
    return { bad: staged.bad, norm: staged.norm, commit, dispose: staged.dispose };
  }

  /** The update per parameter: wasm's one kernel for all of them, or tfjs's ops. */
  private stagePerParam(
    moments: PerParam,
    grads: tf.NamedTensorMap,
    scale: number | tf.Scalar,
  ): StagedUpdate {
    const k = this.constants();
    const next: { i: number; w: tf.Tensor; m: tf.Tensor; v: tf.Tensor }[] = [];
    const given = this.params.flatMap((param, i) => {
      const g = grads[param.variable.name];
      return g ? [{ i, param, g }] : [];
    });
    let bad: tf.Scalar;
    // The wasm kernel takes the clip coefficient as a number (update.ts reads the norm back first there).
    if (typeof scale === 'number' && wasmAdamWAvailable() && given.length > 0) {
      // One kernel: every parameter's new values and their finiteness check (Σ 0·x over θ, m, v) together.
      const step = adamWStepWasm(
        given.map(({ i, param, g }) => ({
          theta: param.variable,
          g,
          m: moments.m[i],
          v: moments.v[i],
          keep: param.decay ? k.keep : 1,
        })),
        { ...k, scale },
      );
      step.next.forEach(([m, v, w], j) =>
        next.push({ i: given[j].i, w: tf.keep(w), m: tf.keep(m), v: tf.keep(v) }),
      );
      bad = step.bad;
    } else
      bad = tf.tidy(() => {
        const c = typeof scale === 'number' ? (scale === 1 ? null : tf.scalar(scale)) : scale;
        const checked: tf.Tensor[] = [];
        for (const { i, param, g } of given) {
          const [m, v, w] = this.plainStep(param, g, moments.m[i], moments.v[i], c, k);
          next.push({ i, w: tf.keep(w), m: tf.keep(m), v: tf.keep(v) });
          checked.push(tf.sum(tf.mul(w, 0)), tf.sum(tf.mul(v, 0)));
        }
        return checked.length ? (tf.reshape(sumAll(checked), []) as tf.Scalar) : tf.scalar(0);
      });
    const dispose = () => {
      bad.dispose();
      for (const { w, m, v } of next) tf.dispose([w, m, v]);
      next.length = 0;
    };
    const commit = () => {
      for (const { i, w, m, v } of next) {
        this.params[i].variable.assign(w);
        moments.m[i].assign(m);
        moments.v[i].assign(v);
      }
      this.step = k.step;
    };
    return { bad, commit, dispose };
  }

  /** The update in plain tfjs ops (every backend but webgpu): new [m, v, θ]. */
  private plainStep(
    param: Param,
    g: tf.Tensor,
    m0: tf.Tensor,
    v0: tf.Tensor,
    scale: tf.Scalar | null,
    k: Pick<AdamWConstants, 'lr' | 'bc1' | 'bc2'>,
  ): [tf.Tensor, tf.Tensor, tf.Tensor] {
    const { beta1: b1, beta2: b2 } = this;
    const { lr, bc1, bc2 } = k;
    const gs = scale === null ? g : tf.mul(g, scale);
    const m = tf.add(tf.mul(m0, b1), tf.mul(gs, 1 - b1));
    const v = tf.add(tf.mul(v0, b2), tf.mul(tf.square(gs), 1 - b2));
    const update = tf.div(tf.div(m, bc1), tf.add(tf.sqrt(tf.div(v, bc2)), this.eps));
    const decayed =
      param.decay && this.weightDecay > 0
        ? tf.mul(param.variable, 1 - lr * this.weightDecay)
        : param.variable;
    return [m, v, tf.sub(decayed, tf.mul(update, lr))];
  }

  /** The first and second moments, in model order: with `step`, what loadState restores. */
  get moments(): { m: tf.Tensor[]; v: tf.Tensor[] } {
    return this.store.current;
  }

  /**
   * Restores the moments (flattened in model order) and step of a saved run, which then goes on
   * bit for bit; the sizes must match this optimizer's variables.
   */
  loadState(state: AdamWState): void {
    const n = this.params.reduce((a, s) => a + s.variable.size, 0);
    if (state.m.length !== n || state.v.length !== n) {
      throw new Error(
        `optimizer state holds ${state.m.length}/${state.v.length} moments; this model has ${n} parameters`,
      );
    }
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new Error(`optimizer step must be an integer ≥ 0, got ${state.step}`);
    this.store.load(state.m, state.v);
    this.step = state.step;
  }

  dispose(): void {
    this.store.dispose();
  }
}
