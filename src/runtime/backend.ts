/**
 * Backend selection. `auto` tries hardware WebGPU, then hardware WebGL, then WASM, then CPU, and
 * keeps the first that initializes and passes the sanity check against the CPU backend. Software
 * adapters (WebGPU `isFallbackAdapter`, SwiftShader, llvmpipe) are 15–30× slower than WASM
 * (tfjs-webgpu.md §7), so `auto` passes them over; asking for a backend by name uses it anyway.
 * An explicit choice that cannot run is refused with the reason, never silently replaced.
 * Environment specifics (how to probe a GPU, how to load a backend module) come in a `Platform`,
 * so the browser worker and Node share this logic.
 */
import type * as TF from '@tensorflow/tfjs';
import type { BackendName } from '../core/config';
import type { BackendAttempt, BackendReport, ConcreteBackend, DeviceProbe } from './backend-types';
import { SANITY_TOLERANCE, maxRelativeDiff, sanityStep } from './sanity';

export const AUTO_ORDER: readonly ConcreteBackend[] = ['webgpu', 'webgl', 'wasm', 'cpu'];

export interface Platform {
  /** Probes a device without creating a tfjs backend (adapter info, renderer string). */
  probe(backend: ConcreteBackend): Promise<DeviceProbe>;
  /** Imports and registers the backend's tfjs module, if it is not in @tensorflow/tfjs itself. */
  load(backend: ConcreteBackend): Promise<void>;
}

const SOFTWARE_RE = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render/i;

/** True for an adapter or renderer string that names a software rasterizer. */
export function isSoftware(text: string): boolean {
  return SOFTWARE_RE.test(text);
}

/** Picks and activates a backend for `requested`; see the file comment for the rules. */
export async function selectBackend(tf: typeof TF, requested: BackendName, platform: Platform): Promise<BackendReport> {
  const report: BackendReport = { requested, backend: null, attempts: [] };

  // The CPU result is the reference every candidate must reproduce.
  await tf.setBackend('cpu');
  const reference = await sanityStep();

  const order = requested === 'auto' ? AUTO_ORDER : [requested];
  for (const backend of order) {
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
    if (probe.software && requested === 'auto') {
      report.attempts.push(
        attempt(false, `${probe.reason ?? 'software device'}: slower than WASM, so auto skips it (ask for ${backend} to use it)`),
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
      report.attempts.push(attempt(false, `sanity check failed: max |Δ| ${maxDiff.toExponential(2)} > ${tol} vs cpu`, maxDiff));
      await tf.setBackend('cpu');
      continue;
    }
    const why = requested === 'auto' ? 'fastest backend that passed the sanity check' : 'requested explicitly';
    const soft = probe.software ? ` (${probe.reason ?? 'software device'})` : '';
    report.attempts.push(attempt(true, `${why}${soft}; max |Δ| vs cpu ${maxDiff.toExponential(2)}`, maxDiff));
    report.backend = backend;
    return report;
  }
  // Nothing passed: an explicit request is refused rather than silently replaced.
  await tf.setBackend('cpu');
  return report;
}

/** One line for logs and the CLI: `wasm (webgpu: …; webgl: …)`. */
export function describeReport(r: BackendReport): string {
  const passed = r.attempts.filter((a) => !a.ok).map((a) => `${a.backend}: ${a.reason}`);
  const head = r.backend ?? `refused ${r.requested}`;
  return passed.length ? `${head} (${passed.join('; ')})` : head;
}
