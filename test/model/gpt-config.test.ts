// The model's architecture as plain numbers (src/core/gpt-config.ts), split out of the tfjs model
// so that the page can size a config (sizing/memory.ts) without pulling tfjs into its main
// bundle: its parameter list is the model's. That nothing the page imports reaches tfjs is
// test/architecture/ui-bundle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_PRESETS } from '../../src/core/model-sizes';
import { GPT } from '../../src/model/gpt';
import { gptConfig, paramSpecs } from '../../src/core/gpt-config';
import { useBackend } from './helpers';

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
});
