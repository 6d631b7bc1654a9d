/**
 * How `auto` chooses among the backends that passed the sanity check, without tfjs: the budget,
 * the choice from measured step times, the cache key a measurement is kept under, and the words
 * the backend panel shows. backend.ts runs the sanity checks and measure.ts the timed steps; the
 * page keeps measurements in localStorage (ui/backend-cache.ts) and hands them to the worker.
 */
import type { Experiment } from '../core/config';
import { MODEL_PRESETS, type ModelPreset } from '../core/model-sizes';
import { modelSlots } from '../sizing/slots';
import type { AdapterInfo, ConcreteBackend, Measurement, Timing } from './backend-types';

/** All of `auto`'s timed steps together stay under this (≤ 3 s in all, docs/backends.md#compute-backends). */
export const AUTO_BUDGET_MS = 3000;

/** Bumped when what is timed changes, so that older cached figures are measured again. */
export const MEASUREMENT_VERSION = 1;

/**
 * The order candidates are timed in: wasm first, the dependable baseline whose step is short and
 * cannot stall on a driver, so it always has a figure; the GPUs get what is left of the budget.
 */
export const MEASURE_ORDER: readonly ConcreteBackend[] = ['wasm', 'webgpu', 'webgl'];

/** The model size `auto` times: the experiment's largest (it is the one whose steps dominate). */
export function timedPreset(exp: Experiment): ModelPreset {
  let slots: { preset: ModelPreset }[];
  try {
    slots = modelSlots(exp);
  } catch {
    slots = [{ preset: exp.models.preset }]; // an inconsistent config is refused when it starts
  }
  return slots.reduce<ModelPreset>(
    (a, s) => (MODEL_PRESETS.indexOf(s.preset) > MODEL_PRESETS.indexOf(a) ? s.preset : a),
    slots[0].preset,
  );
}

/** What identifies a device to time: the backend and, for a GPU, its adapter or renderer. */
export interface Candidate {
  backend: ConcreteBackend;
  adapter?: AdapterInfo;
  renderer?: string;
}

/**
 * The cache key: the version, the model size, and each candidate with its device, so that another
 * GPU, driver string or set of passing backends is measured afresh; wasm with its thread count
 * (threads.ts) past 1, since a step timed on 1 thread says nothing of 2 (1 thread keeps the plain
 * `wasm`, so measurements kept before threads existed stay valid).
 */
export function measurementKey(
  preset: ModelPreset,
  candidates: readonly Candidate[],
  wasmThreads = 1,
): string {
  const device = (c: Candidate) =>
    c.adapter
      ? `${c.backend}(${[c.adapter.vendor, c.adapter.architecture, c.adapter.device, c.adapter.description].join('/')})`
      : c.renderer
        ? `${c.backend}(${c.renderer})`
        : c.backend === 'wasm' && wasmThreads > 1
          ? `wasm(${wasmThreads} threads)`
          : c.backend;
  const sorted = [...candidates].sort((a, b) => a.backend.localeCompare(b.backend));
  return `v${MEASUREMENT_VERSION}|${preset}|${sorted.map(device).join('|')}`;
}

/**
 * The figure a timing is compared by: the timed step, or (no time was left for one) the warm-up
 * step, which includes compiles and so bounds the step from above.
 */
export const figureOf = (t: Timing): number | undefined => t.stepMs ?? t.warmupMs;

/**
 * The fastest candidate: the least timed step. A candidate timed only by its warm-up wins only if
 * even that upper bound beats every timed step, so compile time alone never decides against it
 * (nor for it). A candidate with no figure (over budget) is never chosen; if none has a figure,
 * the first in MEASURE_ORDER is kept (wasm), as the dependable one.
 */
export function chooseFastest(timings: readonly Timing[]): ConcreteBackend {
  if (timings.length === 0) throw new Error('no candidate to choose from');
  const timed = timings.filter((t) => t.stepMs !== undefined);
  const warmOnly = timings.filter((t) => t.stepMs === undefined && t.warmupMs !== undefined);
  const argmin = (ts: readonly Timing[]) => ts.reduce((a, b) => (figureOf(b)! < figureOf(a)! ? b : a));
  const bestTimed = timed.length ? argmin(timed) : undefined;
  const bestWarm = warmOnly.length ? argmin(warmOnly) : undefined;
  if (bestTimed && bestWarm)
    return figureOf(bestWarm)! < bestTimed.stepMs! ? bestWarm.backend : bestTimed.backend;
  const best = bestTimed ?? bestWarm;
  if (best) return best.backend;
  return [...timings].sort((a, b) => MEASURE_ORDER.indexOf(a.backend) - MEASURE_ORDER.indexOf(b.backend))[0]
    .backend;
}

/** "112 ms per small train step" or, for a warm-up-only figure, what it includes; or why there is none. */
export function describeTiming(t: Timing, preset: ModelPreset): string {
  if (t.stepMs !== undefined)
    return `${Math.round(t.stepMs)} ms per ${preset} train step (after a ${Math.round(t.warmupMs!)} ms warm-up step)`;
  if (t.warmupMs !== undefined)
    return `${Math.round(t.warmupMs)} ms for its first ${preset} train step, compiles included (no budget left to time a second)`;
  return t.note ?? 'not measured';
}

/** When a measurement was taken, as the panel says it: "cached, measured 2026-11-23 04:40". */
export function measuredWhen(m: Measurement): string {
  const at = new Date(m.at).toISOString().replace('T', ' ').slice(0, 16);
  return `${m.cached ? 'cached, ' : ''}measured ${at} UTC`;
}
