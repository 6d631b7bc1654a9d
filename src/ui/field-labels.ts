/**
 * What the page calls each config field: its label ("Group size G"), never its config key, in
 * every message about it. The one home of the labels: the inline fields, Train's reasons and
 * the refusals (memory, a bad edit) all read them here. No React.
 */
import { LIVE, LIVE_PARAMS } from '../core/live-params';
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import { refusalWords } from '../core/config-words';
// The words of a refusal are core's (config-words.ts), so the CLI says them too; the page reads them here.
export { echoed, plainMessage } from '../core/config-words';

/** How each run samples: its own rollout.sampling, else the experiment's. */
const samplings = (c: Experiment) => c.runs.map((r) => r.rollout.sampling ?? c.rollout.sampling);

/**
 * The structural fields edited inline, by schema path, in the order the panel shows them; `shown`
 * where a field means something only in some experiments (G is unused where every run grows mcts
 * trees, whose size is N: docs/tree-sampling.md#mcts-sampling-mars2).
 */
export const FIELDS: readonly { path: string; label: string; shown?: (c: Experiment) => boolean }[] = [
  { path: 'task', label: 'Task' },
  { path: 'models.assignment', label: 'Model assignment' },
  { path: 'models.preset', label: 'Model size' },
  { path: 'rollout.groupSize', label: 'Group size G', shown: (c) => samplings(c).some((s) => s !== 'mcts') },
  { path: 'rollout.nodes', label: 'Tree nodes N', shown: (c) => samplings(c).includes('mcts') },
  { path: 'rollout.batchSize', label: 'Batch size B' },
  { path: 'reward.credit', label: 'Per-agent credit' },
  { path: 'reward.creditWeight', label: 'Credit weight λ' },
  { path: 'rollout.sampling', label: 'Sampling' },
  { path: 'rollout.filter', label: 'Group filter' },
  { path: 'train.buffer', label: 'Buffers' },
  { path: 'train.bufferSize', label: 'Buffer size' },
  { path: 'steps', label: 'Steps' },
  { path: 'seed', label: 'Seed' },
  { path: 'seeds', label: 'Seeds' },
];

/** The live fields by their config path ("optim.lr" → "Learning rate"): a run's schedule names them too. */
const LIVE_LABELS: Record<string, string> = Object.fromEntries(
  LIVE_PARAMS.map((p) => [
    `${LIVE[p].section}.${p}`,
    LIVE[p].label[0].toUpperCase() + LIVE[p].label.slice(1),
  ]),
);

/** Fields a message may name that have no inline field of their own. */
const OTHER_LABELS: Record<string, string> = { 'optim.miniBatches': 'Mini-batches', ...LIVE_LABELS };

const LABELS: Record<string, string> = {
  ...Object.fromEntries(FIELDS.map((f) => [f.path, f.label])),
  ...OTHER_LABELS,
};

/**
 * Fields keyed by an agent's name: its dials (docs/vocabulary.md, dial) and its model, named after
 * the agent ("Reward scale of alice").
 */
const AGENT_FIELDS: Record<string, string> = {
  'reward.scale': 'Reward scale',
  'reward.offset': 'Reward offset',
  'models.perAgent': 'Model',
};
const agentLabel = (path: string): string | undefined => {
  const m = /^(.+)\.([^.]+)$/.exec(path);
  return m && AGENT_FIELDS[m[1]] ? `${AGENT_FIELDS[m[1]]} of ${m[2]}` : undefined;
};

/** A run's own fields, which the experiment has not: named after the run ("GRPO run: Estimator"). */
const RUN_FIELDS: Record<string, string> = { estimator: 'Estimator', label: 'Legend name' };

/**
 * A run as a label names it: by its legend label where it is known ("GRPO run"), else by its
 * place among the runs, counted from 1 as a reader counts ("Run 2" for runs.1).
 */
const runName = (index: number, label?: string): string => (label ? `${label} run` : `Run ${index + 1}`);

/**
 * The label of a field by its path, the label of run i given by `runLabel(i)`. A run's fields
 * are named by the run, then the field: its estimator ("GRPO run: Estimator"), an experiment field
 * it overrides ("GRPO run: Learning rate") and a live change it took at a step ("GRPO run:
 * Learning rate at step 179" for `runs.0.live.179.optim.lr`).
 */
function labelFor(path: string, runLabel: (i: number) => string | undefined): string | undefined {
  const run = /^runs\.(\d+)\.(.+)$/.exec(path);
  if (!run) return LABELS[path] ?? agentLabel(path);
  const live = /^live\.(\d+)\.(.+)$/.exec(run[2]);
  const field = live
    ? LIVE_LABELS[live[2]] && `${LIVE_LABELS[live[2]]} at step ${live[1]}`
    : (RUN_FIELDS[run[2]] ?? LABELS[run[2]] ?? agentLabel(run[2]));
  const i = Number(run[1]);
  return field && `${runName(i, runLabel(i))}: ${field}`;
}

/** The label of a field by its path; a run's fields by the run's label in `config` where given. */
export const labelOf = (path: string, config?: Experiment): string | undefined =>
  labelFor(path, (i) => config?.runs[i]?.label);

/**
 * The label a refusal names its field by. A run is named by the label the refused input gave it
 * (`FieldError.run`), else by `config`'s. A key the schema does not know where it stands is named
 * by the key alone: a label would say it is a field there (`runs.0.rollout.groupSize`).
 */
const errorLabel = (e: FieldError, config?: Experiment): string | undefined =>
  e.message === 'unknown field' ? undefined : labelFor(e.path, (i) => e.run ?? config?.runs[i]?.label);

/**
 * A refusal as the page says it: the field's label (none where the field has no label: it is
 * named by its key), then the words after it, the plain message and the link's own text for it
 * where there was one ("must be a number; got 'banana'"). Messages that read as a sentence
 * ("must …", "is …") follow the name directly; any other keeps a colon.
 */
export function refusal(e: FieldError, config?: Experiment): { label?: string; text: string } {
  const label = errorLabel(e, config);
  return { label, text: refusalWords(e, label !== undefined) };
}

/**
 * One refusal on one line: "Group size G must be at most 32", "GRPO run: Learning rate at step
 * 179 must be a number; got 'banana'" (the key where a field has no label).
 */
export function fieldReason(e: FieldError, config?: Experiment): string {
  const { label, text } = refusal(e, config);
  return `${label ?? e.path}${text}`;
}

/**
 * Dotted keys a message may name, longest first so no shorter key matches inside a longer one
 * (one-word keys such as `steps` are left alone: they read as prose).
 */
const KNOWN = Object.keys(LABELS)
  .filter((k) => k.includes('.'))
  .sort((a, b) => b.length - a.length);

/**
 * A message cut into text and the config keys it names, so the page can show each key as its
 * label with the key in small print ("Batch size B (rollout.batchSize)").
 */
export function splitKeys(message: string): ({ text: string } | { path: string; label: string })[] {
  const out: ({ text: string } | { path: string; label: string })[] = [];
  let rest = message;
  for (;;) {
    let at = -1;
    let key = '';
    for (const k of KNOWN) {
      const i = rest.indexOf(k);
      if (i >= 0 && (at < 0 || i < at)) [at, key] = [i, k];
    }
    if (at < 0) break;
    if (at > 0) out.push({ text: rest.slice(0, at) });
    out.push({ path: key, label: LABELS[key] });
    rest = rest.slice(at + key.length);
  }
  if (rest) out.push({ text: rest });
  return out;
}
