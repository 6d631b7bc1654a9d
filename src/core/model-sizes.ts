/**
 * The named model sizes, the one table read by the config's `models.preset` / `models.perAgent`
 * enums and by gpt-config.ts, which adds the vocabulary size. Plain numbers: no tfjs.
 */

/** Architecture hyper-parameters of a policy GPT, vocabulary aside. */
export interface ModelSize {
  /** Longest sequence (prompt + response) the position table covers. */
  contextLength: number;
  dModel: number;
  nLayers: number;
  /** dModel / nHeads is the head size; keep it a multiple of 4 (WebGPU vec4 matmuls, docs/backends.md#readbacks-and-shape-buckets). */
  nHeads: number;
  /** Hidden width of the MLP, 4 × dModel as in GPT-2. */
  dMlp: number;
}

/** `small` is the benchmark workload of docs/figures.md#the-benchmark-workload (context 64). */
export const MODEL_SIZES = {
  /** ~0.11M parameters: tests and quick demos. */
  nano: { contextLength: 64, dModel: 64, nLayers: 2, nHeads: 2, dMlp: 256 },
  /** ~0.41M parameters. Tasks needing 128 positions override contextLength (+8K params). */
  small: { contextLength: 64, dModel: 128, nLayers: 2, nHeads: 4, dMlp: 512 },
  /** ~1.57M parameters. */
  base: { contextLength: 128, dModel: 160, nLayers: 5, nHeads: 5, dMlp: 640 },
} as const satisfies Record<string, ModelSize>;

export type ModelPreset = keyof typeof MODEL_SIZES;
/** The names in table order, as z.enum takes them. */
export const MODEL_PRESETS = Object.keys(MODEL_SIZES) as [ModelPreset, ...ModelPreset[]];
