/**
 * Policy-model benchmark (docs/figures.md#model-speed) in Node: per preset and backend, the workload of
 * bench-workload.ts (train-step ms, decode tokens/s with and without the KV cache, kernel
 * dispatches and readbacks). `npm run bench -- [--presets small,nano] [--backends wasm,cpu] [--reps 5]`.
 * A/B on a busy machine: `--kernels fused,plain --rounds 3` interleaves the fused wasm kernels with the
 * plain tfjs formulation (or only one family: attention, rowwise, gemm; or all but one: no-mlp, no-matmul, …)
 * and reports medians over rounds.
 * Besides wall time it reports process CPU time, which other jobs on a busy machine inflate far less.
 * Writes bench/results.json (or `--out FILE`). Compare with docs/figures.md#against-pytorch-same-workload-same-run (PyTorch, same workload, 2-core CPU).
 * WebGPU in Node: `--dawn PATH/dawn.node --backends webgpu,wasm` (scripts/dawn.ts); its dispatches and
 * readbacks are counted at the WebGPU API, the other backends' kernels by tf.profile.
 * `--vs-torch`: also runs bench/torch_ref.py (PyTorch on the CPU, the same model and workload, `--torch-threads 1`)
 * once per preset and round, just before the lab's, and prints both side by side (scripts/torch-ref.ts);
 * skipped with a message where no Python imports torch (`--python PATH` picks one).
 * `--kernels xnnpack`: the fused kernels but XNNPACK's matmuls; `--simd plain`: the plain-SIMD kernels
 * module where relaxed SIMD (fused multiply-add) would run (Node 20 gets relaxed SIMD by a V8 flag set here);
 * `--gemm 4x8|3x12|6x8`: every a·b GEMM on that register tile instead of the one each instance picks
 * by timing them (src/model/kernels/gemm-tile.ts).
 * `--smoke`: nano on wasm, 8 rows, one rep, a few seconds (npm test runs it); `--timeout S` ends a run
 * that is still going after S seconds with a message (default 1800; smoke 120).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { setRelaxedSimd } from '../src/model/kernels/wasm';
import { GEMM_TILES, setGemmTile, type GemmTile } from '../src/model/kernels/gemm-tile';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import type { ModelPreset } from '../src/core/model-sizes';
import { gptConfig } from '../src/core/gpt-config';
import { arg, flag, watchdog } from './cli-args';
import { installDawn } from './dawn';
import {
  NEW,
  PROMPT,
  formatTable,
  measureWorkload,
  summarize,
  type Clock,
  type Result,
} from './bench-workload';
import { findTorchPython, formatVsTorch, runTorch, summarizeTorch, type TorchResult } from './torch-ref';

enableRelaxedSimd(); // Node 20: the kernels' fused multiply-add (src/model/kernels/wasm.ts)

const smoke = flag('smoke');
const presets = arg('presets', smoke ? 'nano' : 'small').split(',') as ModelPreset[];
const backends = arg('backends', smoke ? 'wasm' : 'wasm,cpu').split(',');
const reps = Number(arg('reps', smoke ? '1' : '5'));
const rows = Number(arg('rows', smoke ? '8' : '64'));
const kernelModes = arg('kernels', 'fused').split(',');
const rounds = Number(arg('rounds', '1'));
if (arg('simd', 'relaxed') === 'plain') setRelaxedSimd(false); // A/B: the plain-SIMD kernels module even where relaxed SIMD runs
const gemm = arg('gemm', 'auto') as GemmTile;
if (gemm !== 'auto' && !GEMM_TILES.includes(gemm))
  throw new Error(`--gemm must be one of ${GEMM_TILES.join(', ')} (or auto); got "${gemm}"`);
setGemmTile(gemm);
const dawn = arg('dawn', '');
const torchThreads = Number(arg('torch-threads', '1'));
const torchPython = flag('vs-torch') ? findTorchPython(arg('python', '')) : null;
if (torchPython && 'skip' in torchPython) console.log(torchPython.skip);
const outFile = arg('out', smoke ? 'out/bench-smoke.json' : 'bench/results.json');
watchdog(Number(arg('timeout', smoke ? '120' : '1800')), 'bench');
const wasmDir = arg('wasm-dir', ''); // where tfjs-backend-wasm's .wasm files are, for a bundled copy of this script
if (wasmDir)
  (await import('@tensorflow/tfjs-backend-wasm')).setWasmPaths(
    wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`,
  );
let adapter = '';
if (backends.includes('webgpu')) {
  if (!dawn)
    throw new Error(
      "--backends webgpu needs --dawn PATH/dawn.node in Node (the webgpu npm package's Dawn build)",
    );
  adapter = await installDawn(dawn);
  await import('@tensorflow/tfjs-backend-webgpu'); // registers only now that navigator.gpu exists
}

const clock: Clock = {
  wall: () => performance.now(),
  cpu: () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  },
};

const runs: Result[] = [];
const torchRuns = new Map<string, TorchResult[]>();
for (let round = 0; round < rounds; round++) {
  for (const preset of presets) {
    if (torchPython && 'python' in torchPython) {
      const t = runTorch(torchPython.python, gptConfig(preset, { contextLength: 64 }), {
        reps,
        rows,
        threads: torchThreads,
      });
      torchRuns.set(preset, [...(torchRuns.get(preset) ?? []), t]);
      console.log(
        `round ${round} ${preset}/${t.implementation} (${t.threads} thread(s), ${t.blas ?? 'BLAS unknown'}): ${t.trainMs.toFixed(0)} ms/step (cpu ${t.trainCpuMs.toFixed(0)}), ${t.decodeTokPerS.toFixed(0)} tok/s KV (cpu ${t.decodeTokPerSCpu.toFixed(0)})`,
      );
    }
    for (const backend of backends) {
      for (const kernels of backend === 'wasm' ? kernelModes : ['plain']) {
        const r = await measureWorkload({ preset, backend, kernels, rows, reps, clock });
        runs.push(r);
        console.log(
          `round ${round} ${preset}/${backend}/${kernels}: ${r.trainMs.toFixed(0)} ms/step (cpu ${r.trainCpuMs.toFixed(0)}), ${r.decodeTokPerS.toFixed(0)} tok/s KV (cpu ${r.decodeTokPerSCpu.toFixed(0)})`,
        );
      }
    }
  }
}
const results = summarize(runs);
const machine = `${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, tfjs ${tf.version.tfjs}, wasm single thread${adapter ? `, WebGPU via Dawn: ${adapter}` : ''}`;
console.log(
  `\n${machine}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${rounds} round(s), ${rows} rows\n`,
);
console.log(formatTable(results));
const torch = [...torchRuns].map(([preset, ts]) => ({ preset, ...summarizeTorch(ts) }));
for (const t of torch)
  console.log(
    `\n${formatVsTorch(
      t.preset,
      results.filter((r) => r.preset === t.preset && r.backend === 'wasm'),
      t,
    )}`,
  );
mkdirSync(dirname(outFile), { recursive: true });
const out = {
  machine,
  cores: cpus().length,
  loadavg: loadavg(),
  rounds,
  date: new Date().toISOString(),
  workload: { rows, tokens: 64, lossTokens: 32, prompt: PROMPT, newTokens: NEW },
  results,
  ...(torch.length ? { torch } : {}),
};
writeFileSync(outFile, JSON.stringify(out, null, 2) + '\n');
process.exit(0); // the watchdog's timer is unref'd, but Dawn's device keeps Node alive
