// `npm run bench -- --vs-torch`: the parsing and side-by-side printing of bench/torch_ref.py's figures
// (scripts/torch-ref.ts), and, where a Python with torch is installed, that torch_ref.py builds a model
// with exactly the lab's parameter count for every preset (the same architecture and sizes).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GPT } from '../src/model/gpt';
import { gptConfig } from '../src/core/gpt-config';
import { MODEL_SIZES, type ModelPreset } from '../src/core/model-sizes';
import {
  findTorchPython,
  formatVsTorch,
  parseTorchOutput,
  summarizeTorch,
  type TorchResult,
} from '../scripts/torch-ref';
import type { Result } from '../scripts/bench-workload';

const torchLine: TorchResult = {
  implementation: 'PyTorch 1.13.0a0 CPU',
  threads: 1,
  blas: 'libopenblasp-r0.3.21.so',
  params: 414336,
  trainMs: 541,
  trainCpuMs: 530,
  decodeTokPerS: 4516,
  decodeTokPerSCpu: 4600,
};
const lab = {
  preset: 'small',
  backend: 'wasm',
  kernels: 'fused',
  params: 414336,
  trainMs: 924,
  trainCpuMs: 901,
  decodeTokPerS: 2997,
  decodeTokPerSCpu: 3100,
} as Result;

describe('torch_ref.py output', () => {
  it('reads the figures from the last line after the human-readable ones', () => {
    const r = parseTorchOutput(`PyTorch 1.13 ... train 541 ms/step\n${JSON.stringify(torchLine)}\n`);
    expect(r).toEqual(torchLine);
  });

  it('names what is wrong when the last line is not the figures', () => {
    expect(() => parseTorchOutput('Traceback (most recent call last):\nModuleNotFoundError')).toThrow(
      /did not end with a JSON line.*ModuleNotFoundError/,
    );
    expect(() => parseTorchOutput(JSON.stringify({ ...torchLine, trainMs: null }))).toThrow(
      /lack a finite trainMs/,
    );
  });

  it('takes the median of each figure over rounds', () => {
    const runs = [600, 541, 700].map((trainMs, i) => ({
      ...torchLine,
      trainMs,
      decodeTokPerS: [4000, 5000, 4516][i],
    }));
    expect(summarizeTorch(runs)).toMatchObject({ trainMs: 600, decodeTokPerS: 4516, trainCpuMs: 530 });
  });

  it('prints both side by side with the ratios against the goals', () => {
    const text = formatVsTorch('small', [lab], torchLine);
    expect(text).toContain('lab wasm, fused');
    expect(text).toMatch(/PyTorch 1\.13\.0a0 CPU, 1 thread\s+414,336\s+541/);
    // 924 / 541 = 1.71, 901 / 530 = 1.70; 2997 / 4516 = 0.66, 3100 / 4600 = 0.67
    expect(text).toContain(
      'train time 1.71× (cpu 1.70×; goal ≤ 1.5×), KV decode rate 0.66× (cpu 0.67×; goal ≥ 0.9×)',
    );
  });

  it("prints a page's rows (no CPU clock) by wall time, with their thread count", () => {
    const page = {
      ...lab,
      threads: 2,
      trainMs: 290,
      trainCpuMs: NaN,
      decodeTokPerS: 8500,
      decodeTokPerSCpu: NaN,
    };
    const text = formatVsTorch('small', [page], torchLine);
    expect(text).toMatch(/lab wasm, fused, 2 threads\s+414,336\s+290\s+—\s+8,500\s+—/);
    // 290 / 541 = 0.54; 8500 / 4516 = 1.88
    expect(text).toContain(
      'lab wasm, fused, 2 threads ÷ PyTorch: train time 0.54× (goal ≤ 1.5×), KV decode rate 1.88× (goal ≥ 0.9×)',
    );
  });

  it('gives no ratio when the two models differ in size', () => {
    expect(formatVsTorch('small', [{ ...lab, params: 108864 }], torchLine)).toMatch(
      /108864 parameters but PyTorch's model has 414336: not the same model, no ratio/,
    );
  });
});

const py = findTorchPython('');
describe.skipIf(!('python' in py))('torch_ref.py against gpt.ts', () => {
  it.each(Object.keys(MODEL_SIZES) as ModelPreset[])('%s: the same parameter count', (preset) => {
    const cfg = gptConfig(preset, { contextLength: 64 });
    const p = spawnSync(
      (py as { python: string }).python,
      ['bench/torch_ref.py', '--config', JSON.stringify(cfg), '--params-only'],
      { encoding: 'utf8' },
    );
    expect(p.status, p.stderr).toBe(0);
    const model = GPT.create(cfg, 1);
    expect(JSON.parse(p.stdout).params).toBe(model.numParams());
    model.dispose();
  });
});
