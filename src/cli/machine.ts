/**
 * Where a train folder's numbers came from: `DIR/machine.json`, one entry per session that trained
 * there (a resume on another machine adds its own). A table reproduces to the last digit on the
 * machine and commit that made it, not beyond (docs/findings.md#tables-drift-across-machines), so
 * every folder says which they were. Readers that predate the file ignore it; a folder without it
 * (trained before it existed) reads as "not recorded".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { simdFlavour } from '../model/kernels/wasm';
import type { Machine } from '../core/machine';
import { writeAtomic } from './session-dir';

export type { Machine };

/** The checkout's commit and whether tracked files differ from it; nulls where git is absent. */
export function gitState(cwd = process.cwd()): { commit: string | null; dirty: boolean | null } {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return {
      commit: git(['rev-parse', 'HEAD']),
      dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** This process's machine, commit and kernels, for a session on `backend` (describeReport's words). */
export function thisMachine(backend: string): Machine {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    ...gitState(),
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    platform: `${process.platform} ${process.arch}`,
    node: process.version,
    backend,
    simd: simdFlavour(),
  };
}

/** `DIR/machine.json`'s entries, oldest first; none for a folder trained before the file existed. */
export function readMachines(dir: string): Machine[] {
  const path = join(dir, 'machine.json');
  if (!existsSync(path)) return [];
  try {
    const json: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(json) ? (json as Machine[]) : [];
  } catch {
    return []; // a hand-edited or torn file says nothing; the numbers are still the folder's
  }
}

/** Appends this session's entry to `DIR/machine.json`. */
export function recordMachine(dir: string, machine: Machine): void {
  writeAtomic(join(dir, 'machine.json'), JSON.stringify([...readMachines(dir), machine], null, 2) + '\n');
}

/**
 * The warning a resumed folder gets when its last session ran the other kernel set (LAB_SIMD):
 * the recomputed and later steps then round differently from what that session would have
 * written, so "identical on the same backend" no longer holds. Null where nothing changed.
 */
export function kernelsChanged(before: readonly Machine[], now: Machine): string | null {
  const last = before.at(-1);
  if (!last || last.simd === now.simd) return null;
  return (
    `this folder's last session ran the ${last.simd}-SIMD kernels and this one runs the ${now.simd} ones ` +
    `(LAB_SIMD): the steps from here round differently, not bit for bit as that session would have`
  );
}

/** One line for a table's header: `<commit>[ (dirty)] on <cpu>, <n> cores, <platform>, Node <v>, <backend>, relaxed SIMD on|off`. */
export function machineLine(m: Machine): string {
  const commit = m.commit ? `${m.commit.slice(0, 7)}${m.dirty ? ' (tree dirty)' : ''}` : 'no git commit';
  const simd = `relaxed SIMD ${m.simd === 'relaxed' ? 'on' : 'off'}`;
  return `${commit} on ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node.replace(/^v/, '')}, backend ${m.backend}, ${simd}`;
}
