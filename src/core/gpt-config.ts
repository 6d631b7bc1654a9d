/**
 * The policy GPT's architecture as plain numbers: its config (a named size over the lab
 * vocabulary), the limits a file's header is checked against, and every parameter's name and
 * shape. No tfjs, so the page can size a config (sizing/memory.ts) without loading the model.
 */
import { MODEL_SIZES, type ModelPreset, type ModelSize } from './model-sizes';
import { VOCAB } from './vocab';
import { lookup } from './registry';
import { shown } from './signed-file';

/** Architecture hyper-parameters: a named size (core/model-sizes.ts) over the lab vocabulary. */
export interface GPTConfig extends ModelSize {
  /** Token ids are 0..vocabSize-1 (the lab's VOCAB). */
  vocabSize: number;
}

/** A preset's config over the lab vocabulary, with optional overrides (e.g. contextLength: 128). */
export function gptConfig(preset: ModelPreset, overrides: Partial<GPTConfig> = {}): GPTConfig {
  const base = lookup(MODEL_SIZES, 'model preset', preset);
  const cfg: GPTConfig = { vocabSize: VOCAB.length, ...base, ...overrides };
  checkGptConfig(cfg);
  return cfg;
}

/**
 * The largest architecture the lab will build or read: far above the presets, far below what
 * would exhaust memory. A file's header is checked against these before anything is sized from it
 * (a 2 KB checkpoint claiming nLayers 3e7 would otherwise build 3e8 parameter specs).
 */
const GPT_LIMITS: Readonly<ModelSize> = {
  contextLength: 1024,
  dModel: 1024,
  nLayers: 48,
  nHeads: 32,
  dMlp: 4096,
};

/** Throws, naming the field, unless every size is a positive integer within GPT_LIMITS and heads divide dModel. */
export function checkGptConfig(cfg: GPTConfig): void {
  if (typeof cfg !== 'object' || cfg === null) throw new Error('model config is missing');
  for (const k of ['vocabSize', ...Object.keys(GPT_LIMITS)] as (keyof GPTConfig)[]) {
    const v = cfg[k];
    if (!Number.isInteger(v) || v <= 0)
      throw new Error(`model config ${k} must be a positive integer, got ${shown(v)}`);
    const max = (GPT_LIMITS as Partial<GPTConfig>)[k];
    if (max !== undefined && v > max)
      throw new Error(`model config ${k} is ${v}; this lab builds at most ${max}`);
  }
  if (cfg.dModel % cfg.nHeads !== 0)
    throw new Error(`dModel ${cfg.dModel} is not divisible by nHeads ${cfg.nHeads}`);
}

/** One named parameter: shape, how it is initialised, whether AdamW decays it. */
export interface ParamSpec {
  name: string;
  shape: number[];
  init: 'normal' | 'proj' | 'zeros' | 'ones';
  /** Matrices and embeddings decay; biases and LayerNorm gains don't (nanoGPT's split). */
  decay: boolean;
}

/** Every parameter in a fixed order (init order, checkpoint order). */
export function paramSpecs(cfg: GPTConfig): ParamSpec[] {
  const { vocabSize: V, contextLength: P, dModel: C, dMlp: M } = cfg;
  const w = (name: string, shape: number[], init: ParamSpec['init'] = 'normal'): ParamSpec => ({
    name,
    shape,
    init,
    decay: true,
  });
  const b = (name: string, n: number, init: ParamSpec['init'] = 'zeros'): ParamSpec => ({
    name,
    shape: [n],
    init,
    decay: false,
  });
  const specs = [w('wte', [V, C]), w('wpe', [P, C])];
  for (let l = 0; l < cfg.nLayers; l++) {
    const h = `h${l}.`;
    specs.push(b(h + 'ln1.g', C, 'ones'), b(h + 'ln1.b', C));
    specs.push(w(h + 'attn.wqkv', [C, 3 * C]), b(h + 'attn.bqkv', 3 * C));
    specs.push(w(h + 'attn.wo', [C, C], 'proj'), b(h + 'attn.bo', C));
    specs.push(b(h + 'ln2.g', C, 'ones'), b(h + 'ln2.b', C));
    specs.push(w(h + 'mlp.w1', [C, M]), b(h + 'mlp.b1', M));
    specs.push(w(h + 'mlp.w2', [M, C], 'proj'), b(h + 'mlp.b2', C));
  }
  specs.push(b('lnf.g', C, 'ones'), b('lnf.b', C));
  return specs;
}
