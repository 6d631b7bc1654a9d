// Statistic names that metrics.ts gives a named constant are spelled out there only: every other
// module of src/ uses the constant, so renaming one is one edit. Reads the source as text and
// looks for the name as a string literal ('…', "…" or `…` on its own); comments that mention a key
// such as `agent/<k>/grad_norm` and foreign names in import patterns are not literals of it.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GRAD_NORM } from '../../src/core/metrics';
import { SRC, sourceFiles } from './sources';

const HOME = join(SRC, 'core/metrics.ts');

describe('one home per statistic name', () => {
  for (const name of [GRAD_NORM]) {
    it(`only src/core/metrics.ts spells '${name}'`, () => {
      const literal = new RegExp(`(['"\`])${name}\\1`);
      const spelled = sourceFiles(SRC)
        .filter((f) => f !== HOME && literal.test(readFileSync(f, 'utf8')))
        .map((f) => relative(SRC, f));
      expect(spelled).toEqual([]);
      // The check itself finds the literal where it lives.
      expect(literal.test(readFileSync(HOME, 'utf8'))).toBe(true);
    });
  }
});
