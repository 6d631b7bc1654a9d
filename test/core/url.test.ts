import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_EXPERIMENT, type Experiment } from '../../src/core/config';
import {
  BACKEND_NAMES,
  CREDIT_NAMES,
  MAX_STEPS,
  SAMPLING_NAMES,
  MCTS_TASKS,
  TREE_SAMPLINGS,
  TASK_NAMES,
} from '../../src/core/config-names';
import { ESTIMATOR_NAMES } from '../../src/core/estimators';
import { LOSS_AGG_MODES } from '../../src/core/losses';
import { MODEL_PRESETS } from '../../src/core/model-sizes';
import { decodeExperiment, encodeExperiment, encodeLink, sameStructure } from '../../src/core/url';
import { MAX_HASH_LENGTH } from '../../src/core/url-pairs';
import { dialValues, splitSweep } from '../../src/core/url-sweep';
import type { Dial } from '../../src/core/url-sweep';
import { PRESETS } from '../../src/core/presets';

const labelArb = fc.stringMatching(/^[\w .+()-]{1,32}$/);
/** One step's live changes: every section present names at least one value. */
const liveChangeArb = fc
  .record(
    {
      optim: fc.record(
        {
          lr: fc.double({ min: 1e-9, max: 1, noNaN: true }),
          clipLow: fc.double({ min: 0, max: 1, noNaN: true }),
        },
        { requiredKeys: ['lr'] },
      ),
      rollout: fc.record({ temperature: fc.double({ min: 0.01, max: 4, noNaN: true }) }),
    },
    { requiredKeys: [] },
  )
  .filter((c) => Object.keys(c).length > 0);
const runArb = fc.record(
  {
    label: labelArb,
    estimator: fc.constantFrom(...ESTIMATOR_NAMES),
    advantage: fc.record(
      { normalizeStd: fc.boolean(), eps: fc.double({ min: 1e-12, max: 1, noNaN: true }) },
      { requiredKeys: [] },
    ),
    optim: fc.record(
      { lr: fc.double({ min: 1e-9, max: 1, noNaN: true }), lossAgg: fc.constantFrom(...LOSS_AGG_MODES) },
      { requiredKeys: [] },
    ),
    reward: fc.record(
      { credit: fc.constantFrom(...CREDIT_NAMES), creditWeight: fc.double({ min: 0, max: 10, noNaN: true }) },
      { requiredKeys: [] },
    ),
    rollout: fc.record({ sampling: fc.constantFrom(...SAMPLING_NAMES) }, { requiredKeys: [] }),
    live: fc.dictionary(fc.integer({ min: 0, max: MAX_STEPS - 1 }).map(String), liveChangeArb, {
      maxKeys: 3,
    }),
  },
  { requiredKeys: ['label', 'estimator', 'advantage', 'optim', 'reward', 'rollout', 'live'] },
);

const experimentArb: fc.Arbitrary<Experiment> = fc
  .record({
    task: fc.constantFrom(...TASK_NAMES),
    runs: fc.uniqueArray(runArb, { selector: (r) => r.label, minLength: 1, maxLength: 4 }),
    preset: fc.constantFrom(...MODEL_PRESETS),
    perAgent: fc.dictionary(
      fc.constantFrom('verifier', 'search', 'answer'),
      fc.constantFrom(...MODEL_PRESETS),
    ),
    groupSize: fc.integer({ min: 2, max: 32 }),
    sampling: fc.constantFrom(...SAMPLING_NAMES),
    nodes: fc.integer({ min: 2, max: 32 }),
    temperature: fc.double({ min: 0.01, max: 4, noNaN: true }),
    lr: fc.double({ min: 1e-9, max: 1, noNaN: true }),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    backend: fc.constantFrom(...BACKEND_NAMES),
    normalizeStd: fc.boolean(),
  })
  .map((r) => {
    const c = structuredClone(DEFAULT_EXPERIMENT);
    c.task = r.task;
    c.runs = r.runs;
    c.models.preset = r.preset;
    c.models.perAgent = r.perAgent;
    c.rollout.groupSize = r.groupSize;
    c.rollout.sampling = r.sampling;
    // Tree sampling refuses per-agent credit (no trajectory to replay): keep such configs valid.
    c.runs = c.runs.map((run) =>
      TREE_SAMPLINGS.includes(run.rollout.sampling ?? r.sampling) && run.reward.credit
        ? { ...run, reward: { ...run.reward, credit: 'shared' } }
        : run,
    );
    // mcts runs only on the tasks with nodes: elsewhere keep such configs valid with parallel.
    if (!(MCTS_TASKS as readonly string[]).includes(r.task)) {
      if (c.rollout.sampling === 'mcts') c.rollout.sampling = 'parallel';
      c.runs = c.runs.map((run) =>
        run.rollout.sampling === 'mcts' ? { ...run, rollout: { sampling: 'parallel' } } : run,
      );
    }
    c.rollout.nodes = r.nodes;
    c.rollout.temperature = r.temperature;
    c.optim.lr = r.lr;
    c.seed = r.seed;
    c.backend = r.backend;
    c.advantage.normalizeStd = r.normalizeStd;
    return c;
  });

