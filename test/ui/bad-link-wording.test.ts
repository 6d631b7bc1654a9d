/**
 * A bad link's alert in the page's words: each field by its label, what it must be, and what the
 * link gave ("Learning rate must be a number; got 'banana'"), from the real decoder on real links.
 */
import { describe, expect, it } from 'vitest';
import { decodeExperiment } from '../../src/core/url';
import { fieldReason } from '../../src/ui/field-labels';

/** The alert's sentences for a link, in the decoder's order. */
function sentences(hash: string): string[] {
  const r = decodeExperiment(hash);
  if (r.ok) throw new Error(`expected ${hash} to be refused`);
  return r.errors.map((e) => fieldReason(e));
}

describe('bad-link wording', () => {
  it('says what each field must be, and quotes what the link gave', () => {
    expect(sentences('#v=1&task=chess&optim.lr=banana&colour=red')).toEqual([
      "Task must be one of: search, math, sync, coder-tester, search-roles, plan, search-routing, sync-own, workflow; got 'chess'",
      "Learning rate must be a number; got 'banana'",
      "colour is not a field of an experiment; got 'red'",
    ]);
  });

  it('names the value a listed field most likely meant: by a typo, by case and punctuation, by a prefix', () => {
    expect(
      sentences('#v=1&task=serch&runs.0.estimator=DrMAS&runs.1.estimator=glob&rollout.sampling=chess'),
    ).toEqual([
      "Task must be one of: search, math, sync, coder-tester, search-roles, plan, search-routing, sync-own, workflow; got 'serch'; did you mean search?",
      "GRPO run: Estimator must be one of: grpo, drmas, atgrpo, global-step, magrpo, mars2, custom; got 'DrMAS'; did you mean drmas?",
      "Dr. MAS run: Estimator must be one of: grpo, drmas, atgrpo, global-step, magrpo, mars2, custom; got 'glob'; did you mean global-step?",
      expect.not.stringContaining('did you mean'),
    ]);
  });

  it("names the field an unknown key most likely meant: by name, by the paper's symbol, by a typo", () => {
    expect(sentences('#v=1&G=16&groupSize=16&optim.lrr=0.01&runs.0.lr=0.01&banana=1')).toEqual([
      "runs.0.lr is not a field of an experiment; got '0.01'; did you mean runs.0.optim.lr?",
      "optim.lrr is not a field of an experiment; got '0.01'; did you mean optim.lr?",
      "G is not a field of an experiment; got '16'; did you mean rollout.groupSize?",
      "groupSize is not a field of an experiment; got '16'; did you mean rollout.groupSize?",
      "banana is not a field of an experiment; got '1'",
    ]);
  });

  it('puts bounds and whole numbers in words', () => {
    expect(sentences('#v=1&rollout.groupSize=512&rollout.batchSize=2.5&seeds=0&optim.lr=0')).toEqual([
      "Group size G must be at most 32; got '512'",
      "Batch size B must be a whole number; got '2.5'",
      "Learning rate must be more than 0; got '0'",
      "Seeds must be at least 1; got '0'",
    ]);
    expect(sentences('#v=1&optim.lr=true&rollout.sampling=5')).toEqual([
      "Sampling must be one of: parallel, tree, tree-random, tree-outcome, mcts; got '5'",
      "Learning rate must be a number; got 'true'",
    ]);
  });

  it('names a run by the label the link gives it, else by its place counted from 1; a key without a label by the key', () => {
    expect(sentences('#v=1&runs.1.estimator=ppo&optim.perAgent.solver.clipHihg=0.3')).toEqual([
      "Dr. MAS run: Estimator must be one of: grpo, drmas, atgrpo, global-step, magrpo, mars2, custom; got 'ppo'",
      "optim.perAgent.solver.clipHihg is not a field of an experiment; got '0.3'; did you mean optim.perAgent.solver.clipHigh?",
    ]);
    // A run's override of an experiment field, by the run and the field.
    expect(sentences('#v=1&runs.1.optim.lr=banana')).toEqual([
      "Dr. MAS run: Learning rate must be a number; got 'banana'",
    ]);
    // The link's own runs, not the default ones it replaces: its run 0 is MARS2.
    expect(sentences('#v=1&runs=[]&runs.0.estimator=mars2&runs.0.optim.maxGradNorm=-1')).toEqual([
      "MARS2 run: Max grad norm must be more than 0; got '-1'",
    ]);
    // Refused before validation, where no run has a label yet: the run by its place.
    expect(sentences('#v=1&runs.1.estimator=grpo&runs.1.estimator=mars2')).toEqual([
      'Run 2: Estimator is given twice',
    ]);
    // A field the experiment has, but a run may not set, is named by its key, not as a field there.
    expect(sentences('#v=1&runs.0.rollout.groupSize=4')).toEqual([
      "runs.0.rollout.groupSize is not a field of an experiment; got '4'",
    ]);
    // A key given twice is refused before any value is read: nothing single to quote back.
    expect(sentences('#v=1&optim.lr=0.1&optim.lr=0.2')).toEqual(['Learning rate is given twice']);
  });

  it("names a schedule entry by its run, live field and step, then zod's words plainly", () => {
    expect(sentences('#v=1&runs.0.live.179.optim.lr=banana')).toEqual([
      "GRPO run: Learning rate at step 179 must be a number; got 'banana'",
    ]);
    expect(sentences('#v=1&runs.1.live.12.rollout.temperature=9')).toEqual([
      "Dr. MAS run: Temperature at step 12 must be at most 4; got '9'",
    ]);
    // Not a live field: named by its key, the step kept in the message.
    expect(sentences('#v=1&runs.0.live.5.optim.weightDecay=0.1')[0]).toBe(
      "runs.0.live.5.optim.weightDecay: live change at step 5: unknown field; got '0.1'",
    );
  });

  it('leaves a message it has no words for as the decoder wrote it, after a colon', () => {
    expect(sentences('#v=1&optim.lr')).toEqual(['Learning rate: expected key=value']);
    expect(sentences('#task=math')).toEqual(['v: missing; expected v=1']);
  });
});
