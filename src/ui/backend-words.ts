/**
 * The backend in plain words for the status bar and the backend panel: where the model runs, and
 * the figure that chose it ("Running on this computer's CPU (WebAssembly, 1 thread), test step:
 * 14 ms"). The figure is the backend check's timing model (one small train step, auto-choice.ts),
 * not a run's step, which rolls out a whole batch first: the words say "test step" so that no one
 * reads it as the run's own time. The backend's name, adapter and kernels stay available as
 * details on hover.
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

/** The status bar's two parts: where it runs, and the backend check's figure (absent: untimed). */
export interface BackendParts {
  /** "Running on …", or why nothing runs. */
  where: string;
  /** "test step: N ms", the backend check's timed step, never a run's. */
  figure?: string;
}

export function backendParts(report: BackendReport): BackendParts {
  const b = report.backend;
  if (!b) return { where: `Cannot run here: ${report.requested} was refused (see Compute backend)` };
  const soft = b === 'webgpu' && report.adapter?.isFallbackAdapter;
  let where = soft ? "a software stand-in for a graphics card, on this computer's CPU (WebGPU)" : WHERE[b];
  if (report.threads !== undefined) where = where.replace(/\)$/, `, ${threadsText(report.threads)})`);
  const ms = report.measurement && msPerStep(report.measurement);
  return {
    where: `Running on ${where}`,
    ...(ms === undefined ? {} : { figure: `test step: ${Math.round(ms)} ms` }),
  };
}

/** "Running on …, test step: N ms", or why nothing runs. */
export function backendWords(report: BackendReport): string {
  const { where, figure } = backendParts(report);
  return figure ? `${where}, ${figure}` : where;
}

/** What the figure is, for the status bar's hover: the check's model size, and what it is not. */
export function figureMeaning(report: BackendReport): string | undefined {
  const m = report.measurement;
  if (!m || msPerStep(m) === undefined) return undefined;
  return `Test step: one ${m.preset} train step on 256 tokens, timed to choose this backend. Not a run's step, which rolls out a whole batch first and takes longer: each run's tok/s is beside its step counter.`;
}

/** `auto`'s figure for the backend it chose, ms per step of its timing model (undefined: untimed). */
export function msPerStep(m: Measurement): number | undefined {
  const t = m.timings.find((x) => x.backend === m.choice);
  return t && figureOf(t);
}
