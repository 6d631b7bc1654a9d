// The model's architecture as plain numbers (src/model/gpt-config.ts), split out of the tfjs model
// so that the page can size a config (runtime/memory.ts) without pulling tfjs into its main
// bundle. Its parameter list is the model's, and nothing it or the estimate imports
// reaches tfjs.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_PRESETS } from '../../src/core/model-sizes';
import { GPT } from '../../src/model/gpt';
import { gptConfig, paramSpecs } from '../../src/model/gpt-config';
import { useBackend } from './helpers';

/** Every module `entry` imports, transitively (relative imports), with the packages each names. */
function importClosure(entry: string): { files: string[]; packages: Set<string> } {
  const files: string[] = [];
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.includes(file)) return;
    files.push(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /^(?:import|export)\s(?!type\b)[^;]*?from\s+'([^']+)'/gms,
    )) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec) + '.ts');
      else packages.add(spec);
    }
  };
  visit(resolve(entry));
  return { files, packages };
}

describe('the architecture without tfjs', () => {
  beforeAll(() => useBackend('cpu'));
  let built: GPT[] = [];
  afterAll(() => built.forEach((m) => m.dispose()));

  it("paramSpecs lists the built model's parameters, name for name and shape for shape", () => {
    for (const preset of MODEL_PRESETS) {
      const cfg = gptConfig(preset);
      const model = GPT.create(cfg, 1);
      built = [...built, model];
      const specs = paramSpecs(cfg);
      expect(specs.map((s) => [s.name, s.shape])).toEqual(
        [...model.params].map(([name, v]) => [name, v.shape]),
      );
      expect(specs.reduce((a, s) => a + s.shape.reduce((x, d) => x * d, 1), 0)).toBe(model.numParams());
    }
  });

  it('neither it nor the memory estimate the page computes imports tfjs, however indirectly', () => {
    for (const entry of ['src/model/gpt-config.ts', 'src/runtime/memory.ts']) {
      const { files, packages } = importClosure(join(process.cwd(), entry));
      expect(files.length).toBeGreaterThan(entry.includes('memory') ? 5 : 2); // the walk follows imports
      expect([...packages].filter((p) => p.startsWith('@tensorflow'))).toEqual([]);
    }
    // The walk does see tfjs where it is.
    expect([...importClosure(join(process.cwd(), 'src/model/gpt.ts')).packages]).toContain(
      '@tensorflow/tfjs',
    );
  });
});
