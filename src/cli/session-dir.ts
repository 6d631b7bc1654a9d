/**
 * The CLI's output folder, which never loses a recorded line:
 * - a new run never writes into a folder holding a run: it is refused, or with --force moved
 *   aside to `<DIR>.old-<time>` (never deleted);
 * - one process at a time: `DIR/.lock` holds the pid of the process training there;
 * - metrics.jsonl is appended line by line and flushed to disk (fsync) before each run state is
 *   written, and every state is written to a temporary file, flushed and renamed over the old one,
 *   so a crash or a power cut leaves the lines up to the last state and a whole state;
 * - `--resume DIR` picks each run up from its state `DIR/checkpoints/<i>-<label>.run` and checks
 *   metrics.jsonl against it: lines at or after the saved step are dropped (they are recomputed,
 *   identically on the same backend); a run whose earlier lines are missing starts over from
 *   step 0 and recomputes them all, and says so.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Experiment } from '../core/config';
import { runRepeats } from '../core/config';
import { parseMetrics, ranges } from '../report/metrics-lines';
import {
  checkRunIdentity,
  decodeRunState,
  encodeRunState,
  stateFileName,
  type RunState,
} from '../train/run-state';
import { hasEarlierVocab } from '../train/run-state-migration';

/** A warning for the user: one line on stderr. */
export const warn = (message: string): void => console.error(`warning: ${message}`);

/** A problem with the output folder or what it holds: reported as its message alone, exit 1. */
export class SessionDirError extends Error {}

/** What makes a folder a session folder (any one of them). */
const RUN_FILES = ['config.json', 'metrics.jsonl', 'checkpoints', 'import.json'];

export function statePath(out: string, index: number, label: string): string {
  return join(out, 'checkpoints', stateFileName(index, label));
}

/** Where a run's latest rollout sample goes (`rollouts/<i>-<label>.json`): named as its state is. */
export function rolloutsPath(out: string, index: number, label: string): string {
  return join(out, 'rollouts', stateFileName(index, label).replace(/\.run$/, '.json'));
}

/** A file-system error as a sentence naming the path and the cause in words. */
export function fsError(what: string, e: unknown): SessionDirError {
  const err = e as NodeJS.ErrnoException;
  const why: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EEXIST: 'a file of that name is in the way', // mkdir's only EEXIST: the folder is a file
    ENOENT: 'no such file or folder, and it cannot be created there',
  };
  return new SessionDirError(
    `cannot ${what}: ${why[err.code ?? ''] ?? err.message} (${err.code ?? 'error'})`,
    {
      cause: e,
    },
  );
}

const holdsRun = (out: string) => existsSync(out) && RUN_FILES.some((f) => existsSync(join(out, f)));

/**
 * Refuses `out` if it already holds a run and `force` is off: checked before the models load, so
 * the refusal comes first (prepareNewSessionDir checks again when it makes the folder).
 */
export function refuseHeldDir(out: string, force: boolean): void {
  if (force || !holdsRun(out)) return;
  const resumable = existsSync(join(out, 'config.json')) ? `--resume ${out} goes on with it, ` : '';
  throw new SessionDirError(
    `${out} already holds a run (${RUN_FILES.filter((f) => existsSync(join(out, f))).join(', ')}): ${resumable}--force moves it aside, or choose another --out`,
  );
}

/**
 * Makes `out` ready for a new run (of `lab train`, or runs read in by `lab import`). A folder
 * already holding a run is refused, or with `force` moved aside (never deleted); returns where it went.
 */
