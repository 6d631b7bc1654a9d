/**
 * Backend selection. `auto` sanity-checks hardware WebGPU, hardware WebGL and WASM against the
 * CPU backend and, of those that pass, keeps the fastest by a timed train step of the experiment's
 * model size (measure.ts, all within AUTO_BUDGET_MS; the rules of the choice are auto-choice.ts).
 * A measurement is reused when the caller has one for the same devices and size (the page keeps
 * them per adapter). CPU is the last resort, used only when nothing else passes. Software adapters
 * (WebGPU `isFallbackAdapter`, SwiftShader, llvmpipe) are 15–30× slower than WASM (docs/backends.md#software-adapters;
 * one step takes seconds, which would spend the budget), so `auto` skips them untimed; asking
 * for a backend by name uses it anyway.
 * An explicit choice that cannot run is refused with the reason, never silently replaced.
 * Environment specifics (how to probe a GPU, how to load a backend module) come in a `Platform`,
 * so the browser worker and Node share this logic.
 */
import type * as TF from '@tensorflow/tfjs';
import type { BackendName } from '../core/config-names';
import type { ModelPreset } from '../core/model-sizes';
import {
  AUTO_BUDGET_MS,
  MEASURE_ORDER,
  MEASUREMENT_VERSION,
  chooseFastest,
  describeTiming,
  figureOf,
  measuredWhen,
  measurementKey,
} from './auto-choice';
import type { Candidate } from './auto-choice';
import type {
  BackendAttempt,
  BackendReport,
  ConcreteBackend,
  DeviceProbe,
  Measurement,
  Timing,
} from './backend-types';
import { timeTrainStep } from './measure';
import { SANITY_TOLERANCE, maxRelativeDiff, sanityStep } from './sanity';
import { SANITY_REFERENCE } from './sanity-reference';

const AUTO_ORDER: readonly ConcreteBackend[] = ['webgpu', 'webgl', 'wasm', 'cpu'];

export interface Platform {
  /** Probes a device without creating a tfjs backend (adapter info, renderer string). */
  probe(backend: ConcreteBackend): Promise<DeviceProbe>;
  /** Imports and registers the backend's tfjs module, if it is not in @tensorflow/tfjs itself. */
  load(backend: ConcreteBackend): Promise<void>;
}

/** How `auto` measures; an explicit backend ignores these. */
interface AutoOptions {
  /** The model size to time (default nano): auto-choice.ts timedPreset of the experiment. */
  preset?: ModelPreset;
  /** All timed steps together stay under this (default AUTO_BUDGET_MS). */
  budgetMs?: number;
  /** A measurement kept from before under this key (the page's cache), reused instead of timing. */
  cached?: (key: string) => Measurement | undefined;
  /**
   * Time a sole candidate too, to show its figure (the browser, which caches it). Without it a sole
   * candidate is used untimed: Node has only wasm unless a Dawn shim is installed.
   */
  timeAlone?: boolean;
  /** The wasm backend's threads (threads.ts; 1 in Node): part of the cache key, as they change wasm's step time. */
  wasmThreads?: number;
  /** Sanity-check and time software adapters too, instead of skipping them (the browser test that SwiftShader loses to wasm). */
  timeSoftware?: boolean;
}

const SOFTWARE_RE = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render/i;

/** True for an adapter or renderer string that names a software rasterizer. */
export function isSoftware(text: string): boolean {
  return SOFTWARE_RE.test(text);
}

const check = (maxDiff: number) => `max |Δ| vs cpu ${maxDiff.toExponential(2)}`;

