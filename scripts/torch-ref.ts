/**
 * `npm run bench -- --vs-torch`: runs bench/torch_ref.py (the same workload in PyTorch, single
 * thread unless `--torch-threads N`) next to the lab's own figures and prints both side by side
 * with their ratios; `npm run bench:browser -- --vs-torch` does the same beside the page's figures
 * (wasm per kernel set and thread count). Debian's python3-torch lives in /usr/bin/python3; a
 * Python without torch is skipped with a message, never an error. Node only.
 */
import { spawnSync } from 'node:child_process';
import type { GPTConfig } from '../src/core/gpt-config';
import type { Result } from './bench-workload';

/** What torch_ref.py prints as its last line. */
export interface TorchResult {
  implementation: string;
  threads: number;
  blas?: string;
  params: number;
  trainMs: number;
  trainCpuMs: number;
  decodeTokPerS: number;
  decodeTokPerSCpu: number;
}

const SCRIPT = 'bench/torch_ref.py';

/** The first interpreter that imports torch (`--python` first if given), or why there is none. */
export function findTorchPython(preferred: string): { python: string } | { skip: string } {
  const candidates = preferred ? [preferred] : ['python3', '/usr/bin/python3'];
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' });
    if (probe.status === 0) return { python };
  }
  return {
    skip: `--vs-torch skipped: no Python among ${candidates.join(', ')} imports torch (Debian: apt-get install python3-torch; pick one with --python PATH)`,
  };
}

/** Parses torch_ref.py's output: its last non-empty line is the JSON of figures. */
export function parseTorchOutput(stdout: string): TorchResult {
  const last = stdout.trim().split('\n').pop() ?? '';
  let r: Partial<TorchResult>;
  try {
    r = JSON.parse(last) as Partial<TorchResult>;
  } catch {
    throw new Error(
      `${SCRIPT} did not end with a JSON line; its last line was ${JSON.stringify(last.slice(0, 200))}`,
    );
  }
  for (const k of ['params', 'trainMs', 'trainCpuMs', 'decodeTokPerS', 'decodeTokPerSCpu'] as const) {
    if (typeof r[k] !== 'number' || !Number.isFinite(r[k]))
      throw new Error(`${SCRIPT}'s figures lack a finite ${k}: ${last.slice(0, 200)}`);
  }
  return r as TorchResult;
}

/** Runs the PyTorch workload for `cfg` and returns its figures; throws with its stderr on failure. */
export function runTorch(
  python: string,
  cfg: GPTConfig,
  o: { reps: number; rows: number; threads: number },
): TorchResult {
  const args = [
    SCRIPT,
    '--config',
    JSON.stringify(cfg),
    '--reps',
    String(o.reps),
    '--rows',
    String(o.rows),
    '--threads',
    String(o.threads),
  ];
  const p = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (p.status !== 0)
    throw new Error(`${python} ${SCRIPT} failed (exit ${p.status}): ${(p.stderr || p.stdout).slice(-2000)}`);
  return parseTorchOutput(p.stdout);
}

/** Median of each figure over rounds (the lower middle of an even count, like the lab's). */
export function summarizeTorch(runs: TorchResult[]): TorchResult {
  const med = (f: (r: TorchResult) => number) =>
    [...runs.map(f)].sort((a, b) => a - b)[Math.floor((runs.length - 1) / 2)];
  return {
    ...runs[0],
    trainMs: med((r) => r.trainMs),
    trainCpuMs: med((r) => r.trainCpuMs),
    decodeTokPerS: med((r) => r.decodeTokPerS),
    decodeTokPerSCpu: med((r) => r.decodeTokPerSCpu),
  };
}

/**
 * The lab's rows and PyTorch's for one preset, then the ratios against the goals of docs/figures.md#at-a-glance
 * (train ≤ 1.5× PyTorch's time, KV decode ≥ 0.9× its rate), by wall and by process CPU time.
 */
export function formatVsTorch(preset: string, lab: Result[], torch: TorchResult): string {
  // A page has no process CPU clock: its rows leave the CPU columns and ratios out.
  const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—').padStart(10);
  const line = (
    name: string,
    params: number,
    r: { trainMs: number; trainCpuMs: number; decodeTokPerS: number; decodeTokPerSCpu: number },
  ) =>
    `${name.padEnd(44)}${n(params)}${n(r.trainMs)}${n(r.trainCpuMs)}${n(r.decodeTokPerS)}${n(r.decodeTokPerSCpu)}`;
  const torchName = `PyTorch ${torch.implementation.replace(/^PyTorch /, '')}, ${torch.threads} thread${torch.threads === 1 ? '' : 's'}`;
  const out = [
    `${preset}: the lab and PyTorch, same workload, same run`,
    `${'implementation'.padEnd(44)}${'params'.padStart(10)}${'train ms'.padStart(10)}${'train cpu'.padStart(10)}${'tok/s KV'.padStart(10)}${'KV cpu'.padStart(10)}`,
  ];
  const name = (r: Result) =>
    `lab ${r.backend}, ${r.kernels}${r.simd ? `, ${r.simd} SIMD` : ''}${r.threads && r.threads > 1 ? `, ${r.threads} threads` : ''}`;
  for (const r of lab) out.push(line(name(r), r.params, r));
  out.push(line(torchName, torch.params, torch));
  for (const r of lab) {
    if (r.params !== torch.params)
      out.push(
        `  ${name(r)}: ${r.params} parameters but PyTorch's model has ${torch.params}: not the same model, no ratio`,
      );
    else {
      const t = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
      const cpu = (a: number, b: number) => (Number.isFinite(a) ? `cpu ${t(a, b)}; ` : '');
      out.push(
        `  ${name(r)} ÷ PyTorch: train time ${t(r.trainMs, torch.trainMs)} (${cpu(r.trainCpuMs, torch.trainCpuMs)}goal ≤ 1.5×), KV decode rate ${t(r.decodeTokPerS, torch.decodeTokPerS)} (${cpu(r.decodeTokPerSCpu, torch.decodeTokPerSCpu)}goal ≥ 0.9×)`,
      );
    }
  }
  return out.join('\n');
}