export function prepareNewSessionDir(out: string, force: boolean): string | null {
  let moved: string | null = null;
  if (holdsRun(out)) {
    refuseHeldDir(out, force);
    moved = `${out}.old-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      renameSync(out, moved);
    } catch (e) {
      throw fsError(`move ${out} aside to ${moved}`, e);
    }
  }
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw fsError(`create the output folder ${out}`, e);
  }
  return moved;
}

/**
 * Takes `DIR/.lock` for this process, or refuses when another live process holds it (a lock left
 * by a killed process is taken over). Returns the release.
 */
export function lockSessionDir(dir: string): () => void {
  const path = join(dir, '.lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fsError(`write the lock file ${path}`, e);
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (attempt === 0 && !alive(pid)) {
        rmSync(path, { force: true }); // left by a process that was killed
        continue;
      }
      throw new SessionDirError(
        `${dir} is in use by another lab process (pid ${pid}, ${path}); wait for it to end or stop it`,
      );
    }
  }
  // The exit hook goes with the release: a sweep takes and releases a lock per cell.
  const release = () => {
    process.off('exit', release);
    rmSync(path, { force: true });
  };
  process.once('exit', release);
  return release;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes a temporary file, flushes it to disk and renames it over `path`: the file is always whole. */
export function writeAtomic(path: string, bytes: Uint8Array | string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw fsError(`create the folder ${dirname(path)}`, e);
  }
  try {
    const fd = openSync(`${path}.tmp`, 'w');
    try {
      writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(`${path}.tmp`, path);
    syncFolder(dirname(path)); // the rename itself
  } catch (e) {
    throw e instanceof SessionDirError ? e : fsError(`write ${path}`, e);
  }
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeRunState(path: string, state: RunState): void {
  writeAtomic(path, encodeRunState(state));
}

/** A line's place in the lockstep order of an uninterrupted run: by step, then by run. */
interface LinePlace {
  step: number;
  /** Index of the run × seed in runRepeats order. */
  run: number;
}
const before = (a: LinePlace, b: LinePlace) => a.step < b.step || (a.step === b.step && a.run < b.run);

/**
 * metrics.jsonl open for appending: a line per call, flushed to disk on `sync` (before each state).
 * `held` are recorded lines of runs ahead of others after a resume: each is written back in its
 * lockstep place, as the runs behind catch up, so the file reads as an uninterrupted run's.
 */
export class MetricsLog {
  private readonly fd: number;
  private readonly held: (LinePlace & { line: string })[];
  constructor(
    readonly path: string,
    held: readonly (LinePlace & { line: string })[] = [],
  ) {
    this.held = [...held].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    try {
      this.fd = openSync(path, 'a');
    } catch (e) {
      throw fsError(`open ${path}`, e);
    }
  }
  append(line: string, place: LinePlace): void {
    while (this.held.length && before(this.held[0], place))
      writeSync(this.fd, this.held.shift()!.line + '\n');
    writeSync(this.fd, line + '\n');
  }
  sync(): void {
    fsyncSync(this.fd);
  }
  /** Writes what is still held, flushes, closes. */
  close(): void {
    for (const h of this.held.splice(0)) writeSync(this.fd, h.line + '\n');
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}

interface Resumed {
  resume: Map<string, { state: RunState; history: Record<string, number>[] }>;
  /** Recorded lines after the step every run has reached: MetricsLog writes them back in place. */
  held: (LinePlace & { line: string })[];
  /** One line per run: where it goes on from, and why. */
  notes: string[];
}

/**
 * Reads every run's saved state under `out` for experiment `exp` (out/config.json's) and makes
 * out/metrics.jsonl hold exactly each resumed run's steps before its state. A run without a state,
 * or whose lines before its state are not all there, starts over from step 0. A state of another
 * experiment, run or seed is refused naming the file.
 */
export function loadResume(out: string, exp: Experiment): Resumed {
  const resume: Resumed['resume'] = new Map();
  const notes: string[] = [];
  const metricsPath = join(out, 'metrics.jsonl');
  const rows = readMetrics(metricsPath, (m) => notes.push(`${m}, and dropped from the file`), exp.task);
  runRepeats(exp).forEach(({ label, seed, runIndex }, i) => {
    const path = statePath(out, i, label);
    if (!existsSync(path)) {
      notes.push(`${label}: no saved state (${path}), starts from step 0`);
      return;
    }
    let state: RunState;
    try {
      state = decodeRunState(readFileSync(path));
      checkRunIdentity(state.manifest, { experiment: exp, runIndex, seed });
    } catch (e) {
      throw new SessionDirError(`${path}: ${(e as Error).message}`, { cause: e });
    }
    const step = state.manifest.step;
    const mine = rows.filter((r) => r.run === label && r.metrics.step < step);
    const whole = mine.length === step && mine.every((r, s) => r.metrics.step === s);
    if (!whole) {
      const have = new Set(mine.map((r) => r.metrics.step));
      const missing = Array.from({ length: step }, (_, s) => s).filter((s) => !have.has(s));
      notes.push(
        `${label}: metrics.jsonl lacks ${missing.length ? `steps ${ranges(missing)}` : 'the steps in order'} before its state at step ${step}; ` +
          'starts over from step 0 to recompute them (the state holds no history)',
      );
      return;
    }
    resume.set(label, { state, history: mine.map((r) => r.metrics) });
    const migrated = hasEarlierVocab(state.manifest.models)
      ? "; its models migrated on load to today's vocabulary"
      : '';
    notes.push(
      `${label}: resumes at step ${step} (saved on ${String(state.manifest.notes.backend ?? 'an unknown backend')}${migrated})`,
    );
  });
  // Lines of runs that start over, and lines at or after a saved step, are recomputed. Runs saved
  // at different steps (killed between two runs' saves): the lines past the step all runs have
  // reached are held back and written again in their lockstep place as the others catch up.
  const instances = runRepeats(exp);
  const savedAt = (run: string) => resume.get(run)?.state.manifest.step ?? 0;
  const level = Math.min(...instances.map((r) => savedAt(r.label)));
  const kept = rows.filter((r) => r.metrics.step < savedAt(r.run));
  writeAtomic(
    metricsPath,
    kept
      .filter((r) => r.metrics.step < level)
      .map((r) => r.line + '\n')
      .join(''),
  );
  const held = kept
    .filter((r) => r.metrics.step >= level)
    .map((r) => ({ line: r.line, step: r.metrics.step, run: instances.findIndex((i) => i.label === r.run) }));
  return { resume, held, notes };
}

/** 3, 5, 6, 7 → "3, 5–7". */
/** The folder `lab report` and `--resume` read, refused with a message that names what is missing. */
export function checkSessionDir(dir: string): void {
  if (!existsSync(dir)) throw new SessionDirError(`no such folder: ${dir}`);
  if (!statSync(dir).isDirectory()) throw new SessionDirError(`${dir} is a file, not a session folder`);
  if (!existsSync(join(dir, 'config.json'))) {
    const has = readdirSync(dir);
    throw new SessionDirError(
      `${dir} has no config.json: not a folder written by lab train${has.length ? ` (it holds ${has.slice(0, 5).join(', ')}${has.length > 5 ? ', …' : ''})` : ' (it is empty)'}`,
    );
  }
}

/**
 * metrics.jsonl's lines in order, parsed: null (JSON's stand-in for a non-finite value) back to
 * NaN. A torn line (the process killed mid-write) or any other line that is not a record is
 * skipped; `warn`, when given, hears which lines were skipped, or that there is no file.
 */
export function readMetrics(
  path: string,
  warn?: (message: string) => void,
  task?: string,
): { line: string; run: string; metrics: Record<string, number> }[] {
  if (!existsSync(path)) {
    warn?.(`${path}: no such file; no step recorded`);
    return [];
  }
  return parseMetrics(readFileSync(path, 'utf8'), path, warn, task);
}

export { parseMetrics };
