/**
 * The backend in plain words for the status bar and the backend panel: where the model runs and
 * how fast ("Running on this computer's CPU (WebAssembly, 1 thread), 14 ms per step"). The
 * backend's name, adapter and kernels stay available as details on hover.
 */
import { figureOf } from '../backends/auto-choice';
import type { BackendReport, ConcreteBackend, Measurement } from '../backends/backend-types';
import { threadsText } from './thread-setting';

const WHERE: Record<ConcreteBackend, string> = {
  webgpu: "this computer's graphics card (WebGPU)",
  webgl: "this computer's graphics card (WebGL)",
  wasm: "this computer's CPU (WebAssembly)",
  cpu: "this computer's CPU (plain JavaScript, the slowest)",
};

/** "Running on …, N ms per step", or why nothing runs. */
export function backendWords(report: BackendReport): string {
  const b = report.backend;
  if (!b) return `Cannot run here: ${report.requested} was refused (see Compute backend)`;
  const soft = b === 'webgpu' && report.adapter?.isFallbackAdapter;
  let where = soft ? "a software stand-in for a graphics card, on this computer's CPU (WebGPU)" : WHERE[b];
  if (report.threads !== undefined) where = where.replace(/\)$/, `, ${threadsText(report.threads)})`);
  const ms = report.measurement && msPerStep(report.measurement);
  return `Running on ${where}${ms === undefined ? '' : `, ${Math.round(ms)} ms per step`}`;
}

/** `auto`'s figure for the backend it chose, ms per step of its timing model (undefined: untimed). */
export function msPerStep(m: Measurement): number | undefined {
  const t = m.timings.find((x) => x.backend === m.choice);
  return t && figureOf(t);
}
