/**
 * The CLI's output folder: metrics.jsonl read back into per-run histories (`lab report`), the run
 * states `DIR/checkpoints/<i>-<label>.run`, written atomically (a crash mid-write leaves the
 * previous one), and `--resume DIR`, which picks each run up from its state and keeps
 * metrics.jsonl consistent with it: lines at or after a run's saved step are dropped (they are
 * recomputed, identically on the same backend), earlier ones become the run's history.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Experiment } from '../core/config';
import { runInstances } from '../core/config';
import { checkRunIdentity, decodeRunState, encodeRunState, type RunState } from '../train/run-state';

export function statePath(out: string, index: number, label: string): string {
  return join(out, 'checkpoints', `${index}-${label.replace(/[^A-Za-z0-9_-]+/g, '_')}.run`);
}

/** Writes to a temporary file and renames it over the old state, so a state file is always whole. */
export function writeAtomic(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, bytes);
  renameSync(`${path}.tmp`, path);
}

export function writeRunState(path: string, state: RunState): void {
  writeAtomic(path, encodeRunState(state));
}

export interface Resumed {
  resume: Map<string, { state: RunState; history: Record<string, number>[] }>;
  /** One line per run: where it goes on from. */
  notes: string[];
}

/**
 * Reads every run's saved state under `out` for experiment `exp` (out/config.json's) and trims
 * out/metrics.jsonl to the steps before each run's state. A run without a state starts over; a
 * state of another experiment, run or seed is refused naming the file.
 */
export function loadResume(out: string, exp: Experiment): Resumed {
  const resume: Resumed['resume'] = new Map();
  const notes: string[] = [];
  runInstances(exp).forEach(({ label, seed, runIndex }, i) => {
    const path = statePath(out, i, label);
    if (!existsSync(path)) {
      notes.push(`${label}: no saved state (${path}), starts from step 0`);
      return;
    }
    let state: RunState;
    try {
      state = decodeRunState(readFileSync(path));
    } catch (e) {
      throw new Error(`${path}: ${(e as Error).message}`, { cause: e });
    }
    const m = state.manifest;
    try {
      checkRunIdentity(m, { experiment: exp, runIndex, seed });
    } catch (e) {
      throw new Error(`${path}: ${(e as Error).message}, not a state of ${join(out, 'config.json')}'s ${label}`, { cause: e });
    }
    resume.set(label, { state, history: [] });
    notes.push(`${label}: resumes at step ${m.step} (saved on ${String(m.notes.backend ?? 'an unknown backend')})`);
  });

  // Keep each run's lines before its saved step.
  const metricsPath = join(out, 'metrics.jsonl');
  const kept: string[] = [];
  for (const { line, run, metrics } of readMetrics(metricsPath)) {
    const saved = resume.get(run);
    if (!saved || metrics.step >= saved.state.manifest.step) continue;
    kept.push(line);
    saved.history.push(metrics);
  }
  writeAtomic(metricsPath, kept.map((l) => l + '\n').join(''));
  return { resume, notes };
}

/**
 * metrics.jsonl's lines in order, parsed: null (JSON's stand-in for a non-finite value) back to
 * NaN. A torn line (the process killed mid-write) is skipped.
 */
export function readMetrics(path: string): { line: string; run: string; metrics: Record<string, number> }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      let row: Record<string, unknown>;
      try {
        row = JSON.parse(line);
      } catch {
        return [];
      }
      if (typeof row?.run !== 'string' || typeof row.step !== 'number') return [];
      const { run, ...rest } = row;
      return [{ line, run, metrics: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'number' ? v : NaN])) }];
    });
}