/** Picks and activates a backend for `requested`; see the file comment for the rules. */
export async function selectBackend(
  tf: typeof TF,
  requested: BackendName,
  platform: Platform,
  opts: AutoOptions = {},
): Promise<BackendReport> {
  const report: BackendReport = { requested, backend: null, attempts: [] };
  const auto = requested === 'auto';

  // The CPU result is the reference every candidate must reproduce (computed once: sanity-reference.ts).
  await tf.setBackend('cpu');
  const reference = SANITY_REFERENCE;

  /** Backends that passed the sanity check, with their attempt (its reason is written once chosen). */
  const passed: (Candidate & { attempt: BackendAttempt; soft: string })[] = [];
  for (const backend of auto ? AUTO_ORDER : [requested]) {
    // cpu is the reference and auto's last resort: wasm runs the same ops several times faster.
    if (auto && backend === 'cpu' && passed.length > 0) break;
    const t0 = performance.now();
    const attempt = (ok: boolean, reason: string, maxDiff?: number): BackendAttempt => ({
      backend,
      ok,
      reason,
      ms: Math.round(performance.now() - t0),
      ...(maxDiff === undefined ? {} : { maxDiff }),
    });

    const probe = await platform.probe(backend);
    if (probe.adapter && !report.adapter) report.adapter = probe.adapter;
    if (probe.renderer && !report.renderer) report.renderer = probe.renderer;
    if (!probe.available) {
      report.attempts.push(attempt(false, probe.reason ?? 'not available here'));
      continue;
    }
    if (probe.software && auto && !opts.timeSoftware) {
      report.attempts.push(
        attempt(
          false,
          `${probe.reason ?? 'software device'}: slower than WASM, so auto skips it untimed (one step takes seconds; ask for ${backend} to use it)`,
        ),
      );
      continue;
    }

    let maxDiff: number;
    try {
      await platform.load(backend);
      if (!(await tf.setBackend(backend))) throw new Error('tfjs could not initialize it');
      await tf.ready();
      maxDiff = maxRelativeDiff(await sanityStep(), reference);
    } catch (e) {
      report.attempts.push(attempt(false, `failed to start: ${(e as Error).message}`));
      await tf.setBackend('cpu');
      continue;
    }
    const tol = SANITY_TOLERANCE[backend];
    if (!(maxDiff <= tol)) {
      report.attempts.push(
        attempt(false, `sanity check failed: max |Δ| ${maxDiff.toExponential(2)} > ${tol} vs cpu`, maxDiff),
      );
      await tf.setBackend('cpu');
      continue;
    }
    const soft = probe.software ? ` (${probe.reason ?? 'software device'})` : '';
    const a = attempt(true, `passed the sanity check${soft}; ${check(maxDiff)}`, maxDiff);
    report.attempts.push(a);
    passed.push({
      backend,
      attempt: a,
      soft,
      ...(backend === 'webgpu' && probe.adapter ? { adapter: probe.adapter } : {}),
      ...(probe.renderer ? { renderer: probe.renderer } : {}),
    });
  }
  if (passed.length === 0) {
    // Nothing passed: an explicit request is refused rather than silently replaced.
    await tf.setBackend('cpu');
    return report;
  }

  const chosen = auto ? await chooseAmong(tf, passed, opts) : { backend: requested as ConcreteBackend };
  if (chosen.measurement) report.measurement = chosen.measurement;
  for (const p of passed) {
    const { attempt, backend, soft } = p;
    attempt.ok = backend === chosen.backend;
    attempt.reason = `${reasonFor(p, chosen, requested)}${soft}; ${check(attempt.maxDiff!)}`;
  }
  report.backend = chosen.backend;
  await tf.setBackend(chosen.backend);
  return report;
}

/** `auto` among the candidates that passed: the cached measurement, a fresh one, or the sole candidate untimed. */
async function chooseAmong(
  tf: typeof TF,
  passed: readonly Candidate[],
  opts: AutoOptions,
): Promise<{ backend: ConcreteBackend; measurement?: Measurement }> {
  if (passed.length === 1 && (passed[0].backend === 'cpu' || !opts.timeAlone))
    return { backend: passed[0].backend };
  const preset = opts.preset ?? 'nano';
  const key = measurementKey(preset, passed, opts.wasmThreads);
  const kept = opts.cached?.(key);
  if (kept && kept.key === key && passed.some((p) => p.backend === kept.choice)) {
    return { backend: kept.choice, measurement: { ...kept, cached: true } };
  }
  const budget = opts.budgetMs ?? AUTO_BUDGET_MS;
  const t0 = performance.now();
  const timings: Timing[] = [];
  for (const backend of MEASURE_ORDER.filter((b) => passed.some((p) => p.backend === b))) {
    const left = budget - (performance.now() - t0);
    if (left <= 0) {
      timings.push({ backend, note: `not timed: the ${budget} ms budget was spent` });
      continue;
    }
    await tf.setBackend(backend);
    timings.push(await timeTrainStep(backend, preset, left));
  }
  const choice = chooseFastest(timings);
  return {
    backend: choice,
    measurement: {
      version: MEASUREMENT_VERSION,
      key,
      preset,
      at: Date.now(),
      timings,
      choice,
      cached: false,
    },
  };
}

/** Why a candidate that passed was chosen or not, with its figure and the winner's (the sanity figures follow). */
function reasonFor(
  p: Candidate,
  chosen: { backend: ConcreteBackend; measurement?: Measurement },
  requested: BackendName,
): string {
  const m = chosen.measurement;
  const won = p.backend === chosen.backend;
  if (requested !== 'auto') return 'requested explicitly';
  if (!m)
    return p.backend === 'cpu'
      ? 'the last resort: no other backend passed the sanity check'
      : 'the only backend not skipped that passed the sanity check (untimed: nothing to choose between)';
  const timing = m.timings.find((t) => t.backend === p.backend);
  const figure = timing ? describeTiming(timing, m.preset) : 'not timed';
  if (!won) {
    const best = m.timings.find((t) => t.backend === chosen.backend);
    const vs = best ? `, vs ${chosen.backend}'s ${describeTiming(best, m.preset)}` : '';
    return timing && figureOf(timing) !== undefined
      ? `passed the sanity check but is slower: ${figure}${vs}`
      : `passed the sanity check but has no figure: ${figure}${vs}`;
  }
  const why =
    m.timings.length > 1 ? 'fastest measured' : 'the only backend not skipped that passed the sanity check';
  return `${why}: ${figure} (${measuredWhen(m)})`;
}

/** One line for logs and the CLI: `wasm (webgpu: …; webgl: …)`, with the figures when `auto` measured. */
export function describeReport(r: BackendReport): string {
  const passed = r.attempts.filter((a) => !a.ok).map((a) => `${a.backend}: ${a.reason}`);
  const chosen = r.attempts.find((a) => a.ok);
  const head = r.backend
    ? r.measurement && chosen
      ? `${r.backend}, ${chosen.reason}`
      : r.backend
    : `refused ${r.requested}`;
  return passed.length ? `${head} (${passed.join('; ')})` : head;
}
