/**
 * A config's memory, estimated before anything is built, so that a config that cannot run is
 * refused up front ("needs about X GB") instead of dying a minute in with an opaque wasm error.
 *
 * The update dominates: one model's forward and backward over all the rows its agents wrote in a
 * step (B · G · the task's call limit, an upper bound, over the mini-batches), each padded to the
 * longest context. Per row and position, float32, what the backward keeps per layer: LayerNorm
 * inputs and outputs, q/k/v, attention output and projection, the MLP's two hidden activations
 * (≈ 10·C + 2·M), and the attention scores and probabilities (2·H·T); then the logits, their
 * log-softmax and gradient (3·V). Parameters count 6× (weights, AdamW m and v, gradients, their
 * sum, the KL reference). A fixed base covers Node, tfjs and the wasm module.
 *
 * The limit is the wasm backend's heap: the CLI and the page refuse a config over it with one
 * message (`memoryVerdict`). No tfjs: the page computes it in its main bundle.
 */
import type { Experiment } from '../core/config';
import type { BackendName } from '../core/config-names';
import { gptConfig, paramSpecs } from '../core/gpt-config';
import { taskOf } from '../tasks/registry';
import { MAX_CONTEXT } from '../core/vocab';
import { modelSlots } from './slots';

/** Node, tfjs and the wasm module before any model (measured: 0.3 GB RSS). */
const BASE_BYTES = 0.3e9;
/** The wasm backend's heap is 32-bit: beyond this it fails ("table index is out of bounds"). */
export const WASM_LIMIT_BYTES = 4e9;

interface MemoryEstimate {
  bytes: number;
  /** The update's activations of the largest model, bytes. */
  activations: number;
  /** Parameters and their optimizer state over all models, bytes. */
  parameters: number;
}

export function estimateMemory(exp: Experiment): MemoryEstimate {
  const task = taskOf(exp);
  const slots = modelSlots(exp);
  const miniBatches = Math.max(exp.optim.miniBatches, ...exp.runs.map((r) => r.optim.miniBatches ?? 1));
  // Rows per instance, the most of any run: G rollouts of at most maxCalls calls, or a search tree's
  // nodes under mcts (where G is not used, so it must not refuse an all-mcts experiment).
  const samplings = exp.runs.length
    ? exp.runs.map((r) => r.rollout.sampling ?? exp.rollout.sampling)
    : [exp.rollout.sampling];
  const perInstance = Math.max(
    ...samplings.map((s) => (s === 'mcts' ? exp.rollout.nodes : exp.rollout.groupSize * task.maxCalls)),
  );
  const rows = Math.ceil((exp.rollout.batchSize * perInstance) / miniBatches);
  let activations = 0;
  let parameters = 0;
  for (const slot of slots) {
    const cfg = gptConfig(slot.preset, { contextLength: MAX_CONTEXT });
    const n = paramSpecs(cfg).reduce((a, s) => a + s.shape.reduce((x, d) => x * d, 1), 0);
    parameters += 6 * 4 * n;
    const { dModel: C, dMlp: M, nHeads: H, nLayers: L, vocabSize: V } = cfg;
    const T = MAX_CONTEXT;
    const perToken = L * (10 * C + 2 * M + 2 * H * T) + 3 * V + 2 * C;
    activations = Math.max(activations, 4 * rows * T * perToken);
  }
  return { bytes: BASE_BYTES + parameters + activations, activations, parameters };
}

export const gb = (bytes: number): string => `${(bytes / 1e9).toFixed(bytes < 1e9 ? 2 : 1)} GB`;

/** Backends bound by the wasm heap: wasm and cpu, and auto, which may fall back to them. */
const WASM_BOUND: readonly BackendName[] = ['wasm', 'cpu', 'auto'];

/** Why `backend` cannot run `exp` (its memory estimate is over the backend's limit), or null if it can. */
function memoryRefusal(estimate: MemoryEstimate, backend: BackendName): string | null {
  if (estimate.bytes <= WASM_LIMIT_BYTES || !WASM_BOUND.includes(backend)) return null;
  return (
    `this experiment needs about ${gb(estimate.bytes)} (estimate: the update's activations of its largest model over B·G rows), ` +
    `over the ${gb(WASM_LIMIT_BYTES)} the wasm backend can address; lower rollout.batchSize, rollout.groupSize or the model size, or raise optim.miniBatches`
  );
}

/**
 * The one memory check the CLI, Train's blockers, the Experiment panel and a session's start
 * share: the estimate and, over `backend`'s limit, why it is refused (each caller words the rest).
 * A config whose estimate cannot be made (an unknown task or model) gives the error instead.
 */
type MemoryVerdict =
  { estimate: MemoryEstimate; refused: string | null; error?: undefined } | { error: Error };

export function memoryVerdict(exp: Experiment, backend: BackendName): MemoryVerdict {
  let estimate: MemoryEstimate;
  try {
    estimate = estimateMemory(exp);
  } catch (e) {
    return { error: e as Error };
  }
  return { estimate, refused: memoryRefusal(estimate, backend) };
}
