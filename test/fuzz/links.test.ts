/**
 * Fuzzed links (docs/fuzz.md#links): decodeExperiment on shared links mutated (a workflow
 * experiment's, its workflow packed in `wf=`, among them), built from real field paths with hostile
 * values (packed workflows cut and edited too), or random text. It never throws; a refusal names every bad
 * field with a message; an accepted link re-encodes to a link that opens the same experiment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT, structuralKey } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { packWorkflow, workflowHash } from '../../src/core/workflow/pack';
import { exampleWorkflow } from '../tasks/workflow-examples';
import { fuzz, jsonPaths, NASTY_STRINGS, RUNS } from './harness';

const base = encodeExperiment({
  ...DEFAULT_EXPERIMENT,
  steps: 50,
  rollout: { ...DEFAULT_EXPERIMENT.rollout, groupSize: 4 },
});
// A workflow experiment's link, its workflow packed into one pair (wf=): mutated as a whole, and
// its packed value cut, edited or swapped for random base64url text.
const relay = exampleWorkflow('relay');
const checked = validateExperiment({ ...DEFAULT_EXPERIMENT, task: 'workflow', workflow: relay, steps: 50 });
if (!checked.ok) throw new Error('the relay experiment does not validate');
const workflowBase = encodeExperiment(checked.config);
const packed = packWorkflow(relay);
const packedValue = fc.oneof(
  fc
    .tuple(fc.nat(packed.length), fc.stringMatching(/^[A-Za-z0-9_-]{0,6}$/), fc.nat(6))
    .map(([at, ins, cut]) => packed.slice(0, at) + ins + packed.slice(at + cut)),
  fc.stringMatching(/^[A-Za-z0-9_-]{0,200}$/),
  fc.constant(packWorkflow({ ...relay, name: 'other' })),
  fc.constant(workflowHash(relay)),
);
const fields = jsonPaths(DEFAULT_EXPERIMENT)
  .filter((p) => p.length > 0)
  .map((p) => p.join('.'));
const key = fc.oneof(
  fc.constantFrom(...fields, 'v', 'wf', 'wfhash', 'workflow.mix', 'workflow.agents.0.name'),
  fc.constantFrom(
    '__proto__.polluted',
    'constructor.prototype.polluted',
    'runs.0.__proto__',
    'optim.constructor',
  ),
  fc.string({ maxLength: 12 }),
);
const value = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS, '[]', '{"polluted":1}', '1', '0.5', 'true', 'grpo', 'drmas', 'sync'),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ maxLength: 12 }),
  packedValue,
);
/** Percent-encoded as a link writes it, where it can be (a lone surrogate cannot). */
const percent = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return v;
  }
};
const pair = fc.tuple(key, value, fc.boolean()).map(([k, v, enc]) => `${k}=${enc ? percent(v) : v}`);
const link = fc.oneof(
  fc.array(pair, { maxLength: 8 }).map((ps) => ['v=1', ...ps].join('&')),
  fc
    .tuple(fc.integer({ min: 0, max: base.length }), fc.string({ maxLength: 8 }), fc.nat(8))
    .map(([at, ins, cut]) => base.slice(0, at) + ins + base.slice(at + cut)),
  fc.string({ maxLength: 64 }),
  fc.string({ minLength: 2000, maxLength: 2100 }),
  fc.array(pair, { maxLength: 4 }).map((ps) => `#${ps.join('&')}`),
  fc
    .tuple(fc.integer({ min: 0, max: workflowBase.length }), fc.string({ maxLength: 8 }), fc.nat(8))
    .map(([at, ins, cut]) => workflowBase.slice(0, at) + ins + workflowBase.slice(at + cut)),
  fc
    .tuple(fc.array(pair, { maxLength: 3 }), packedValue)
    .map(([ps, wf]) => ['v=1&task=workflow', ...ps, `wf=${wf}`].join('&')),
);

describe('fuzzed links', () => {
  it(`opens or refuses each of ${RUNS} links with every bad field named, never throwing`, () => {
    expect(decodeExperiment(base).ok).toBe(true);
    expect(decodeExperiment(workflowBase).ok).toBe(true);
    fuzz('links', link, (hash) => {
      let r;
      try {
        r = decodeExperiment(hash);
      } catch (e) {
        return `decodeExperiment threw: ${(e as Error)?.message ?? String(e)}`;
      }
      if (!r.ok) {
        const unnamed = r.errors.find((e) => !e.message || typeof e.path !== 'string');
        return r.errors.length === 0 || unnamed
          ? `a refusal without a message: ${JSON.stringify(r.errors)}`
          : 'refused';
      }
      const again = decodeExperiment(encodeExperiment(r.config));
      if (!again.ok || structuralKey(again.config) !== structuralKey(r.config))
        return `an accepted link does not re-encode to itself: ${hash}`;
      return 'accepted';
    });
  });
});
