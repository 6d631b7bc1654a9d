/**
 * Why Train is off, in the page's words: a refused field by its label and the schema's bound in
 * plain words; the backend check; a config over the memory limit, whose message names the
 * fields by label with the config key beside it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';
import type { Experiment } from '../../src/core/config';
import { fieldReason, labelOf, plainMessage, splitKeys } from '../../src/ui/field-labels';
import { onlyWaiting, trainBlockers, trainHereBlockers, trainOffText } from '../../src/ui/train-blockers';
import type { BackendStatus, LabState } from '../../src/ui/session/store';
import { baseModelsKey } from '../../src/core/workflow/base-key';
import { exampleExperiment } from '../tasks/workflow-examples';

const ready = { state: 'ready' } as unknown as BackendStatus; // only its state is read

function refusal(patch: Partial<Experiment['rollout']>) {
  const r = validateExperiment({
    ...DEFAULT_EXPERIMENT,
    rollout: { ...DEFAULT_EXPERIMENT.rollout, ...patch },
  });
  if (r.ok) throw new Error('expected a refusal');
  return r.errors;
}

describe('Train blockers', () => {
  it('names a refused field by its label, with the bound in words', () => {
    const errors = refusal({ groupSize: 512 });
    expect(fieldReason(errors[0])).toBe('Group size G must be at most 32');
    expect(
      trainBlockers({
        fieldErrors: { 'rollout.groupSize': errors },
        backend: ready,
        config: DEFAULT_EXPERIMENT,
      }),
    ).toEqual(['Group size G must be at most 32']);
    expect(plainMessage('Too small: expected number to be >=2')).toBe('must be at least 2');
    expect(plainMessage('Too small: expected number to be >0')).toBe('must be more than 0');
    expect(plainMessage('expected a whole number')).toBe('must be a whole number');
    // Live fields and runs' estimators have labels too; a path without one is named as it is.
    expect(labelOf('optim.lr')).toBe('Learning rate');
    expect(labelOf('runs.1.estimator', DEFAULT_EXPERIMENT)).toBe('Dr. MAS run: Estimator');
    expect(fieldReason({ path: 'colour', message: 'unknown field' })).toBe(
      'colour is not a field of an experiment',
    );
  });

  it('has no reason for the default experiment once the backend is ready, and says the check while it runs', () => {
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: DEFAULT_EXPERIMENT })).toEqual([]);
    expect(
      trainBlockers({ fieldErrors: {}, backend: { state: 'probing' }, config: DEFAULT_EXPERIMENT }),
    ).toEqual(['Checking which backend can run it…']);
  });

  it('while only the backend check runs (every load), says what Train waits for, not "Train is off"; a real reason keeps it', () => {
    const probing = { state: 'probing' } as const;
    const waiting = trainBlockers({ fieldErrors: {}, backend: probing, config: DEFAULT_EXPERIMENT });
    expect(onlyWaiting(waiting)).toBe(true);
    expect(trainOffText(waiting)).toBe('Checking which backend can run it…');
    const refused = { 'rollout.groupSize': refusal({ groupSize: 512 }) };
    const both = trainBlockers({ fieldErrors: refused, backend: probing, config: DEFAULT_EXPERIMENT });
    expect(onlyWaiting(both)).toBe(false);
    expect(trainOffText(both)).toBe(
      'Train is off: Group size G must be at most 32; Checking which backend can run it…',
    );
    const off = trainBlockers({ fieldErrors: refused, backend: ready, config: DEFAULT_EXPERIMENT });
    expect(trainOffText(off)).toBe('Train is off: Group size G must be at most 32');
    expect(onlyWaiting([])).toBe(false);
  });

  it('refuses B = 64, G = 32 on base models for memory, naming Batch size B by its label', () => {
    const config = {
      ...DEFAULT_EXPERIMENT,
      models: { ...DEFAULT_EXPERIMENT.models, preset: 'base' },
      rollout: { ...DEFAULT_EXPERIMENT.rollout, batchSize: 64, groupSize: 32 },
    } as Experiment;
    const [reason] = trainBlockers({ fieldErrors: {}, backend: ready, config });
    expect(reason).toMatch(/^Memory: this experiment needs about 179\.8 GB/);
    // The words the page shows (Labelled): each key read as its label.
    expect(
      splitKeys(reason)
        .map((p) => ('text' in p ? p.text : p.label))
        .join(''),
    ).toContain('lower Batch size B, Group size G or the model size, or raise Mini-batches');
    expect(splitKeys(reason).filter((p) => 'path' in p)).toEqual([
      { path: 'rollout.batchSize', label: 'Batch size B' },
      { path: 'rollout.groupSize', label: 'Group size G' },
      { path: 'optim.miniBatches', label: 'Mini-batches' },
    ]);
  });
});

describe('Train blockers of a workflow experiment', () => {
  const withWorkflow = exampleExperiment;
  const summary = {
    steps: 20,
    success: 0.3,
    own: {},
    short: false,
    seconds: 1,
    workflow: 'relay',
    savedAt: 0,
  };

  it('Train it here on an opened result waits for what Train would, less the result being opened', () => {
    const relay = withWorkflow('relay');
    const opened = { name: 'relay.lab.json.gz' } as unknown as NonNullable<LabState['opened']>;
    const state = (patch: Partial<LabState>) =>
      ({
        fieldErrors: {},
        backend: ready,
        config: relay,
        opened,
        readOnly: null,
        preparing: null,
        wanted: null,
        ...patch,
      }) as unknown as LabState;
    // Train is off for the opened result; Train it here only for the base models it lacks here.
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: relay, opened })).toHaveLength(2);
    expect(trainHereBlockers(state({}))).toEqual([
      'Prepare base models first: this workflow’s agents have none yet',
    ]);
    const key = baseModelsKey(relay);
    expect(trainHereBlockers(state({ baseModels: { [key]: { ...summary, key } } }))).toEqual([]);
    expect(trainHereBlockers(state({ config: DEFAULT_EXPERIMENT }))).toEqual([]);
  });

  it('waits for base models of a workflow whose agents are its own, and for none of one that ships them', () => {
    const relay = withWorkflow('relay');
    const reason = 'Prepare base models first: this workflow’s agents have none yet';
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: relay })).toEqual([reason]);
    expect(
      trainBlockers({ fieldErrors: {}, backend: ready, config: relay, preparing: baseModelsKey(relay) }),
    ).toEqual(['Preparing the base models of this workflow’s agents…']);
    // Another workflow's preparation is not this one's: its base models are still missing.
    const router = baseModelsKey(withWorkflow('router'));
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: relay, preparing: router })).toEqual([
      reason,
    ]);
    // Prepared (kept under the experiment's key), or checkpoint files chosen instead: nothing waits.
    const key = baseModelsKey(relay);
    const baseModels = { [key]: { ...summary, key } };
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: relay, baseModels })).toEqual([]);
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: relay, uploads: ['ann.ckpt'] })).toEqual(
      [],
    );
    // Another model size is another key: those base models do not fit it.
    const small = { ...relay, models: { ...relay.models, preset: 'small' as const } };
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: small, baseModels })).toEqual([reason]);
    // A link waiting for its workflow's files: the experiment on screen is not the link's.
    expect(
      trainBlockers({ fieldErrors: {}, backend: ready, config: DEFAULT_EXPERIMENT, wanted: true }),
    ).toEqual([
      'This link waits for its workflow’s files: open them where it asks, or keep the experiment on screen',
    ]);
    // math.yaml's agents are the math task's: its runs start from the shipped models.
    expect(trainBlockers({ fieldErrors: {}, backend: ready, config: withWorkflow('math') })).toEqual([]);
  });
});
