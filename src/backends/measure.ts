/**
 * How fast the active backend runs one train step of a model size (forward, backward, clipped
 * AdamW: the update the RL step runs), for `auto` (backend.ts). What is timed: a first step
 * (warm-up: shader compiles, kernel caches, first allocations), then, if the budget leaves room
 * for a second as long, that second step, which is the figure compared. Every step races the
 * budget that is left, so a stalled device cannot hang the start: a step still running when its
 * time is up is left to finish unseen (its model is freed when it does) and gives no figure.
 */
import { gptConfig } from '../core/gpt-config';
import { GPT } from '../model/gpt';
import type { ModelPreset } from '../core/model-sizes';
import { disposeBatch, packRows, toTensors } from '../model/logprobs';
import { AdamW } from '../model/optim';
import { supervisedStep } from '../model/warmstart';
import type { ConcreteBackend, Timing } from './backend-types';

/**
 * Tokens in the timed batch: rows of a full context each (prompt half, response half), 4 rows of
 * nano or small, 2 of base. Far fewer than an RL step trains on, which favours wasm over a GPU;
 * more would not leave room in the budget for two steps on two backends on 2 cores.
 */
const MEASURE_TOKENS = 256;

const LATE = Symbol('late');

/** `p`, or LATE if it has not settled within `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>(
    (resolve) => (timer = setTimeout(() => resolve(LATE), Math.max(0, ms))),
  );
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Times up to two train steps of `preset` on the active backend within `budgetMs`; leaves no tensors behind. */
export async function timeTrainStep(
  backend: ConcreteBackend,
  preset: ModelPreset,
  budgetMs: number,
): Promise<Timing> {
  const t0 = performance.now();
  const cfg = gptConfig(preset);
  const model = GPT.create(cfg, 1);
  const opt = new AdamW(model, { lr: 1e-4 });
  const half = cfg.contextLength / 2;
  const tokens = (r: number, n: number) =>
    Array.from({ length: n }, (_, i) => 5 + ((r * 7 + i * 3) % (cfg.vocabSize - 5)));
  const nRows = Math.max(1, Math.round(MEASURE_TOKENS / cfg.contextLength));
  const rows = Array.from({ length: nRows }, (_, r) => ({
    prompt: tokens(r, half),
    response: tokens(r + 1, half),
  }));
  const batch = toTensors(
    packRows(rows, { contextLength: cfg.contextLength, vocabSize: cfg.vocabSize, pad: 0 }),
  );
  const free = () => {
    disposeBatch(batch);
    opt.dispose();
    model.dispose();
  };
  const left = () => budgetMs - (performance.now() - t0);
  /** One step's wall ms, or undefined if it outlasted the budget (then it frees the model when it ends). */
  const step = async (): Promise<number | undefined> => {
    const s0 = performance.now();
    const running = supervisedStep(model, opt, batch);
    if ((await within(running, left())) === LATE) {
      void running.then(free, free);
      return undefined;
    }
    return performance.now() - s0;
  };

  const warmupMs = await step();
  if (warmupMs === undefined)
    return {
      backend,
      note: `its first step did not finish within the ${Math.round(budgetMs)} ms left of the budget`,
    };
  // A second step is started only if one as long as the warm-up still fits.
  if (warmupMs > left()) {
    free();
    return { backend, warmupMs };
  }
  const stepMs = await step();
  if (stepMs === undefined) return { backend, warmupMs }; // still running: it frees the model when it ends
  free();
  return { backend, warmupMs, stepMs };
}