describe('experiment URL codec', () => {
  it('writes only the version for the defaults, and reads an empty hash as the defaults', () => {
    expect(encodeExperiment(DEFAULT_EXPERIMENT)).toBe('v=1');
    expect(decodeExperiment('')).toEqual({ ok: true, config: DEFAULT_EXPERIMENT });
    expect(decodeExperiment('#v=1')).toEqual({ ok: true, config: DEFAULT_EXPERIMENT });
  });

  it('writes changed fields as readable dotted paths', () => {
    const c = structuredClone(DEFAULT_EXPERIMENT);
    c.task = 'math';
    c.optim.lr = 0.001;
    c.rollout.groupSize = 4;
    expect(encodeExperiment(c)).toBe('v=1&task=math&rollout.groupSize=4&optim.lr=0.001');
    c.rollout.sampling = 'tree';
    expect(encodeExperiment(c)).toBe(
      'v=1&task=math&rollout.groupSize=4&rollout.sampling=tree&optim.lr=0.001',
    );
    expect(decodeExperiment('v=1&rollout.sampling=tree')).toMatchObject({
      ok: true,
      config: { rollout: { sampling: 'tree' } },
    });
  });

  it('quotes strings that would read as numbers or booleans', () => {
    const c = structuredClone(DEFAULT_EXPERIMENT);
    c.runs[0].label = '1';
    c.runs[1].label = 'true';
    const hash = encodeExperiment(c);
    expect(hash).toContain('runs.0.label=%221%22');
    const back = decodeExperiment(hash);
    expect(back.ok && back.config.runs.map((r) => r.label)).toEqual(['1', 'true']);
  });

  it('round-trips every config exactly (property)', () => {
    fc.assert(
      fc.property(experimentArb, (c) => {
        const hash = encodeExperiment(c);
        fc.pre(hash.length <= MAX_HASH_LENGTH); // longer links are refused (tested below)
        const back = decodeExperiment('#' + hash);
        expect(back.ok).toBe(true);
        expect(back.config).toEqual(c);
        expect(encodeExperiment(back.config)).toBe(hash);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips every preset', () => {
    for (const p of PRESETS) expect(decodeExperiment(encodeExperiment(p.config)).config).toEqual(p.config);
  });

  it.each([
    ['#task=math', 'v', /missing/],
    ['#v=9&task=math', 'v', /^unknown version "9"; this lab reads version 1$/],
    ['#v=one', 'v', /unknown version/],
    ['#hello', 'hello', /key=value/],
    ['#v=1&%E0%A4%A=1', '%E0%A4%A', /percent-encoding/],
    ['#v=1&task=math&task=sync', 'task', /twice/],
    ['#v=1&optim=3&optim.lr=1', 'optim.lr', /conflicts/],
    ['#v=1&__proto__.polluted=1', '__proto__.polluted', /not a field/],
    ['#v=1&runs.99.label=x', 'runs.99', /index too large/],
    // every repeated key, the version's canonical spelling, bounded coefficients
    ['#v=1&v=999', 'v', /given 2 times \(1, 999\)/],
    ['#v=1.0', 'v', /unknown version "1\.0"/],
    ['#v=0x1', 'v', /unknown version "0x1"/],
    ['#v=%2B1', 'v', /unknown version "\+1"/],
    ['#v=1&optim.entropyCoef=1e38', 'optim.entropyCoef', /Too big/],
    ['#v=1&optim.klCoef=1e9', 'optim.klCoef', /Too big/],
    ['#v=1&optim.maxGradNorm=1e30', 'optim.maxGradNorm', /Too big/],
    // two runs with one label would share their lines and state
    [
      '#v=1&runs.0.label=A&runs.0.estimator=grpo&runs.1.label=A&runs.1.estimator=drmas',
      'runs.1.label',
      /"A" is run 0's label too; labels must differ/,
    ],
  ])('refuses %s naming %s', (hash, path, message) => {
    const r = decodeExperiment(hash);
    expect(r.ok).toBe(false);
    expect(r.config).toEqual(DEFAULT_EXPERIMENT);
    if (!r.ok)
      expect(r.errors).toContainEqual(
        expect.objectContaining({
          path: expect.stringContaining(path),
          message: expect.stringMatching(message),
        }),
      );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names every bad field of an invalid config and opens the defaults', () => {
    // runs.3 patches past the default list's end with no run 2: the hole is named.
    const r = decodeExperiment(
      '#v=1&task=chess&optim.lr=-1&rollout.groupSize=2.5&runs.0.estimator=ppo&runs.3.label=x&color=red',
    );
    expect(r.ok).toBe(false);
    expect(r.config).toEqual(DEFAULT_EXPERIMENT);
    const paths = r.ok ? [] : r.errors.map((e) => e.path).sort();
    expect(paths).toEqual([
      'color',
      'optim.lr',
      'rollout.groupSize',
      'runs.0.estimator',
      'runs.2',
      'runs.3.estimator',
      'task',
    ]);
    // A fraction where a count belongs says so in words (zod's own: "expected int, received number").
    expect(r.ok ? [] : r.errors.filter((e) => e.path === 'rollout.groupSize')).toEqual([
      { path: 'rollout.groupSize', message: 'expected a whole number', got: '2.5' },
    ]);
  });

  it('says a key naming an experiment preset (preset=mars2-team) is no field, and offers no field in its place', () => {
    const r = decodeExperiment('#v=1&preset=mars2-team');
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    // The preset's id: what to do instead, and no `meant` (models.preset, the model size, would take the id and refuse it).
    expect(errors.find((e) => e.path === 'preset')).toEqual({
      path: 'preset',
      message: 'unknown field',
      hint: expect.stringMatching(/^mars2-team is the experiment preset ".+", .* --preset mars2-team\)$/),
      got: 'mars2-team',
    });
    // A model size under the same key still gets the field it most likely meant.
    const size = decodeExperiment('#v=1&preset=nano');
    expect(size.ok ? [] : size.errors).toEqual([
      expect.objectContaining({ path: 'preset', meant: { key: 'models.preset' } }),
    ]);
  });

  it('reads list indices as patches of the default list; key=[] starts the list over', () => {
    const one = decodeExperiment('#v=1&runs.1.estimator=global-step');
    expect(one.ok && one.config.runs.map((r) => [r.label, r.estimator])).toEqual([
      ['GRPO', 'grpo'],
      ['Step-level', 'global-step'], // an estimator given without a label brings its own
    ]);
    // The canonical form of that experiment is the same one pair.
    if (one.ok) expect(encodeExperiment(one.config)).toBe('v=1&runs.1.estimator=global-step');
    const longer = structuredClone(DEFAULT_EXPERIMENT);
    longer.runs.push({
      label: 'Step',
      estimator: 'global-step',
      advantage: {},
      optim: { lr: 0.001 },
      reward: {},
      rollout: {},
      live: {},
    });
    expect(encodeExperiment(longer)).toBe(
      'v=1&runs.2.label=Step&runs.2.estimator=global-step&runs.2.optim.lr=0.001',
    );
    const shorter = structuredClone(DEFAULT_EXPERIMENT);
    shorter.runs = [shorter.runs[1]];
    expect(encodeExperiment(shorter)).toBe('v=1&runs=%5B%5D&runs.0.estimator=drmas');
    const back = decodeExperiment('#' + encodeExperiment(shorter));
    expect(back.ok && back.config).toEqual(shorter);
  });

  it('refuses hashes over the length limit without parsing them', () => {
    const r = decodeExperiment('#v=1&' + 'x'.repeat(MAX_HASH_LENGTH));
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toEqual({ path: '(hash)', message: expect.stringMatching(/limit is 2048/) });
  });

  it("carries each run's live changes as a schedule keyed by step, and reads it back exactly", () => {
    const link =
      'v=1&runs.0.live.179.optim.lr=0.003&runs.1.live.0.rollout.temperature=0.5&runs.1.live.200.optim.lr=0.003';
    const r = decodeExperiment(link);
    expect(r.ok).toBe(true);
    expect(r.config.optim.lr).toBe(3e-4); // the base value holds from step 0
    expect(r.config.runs.map((run) => run.live)).toEqual([
      { 179: { optim: { lr: 0.003 } } },
      { 0: { rollout: { temperature: 0.5 } }, 200: { optim: { lr: 0.003 } } },
    ]);
    expect(encodeExperiment(r.config)).toBe(link);
    // A schedule is no structural change: a stored session of the base experiment resumes under it.
    expect(sameStructure(link, DEFAULT_EXPERIMENT)).toBe(true);
    // Links without a schedule read as before: no run has a change.
    expect(decodeExperiment('v=1&optim.lr=0.003').config.runs.map((run) => run.live)).toEqual([{}, {}]);
  });

  it('refuses a malformed schedule entry, naming the live field by its label and the step', () => {
    const errors = (hash: string) => {
      const r = decodeExperiment(hash);
      expect(r.ok).toBe(false);
      expect(r.config).toBe(DEFAULT_EXPERIMENT);
      return r.ok ? [] : r.errors;
    };
    expect(errors('v=1&runs.0.live.179.optim.lr=banana')).toEqual([
      {
        path: 'runs.0.live.179.optim.lr',
        message: 'learning rate at step 179: Invalid input: expected number, received string',
        got: 'banana',
        run: 'GRPO', // the run's label in the link: the page names the run by it
      },
    ]);
    expect(errors('v=1&runs.1.live.12.rollout.temperature=9')[0]).toEqual({
      path: 'runs.1.live.12.rollout.temperature',
      message: 'temperature at step 12: Too big: expected number to be <=4',
      got: '9',
      run: 'Dr. MAS',
    });
    expect(errors('v=1&runs.0.live.1e3.optim.lr=0.1')[0]).toEqual({
      path: 'runs.0.live.1e3',
      message: `live change at step "1e3": a step is a whole number from 0 to ${MAX_STEPS - 1}`,
      run: 'GRPO',
    });
    expect(errors(`v=1&runs.0.live.${MAX_STEPS}.optim.lr=0.1`)[0].path).toBe(`runs.0.live.${MAX_STEPS}`);
    // weightDecay is a field of optim, but not a live one.
    expect(errors('v=1&runs.0.live.5.optim.weightDecay=0.1')[0]).toEqual({
      path: 'runs.0.live.5.optim.weightDecay',
      message: 'live change at step 5: unknown field',
      got: '0.1',
      run: 'GRPO',
    });
    expect(errors('v=1&runs.0.live.5={}')[0]).toEqual({
      path: 'runs.0.live.5',
      message: 'live change at step 5: names no live parameter',
      got: '{}',
      run: 'GRPO',
    });
  });

  it('sameStructure: a link is the same experiment up to its live hyper-parameters', () => {
    const live = structuredClone(DEFAULT_EXPERIMENT);
    live.optim.lr = 0.002;
    live.rollout.temperature = 0.7;
    expect(sameStructure('v=1', DEFAULT_EXPERIMENT)).toBe(true);
    expect(sameStructure(encodeExperiment(live), DEFAULT_EXPERIMENT)).toBe(true);
    const other = structuredClone(DEFAULT_EXPERIMENT);
    other.rollout.groupSize = 4;
    expect(sameStructure(encodeExperiment(other), DEFAULT_EXPERIMENT)).toBe(false);
    expect(sameStructure('v=1&rollout.groupSize=banana', DEFAULT_EXPERIMENT)).toBe(false);
  });
});

describe('a sweep in a link (sweep.KEY=v1,v2,…)', () => {
  it("reads its dials in the order given and leaves the experiment's pairs as they are", () => {
    expect(
      splitSweep(
        '#v=1&task=sync&sweep.optim.lr=0.001,0.002&steps=3&sweep.models.assignment=shared,per-agent',
      ),
    ).toEqual({
      experiment: 'v=1&task=sync&steps=3',
      sweep: [
        { key: 'optim.lr', values: ['0.001', '0.002'] },
        { key: 'models.assignment', values: ['shared', 'per-agent'] },
      ],
      errors: [],
    });
    // Values holding a comma are separated by `;`, as for --grid.
    expect(splitSweep('v=1&sweep.runs.0.label=a,b%3Bc').sweep).toEqual([
      { key: 'runs.0.label', values: ['a,b', 'c'] },
    ]);
  });

  it('leaves a link without sweep keys exactly as it was', () => {
    for (const hash of [
      '',
      'v=1',
      'v=1&task=math&optim.lr=0.001',
      'v=1&optim.lr=banana',
      'v=1&&x',
      'v=1&%zz=1',
    ]) {
      expect(splitSweep(hash)).toEqual({ experiment: hash, sweep: [], errors: [] });
      expect(splitSweep(`#${hash}`).experiment).toBe(hash);
    }
    for (const c of PRESETS.map((p) => p.config)) expect(encodeLink(c, [])).toBe(encodeExperiment(c));
  });

  it('writes the experiment, then one sweep key per dial, and reads both back exactly (property)', () => {
    // The experiment's own pairs round-trip above; here any preset stands for them.
    const presetArb = fc.constantFrom(...PRESETS.map((p) => p.config));
    // Any text but `;` (which separates values that hold a comma): `&`, `=`, `%`, `+`, spaces, non-ASCII.
    const value = fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme' }).filter((v) => !v.includes(';'));
    const dial = fc.record({
      key: fc.stringMatching(/^[a-z][\w.]{0,20}$/).filter((k) => k !== 'v' && k !== 'steps'),
      values: fc.uniqueArray(value, { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(presetArb, fc.uniqueArray(dial, { selector: (d) => d.key, maxLength: 3 }), (c, sweep) => {
        const link = encodeLink(c, sweep);
        expect(link.startsWith(encodeExperiment(c))).toBe(true);
        const back = splitSweep(link);
        expect(back).toEqual({ experiment: encodeExperiment(c), sweep, errors: [] });
        const r = decodeExperiment(back.experiment);
        expect(r.ok && r.config).toEqual(c);
        expect(encodeLink(c, back.sweep)).toBe(link);
      }),
      { numRuns: 200 },
    );
    const sweep: Dial[] = [{ key: 'optim.lr', values: ['0.001', '0.002'] }];
    expect(encodeLink(DEFAULT_EXPERIMENT, sweep)).toBe('v=1&sweep.optim.lr=0.001,0.002');
  });

  it('refuses a malformed sweep key, naming it', () => {
    const errors = (hash: string) => splitSweep(hash).errors;
    expect(errors('v=1&sweep.optim.lr=0.001,,0.002')).toEqual([
      {
        path: 'sweep.optim.lr',
        message: 'an empty value; give sweep.optim.lr=v1,v2,…',
        got: '0.001,,0.002',
      },
    ]);
    expect(errors('v=1&sweep.optim.lr=1,2,1')).toEqual([
      { path: 'sweep.optim.lr', message: 'sweep.optim.lr=1 is given twice', got: '1,2,1' },
    ]);
    expect(errors('v=1&sweep.optim.lr=1,2&sweep.optim.lr=3')).toEqual([
      { path: 'sweep.optim.lr', message: 'given twice' },
    ]);
    expect(errors('v=1&sweep.steps=3,6&sweep.v=1,2&sweep.=1,2')).toEqual([
      { path: 'sweep.steps', message: "is not a dial: every cell trains the link's steps" },
      { path: 'sweep.v', message: 'is not a dial: the link version' },
      { path: 'sweep.', message: 'names no field: give sweep.KEY=v1,v2,…' },
    ]);
    expect(errors('sweep.optim.lr=1,2')).toEqual([{ path: 'v', message: 'missing; expected v=1' }]);
    // One experiment's decoder (lab train --config) says where a sweep goes instead.
    expect(decodeExperiment('v=1&sweep.optim.lr=1,2')).toMatchObject({
      ok: false,
      errors: [
        {
          path: 'sweep.optim.lr',
          message: expect.stringContaining('lab sweep takes it as --grid optim.lr=…'),
        },
      ],
    });
  });
});

describe('a sweep dial whose one value holds a comma', () => {
  it('is written with a trailing ; and read back as one value (the property test found `, ` read as two)', () => {
    for (const values of [[', '], ['group,agent'], ['group,agent', 'group'], ['1', '2']]) {
      const link = encodeLink(DEFAULT_EXPERIMENT, [{ key: 'advantage.meanOver', values }]);
      expect(splitSweep(link)).toMatchObject({ sweep: [{ key: 'advantage.meanOver', values }], errors: [] });
    }
    expect(dialValues('x', 'group,agent;')).toEqual({ values: ['group,agent'] });
    expect(dialValues('x', 'a;;b')).toEqual({ refused: 'an empty value; give x=v1,v2,…' });
  });
});
