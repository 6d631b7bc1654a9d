// An estimator is one entry of src/core/estimators.ts (docs/estimators.md#the-estimator-api): every
// place that names, labels, documents, defines or lists estimators reads that entry. Checked two
// ways: each reader shows exactly the entry's values, and no other module of src/ spells out the
// whole list, which is what a second table needing its own edit would do.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateExperiment } from '../../src/core/config-validate';
import {
  advantageBasis,
  ESTIMATOR_CHOICES,
  ESTIMATOR_NAMES,
  ESTIMATORS,
  estimatorDef,
  estimatorLabel,
  estimatorNamed,
  getEstimator,
  runColors,
} from '../../src/core/estimators';
import { PRESETS } from '../../src/core/presets';
import { agentSameBatchKey, metricKeys, sameBatchEstimators } from '../../src/core/metrics';
import { lookup } from '../../src/core/registry';
import { decodeExperiment } from '../../src/core/url';
import { computeAdvantages } from '../../src/rl/advantage';
import { optionDoc, optionLabel } from '../../src/ui/config-edit';
import { SRC, sourceFiles } from '../architecture/sources';

const HOME = join(SRC, 'core/estimators.ts');

describe('an estimator is its entry', () => {
  for (const name of ESTIMATOR_NAMES) {
    const entry = ESTIMATORS[name];
    it(`${name}: the schema, labels, menu, algebra, inspector and same-batch keys read its entry`, () => {
      // The schema takes the name, and a run given only the estimator is labelled by the entry.
      const v = validateExperiment({ runs: [{ estimator: name }] });
      expect(v.ok && v.config.runs[0]).toMatchObject({ label: entry.label, estimator: name });
      const link = decodeExperiment(`#v=1&runs=[]&runs.0.estimator=${name}`);
      expect(link.ok && link.config.runs[0].label).toBe(entry.label);
      // Chart titles and the page's estimator menu: the label, and the doc with where it applies.
      expect(estimatorLabel(name)).toBe(entry.label);
      expect(optionLabel('runs.0.estimator', name)).toBe(entry.label);
      expect(optionDoc('runs.0.estimator', name)).toBe(`${entry.doc} ${entry.applies}`);
      expect(entry.doc).toMatch(/docs\/estimators\.md#/);
      // The computation's definition is the entry's algebra.
      expect(estimatorDef(name)).toMatchObject({
        unit: entry.unit,
        meanOver: entry.meanOver,
        stdOver: entry.stdOver,
      });
      // The rollout inspector's words: the entry's set in plain words, and its label.
      expect(advantageBasis(name, { agent: 'alice', turn: 1 })).toContain(
        `${entry.within('alice', 1)} (${entry.label})`,
      );
      // Every run's same-batch statistics weigh its batch by it.
      expect(sameBatchEstimators('grpo')).toContain(name);
      expect(metricKeys(['alice'], [], 4)).toContain(agentSameBatchKey('alice', name, 'corr'));
      const rows = [0, 1].map((traj) => ({ group: 0, traj, agent: 'alice', turn: 0, reward: traj }));
      expect(computeAdvantages(rows, { estimator: name }).advantages).toHaveLength(2);
    });
  }

  it('the choices are the entries and custom, in entry order', () => {
    expect(ESTIMATOR_NAMES).toEqual(Object.keys(ESTIMATORS));
    expect(ESTIMATOR_CHOICES).toEqual([...ESTIMATOR_NAMES, 'custom']);
    expect(optionLabel('runs.0.estimator', 'custom')).toBe('custom');
    expect(estimatorLabel('custom', { stdOver: 'none' })).toBe('custom (rows; group,agent; none)');
  });

  it('no module of src/ but core/estimators.ts names every estimator', () => {
    // A name as a string literal or as an object key, the way a second table or list would hold it.
    const names = (text: string) =>
      ESTIMATOR_NAMES.filter((n) => {
        const quoted = n.replace(/[-]/g, '\\-');
        return new RegExp(`(['"\`])${quoted}\\1|^\\s*${quoted}\\s*:`, 'm').test(text);
      });
    const listing = sourceFiles(SRC)
      .filter((f) => f !== HOME && names(readFileSync(f, 'utf8')).length === ESTIMATOR_NAMES.length)
      .map((f) => relative(SRC, f));
    expect(listing).toEqual([]);
    // The check finds the one table where it lives.
    expect(names(readFileSync(HOME, 'utf8'))).toEqual(ESTIMATOR_NAMES);
  });
});

describe('one colour per estimator', () => {
  it('every estimator has its own colour', () => {
    const colors = ESTIMATOR_NAMES.map((e) => ESTIMATORS[e].color);
    expect(new Set(colors).size).toBe(colors.length);
  });

  it('a run gets its estimator’s colour in every preset, wherever it stands among the runs', () => {
    // Dr. MAS was blue as a second run and green as a third, where Step-level took blue.
    for (const p of PRESETS) {
      const colors = runColors(p.config.runs.map((r) => r.estimator));
      const first = new Set<string>();
      p.config.runs.forEach((r, i) => {
        if (r.estimator !== 'custom' && !first.has(r.estimator))
          expect(colors[i], `${p.id}: ${r.label}`).toBe(ESTIMATORS[r.estimator].color);
        first.add(r.estimator);
      });
      expect(new Set(colors).size, p.id).toBe(colors.length);
    }
    expect(runColors(['grpo', 'drmas'])[1]).toBe(ESTIMATORS.drmas.color);
    expect(runColors(['grpo', 'global-step', 'drmas'])[2]).toBe(ESTIMATORS.drmas.color);
  });

  it('a second run of one estimator, a custom run and an unknown one take colours no estimator has', () => {
    const own = new Set<string>(ESTIMATOR_NAMES.map((e) => ESTIMATORS[e].color));
    const [grpo, grpo2, custom, unknown] = runColors(['grpo', 'grpo', 'custom', undefined]);
    expect(grpo).toBe(ESTIMATORS.grpo.color);
    for (const c of [grpo2, custom, unknown]) expect(own.has(c), c).toBe(false);
    expect(new Set([grpo2, custom, unknown]).size).toBe(3);
    // A colour already drawn (an imported Dr. MAS beside a live one) is not given twice.
    expect(runColors(['drmas'], [ESTIMATORS.drmas.color])[0]).not.toBe(ESTIMATORS.drmas.color);
  });

  it('knows an imported run’s estimator by its name, the longest name that fits', () => {
    expect(estimatorNamed('drmas (imported) #2')).toBe('drmas');
    expect(estimatorNamed('Dr. MAS')).toBe('drmas');
    expect(estimatorNamed('grpo_seed2')).toBe('grpo');
    expect(estimatorNamed('magrpo/seed1')).toBe('magrpo');
    expect(estimatorNamed('AT-GRPO')).toBe('atgrpo');
    expect(estimatorNamed('Step-level')).toBe('global-step');
    // Its label until one word served the menu and the preset runs: an older export's run.
    expect(estimatorNamed('global step-level #1')).toBe('global-step');
    expect(estimatorNamed('qwen-planner')).toBeUndefined();
  });
});

describe('lookup: one refusal for every registry', () => {
  it('names what was looked up and every valid name, and refuses inherited names', () => {
    expect(() => getEstimator('ppo')).toThrow(
      "Unknown advantage estimator 'ppo'. Valid: grpo, drmas, atgrpo, global-step, magrpo, mars2.",
    );
    expect(() => lookup({ a: 1, b: 2 }, 'letter', 'toString')).toThrow(
      "Unknown letter 'toString'. Valid: a, b.",
    );
    expect(lookup({ a: 1, b: 2 }, 'letter', 'b')).toBe(2);
  });
});
