/**
 * Editing the experiment from the UI: the schema (src/core/config.ts) is the only source of field
 * names, choices, limits and docs, read here by walking ExperimentSchema to a dotted path; and one
 * way to apply an edited config, so the inline fields and the JSON editor behave alike. No tfjs.
 */
import { z } from 'zod';
import { ExperimentSchema, structuralKey } from '../core/config';
import { BUFFER_MODES, CREDIT_MODES, GROUP_FILTERS, SINGLETON_MODES } from '../core/config-names';
import { LIVE_PARAMS, liveValue } from '../core/live-params';
import type { Experiment } from '../core/config';
import { AGGREGATIONS, KL_ESTIMATORS, POLICY_LOSSES } from '../core/losses';
import { valueAt } from '../core/url';
import { dialList } from '../core/url-sweep';
import type { Dial } from '../core/url-sweep';
import { ESTIMATOR_OPTIONS, estimatorLabel } from '../core/estimators';
import { TASKS } from '../tasks/registry';
import { SAMPLINGS } from '../tasks/sampling';
import { controller } from './session/page';
import { labelOf } from './field-labels';
import { ask, chooseConfig, setExperiment, takePending, useLab } from './session/store';
import { expandWorkflow } from '../core/workflow/families';

/** The schema of the field at a dotted path ('rollout.groupSize', 'runs.0.estimator'), unwrapped. */
function fieldAt(path: string): { type: z.ZodType; doc?: string } {
  let type: z.ZodType = ExperimentSchema;
  let doc: string | undefined;
  const unwrap = () => {
    for (;;) {
      doc ??= type.description;
      if (type instanceof z.ZodDefault || type instanceof z.ZodPrefault || type instanceof z.ZodOptional)
        type = type.unwrap() as z.ZodType;
      else return;
    }
  };
  for (const key of path.split('.')) {
    unwrap();
    doc = undefined; // the doc of the field itself, not of its parent
    if (type instanceof z.ZodObject) type = type.shape[key] as z.ZodType;
    else if (type instanceof z.ZodArray) type = type.element as z.ZodType;
    if (!type) throw new Error(`no field ${path} in the experiment schema`);
  }
  unwrap();
  return { type, doc };
}

/** The choices of an enum field, in the schema's order. */
export function enumOptions(path: string): readonly string[] {
  const { type } = fieldAt(path);
  if (!(type instanceof z.ZodEnum)) throw new Error(`${path} is not an enum field`);
  return type.options as string[];
}

/** The bounds of a number field (an exclusive bound shows as the bound; validation says the rest). */
export function numberLimits(path: string): { min?: number; max?: number; int: boolean } {
  const { type } = fieldAt(path);
  if (!(type instanceof z.ZodNumber)) throw new Error(`${path} is not a number field`);
  const finite = (v: number | null) => (v !== null && Number.isFinite(v) ? v : undefined);
  return { min: finite(type.minValue), max: finite(type.maxValue), int: type.isInt };
}

/** A registry entry that is a choice field's option: its doc and, where it has one, the name people know it by. */
interface OptionEntry {
  doc: string;
  label?: string;
}

/** The registries whose entries are a choice field's options: they label the options and give their docs. */
const OPTION_REGISTRIES: Record<string, Record<string, OptionEntry>> = {
  task: {
    ...TASKS,
    workflow: { doc: 'Your own workflow file: agents, data, flow and rewards (docs/workflows.md)' },
  },
  estimator: ESTIMATOR_OPTIONS,
  policyLoss: POLICY_LOSSES,
  klType: KL_ESTIMATORS,
  lossAgg: AGGREGATIONS,
  singleton: SINGLETON_MODES,
  credit: CREDIT_MODES,
  sampling: SAMPLINGS,
  filter: GROUP_FILTERS,
  buffer: BUFFER_MODES,
};

function optionEntry(path: string, option: string): OptionEntry | undefined {
  const registry = OPTION_REGISTRIES[path.slice(path.lastIndexOf('.') + 1)];
  return registry && Object.hasOwn(registry, option) ? registry[option] : undefined;
}

/**
 * The doc of one option of a choice field (an estimator's normalization set and reference, a KL
 * type's formula, …), from its registry entry; undefined for a field without a registry.
 */
export const optionDoc = (path: string, option: string): string | undefined => optionEntry(path, option)?.doc;

/**
 * What a choice field shows for an option: its registry's label ('Dr. MAS' for drmas), else the
 * option's name. The option's value stays the name: that is what the config and the link hold.
 */
export const optionLabel = (path: string, option: string): string =>
  optionEntry(path, option)?.label ?? option;

/** The field's one-line doc from the schema (shown as a tooltip). */
export const fieldDoc = (path: string): string | undefined => fieldAt(path).doc;

/**
 * A run's own settings as the link writes them (`optim.policyLoss=reinforce`), for the runs list:
 * each with its section, since keys alone collide or say nothing (`joint`, `buffer`).
 */
export function runOverrides(r: Experiment['runs'][number]): string[] {
  const pairs = (v: unknown, path: string): string[] =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v).flatMap(([k, w]) => pairs(w, path ? `${path}.${k}` : k))
      : [`${path}=${Array.isArray(v) ? v.join(',') : String(v)}`];
  const { advantage, optim, reward, rollout, train } = r;
  return pairs({ advantage, optim, reward, rollout, train: train ?? {} }, '');
}

/**
 * The header's subtitle: the runs on screen by label ("MARS2 vs Dr. MAS, per agent, live"), led by
 * the workflow's name where the task is the user's own ("relay: GRPO vs Dr. MAS, …"): nothing else
 * near the top says which system trains.
 */
export const runsTitle = (c: Experiment): string =>
  `${c.task === 'workflow' && c.workflow ? `${expandWorkflow(c.workflow).name}: ` : ''}${c.runs.map((r) => r.label).join(' vs ')}, per agent, live`;

/** A copy of the config with the value at a dotted path replaced (arrays stay arrays). */
export function setAt(config: Experiment, path: string, value: unknown): unknown {
  const put = (o: unknown, keys: string[]): unknown => {
    if (keys.length === 0) return value;
    const [k, ...rest] = keys;
    if (Array.isArray(o)) return o.map((x, i) => (String(i) === k ? put(x, rest) : x));
    const obj = (o ?? {}) as Record<string, unknown>;
    return { ...obj, [k]: put(obj[k], rest) };
  };
  return put(config, path.split('.'));
}

/**
 * Applies a validated config. A change of live fields only goes to the running workers as a live
 * change (a chart marker, no reset); anything structural needs new runs, so it goes through
 * proposeConfig, as does every change while a result is opened (it is read-only: the Experiment
 * panel's fields are off then, and a Workflow or backend pick asks before the result leaves).
 */
export function applyExperiment(next: Experiment): void {
  const { config, sessionState, opened } = useLab.getState();
  // An opened result's experiment is the one it ran: any change, a live value too, is a new
  // session (asked first), never an edit of what the result shows.
  if (opened || structuralKey(next) !== structuralKey(config)) return proposeConfig(next);
  for (const p of LIVE_PARAMS) {
    const v = liveValue(next, p);
    if (v !== liveValue(config, p)) controller.setLiveNext(p, v);
  }
  // With runs on screen, the schedule records each change at the step a run takes it
  // (session/controller.ts setLiveNext).
  if (sessionState !== 'idle') return;
  chooseConfig(next);
}

type Run = Experiment['runs'][number];

/** The leaves of a config value by dotted path; an array is one leaf (a comma list on the page). */
function leaves(v: unknown, path: string, out: Map<string, unknown>): Map<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v))
    for (const [k, w] of Object.entries(v)) leaves(w, path ? `${path}.${k}` : k, out);
  else out.set(path, v);
  return out;
}

/** A dial left out is no change: a scale of 1, an offset of 0 (docs/vocabulary.md, dial). */
const DIAL_DEFAULTS: Record<string, number> = { scale: 1, offset: 0 };
const dialDefault = (path: string): number | undefined =>
  /^(?:runs\.\d+\.)?reward\.(scale|offset)\.[^.]+$/.test(path)
    ? DIAL_DEFAULTS[path.split('.').at(-2)!]
    : undefined;

/** A value as the page shows it: a choice by its label (Dr. MAS for drmas), a list comma-separated. */
function shown(path: string, v: unknown): string {
  if (v === undefined) return String(dialDefault(path) ?? 'none');
  if (typeof v === 'string') return optionLabel(path, v);
  if (Array.isArray(v)) return v.join(', ');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** "Group size G 8 → 16" for each leaf that differs, named by its label (its key where it has none). */
function leafChanges(
  from: Map<string, unknown>,
  to: Map<string, unknown>,
  name: (path: string) => string,
  at: (path: string) => string = (path) => path,
): string[] {
  const paths = [...new Set([...to.keys(), ...from.keys()])];
  return paths
    .filter((p) => JSON.stringify(from.get(p)) !== JSON.stringify(to.get(p)))
    .filter((p) => shown(at(p), from.get(p)) !== shown(at(p), to.get(p)))
    .map((p) => `${name(p)} ${shown(at(p), from.get(p))} → ${shown(at(p), to.get(p))}`);
}

/** A run's estimator as the runs list shows it: its label, a custom one by its sets. */
const estimatorShown = (c: Experiment, r: Run): string =>
  r.estimator === 'custom'
    ? estimatorLabel('custom', { ...c.advantage, ...r.advantage })
    : optionLabel('estimator', r.estimator);

/**
 * A run's own settings, each the value it trains with: what it overrides, else the experiment's
 * (so a run given `rollout.sampling=tree` reads "Sampling parallel → tree").
 */
function runLeaves(c: Experiment, r: Run, paths: Iterable<string>): Map<string, unknown> {
  const { label: _label, estimator: _estimator, ...rest } = r;
  const own = leaves(rest, '', new Map([['estimator', estimatorShown(c, r)]]));
  for (const p of paths) if (!own.has(p) && !p.startsWith('live.')) own.set(p, valueAt(c, p));
  return own;
}

/**
 * Every field a change touches, by its label with its values as the page shows them ("Task search
 * → sync-own, Reward scale of alice 1 → 8, adds a run Step-level"). Runs are matched
 * by label: a run only one side has is said as added or removed, never as a field of another run.
 */
function changeWords(from: Experiment, to: Experiment): string {
  const top = (c: Experiment) => {
    const { runs: _runs, workflow: _workflow, ...rest } = c;
    return leaves(rest, '', new Map());
  };
  const named = leafChanges(top(from), top(to), (p) => labelOf(p) ?? p);
  if (JSON.stringify(from.workflow) !== JSON.stringify(to.workflow)) {
    const name = (c: Experiment) => (c.workflow ? expandWorkflow(c.workflow).name : 'none');
    named.push(
      name(from) === name(to) ? `Workflow ${name(to)} edited` : `Workflow ${name(from)} → ${name(to)}`,
    );
  }
  const before = new Map(from.runs.map((r) => [r.label, r]));
  const after = new Set(to.runs.map((r) => r.label));
  to.runs.forEach((r, i) => {
    const was = before.get(r.label);
    // Its estimator after it where the label does not say it ("adds a run GRPO + credit (GRPO)").
    const says = estimatorShown(to, r) === r.label ? '' : ` (${estimatorShown(to, r)})`;
    if (!was) return named.push(`adds a run ${r.label}${says}`);
    const paths = [...runLeaves(from, was, []).keys(), ...runLeaves(to, r, []).keys()];
    named.push(
      ...leafChanges(
        runLeaves(from, was, paths),
        runLeaves(to, r, paths),
        (p) => labelOf(`runs.${i}.${p}`, to) ?? `${r.label} run: ${p}`,
        (p) => (p === 'estimator' ? 'label' : p), // already the estimator's label
      ),
    );
  });
  for (const r of from.runs) if (!after.has(r.label)) named.push(`removes a run ${r.label}`);
  const order = (c: Experiment) =>
    c.runs
      .map((r) => r.label)
      .filter((l) => before.has(l) && after.has(l))
      .join(', ');
  if (order(from) !== order(to)) named.push(`Run order ${order(from)} → ${order(to)}`);
  return named.length > 0 ? named.join(', ') : 'other settings (a preset, the JSON or a link)';
}

/**
 * A reset-field change (one that needs new runs), from a field, a preset, the JSON or a link
 * (`drop` puts the address bar back if the runs are kept). It goes through ask: with runs on
 * screen it waits until the user keeps the runs (the change is dropped) or starts a new session
 * (the old one stays in Past sessions). Asking, rather than starting the new session beside the old
 * one, because the charts compare the runs of one experiment: two sessions would mix them.
 */
export function proposeConfig(next: Experiment, drop?: () => void, sweep = useLab.getState().sweep): void {
  const { config, sweep: now } = useLab.getState();
  // A link that changes only the sweep over the same experiment says just that.
  const sweepWords =
    sweepText(now) === sweepText(sweep) ? [] : [`Sweep ${sweepText(now)} → ${sweepText(sweep)}`];
  const same = structuralKey(config) === structuralKey(next) && sweepWords.length > 0;
  const detail = [...(same ? [] : [changeWords(config, next)]), ...sweepWords].join(', ');
  const apply = () => {
    chooseConfig(next);
    setExperiment({ sweep });
  };
  ask({ title: 'This change needs new runs', detail, apply, drop });
}

/** A sweep in words for the question: its dials as a link writes them, "none" without. */
const sweepText = (sweep: readonly Dial[]) =>
  sweep.length ? sweep.map((d) => `${d.key}=${dialList(d.values)}`).join(' × ') : 'none';

/** The Map's "Train without the sweep": the link's experiment alone (asked first with runs on screen). */
export const dropSweep = () => proposeConfig(useLab.getState().config, undefined, []);

/** The user's answer to a pending action: a new session with it (reset applies it), or keep the runs. */
export function answerPending(startNew: boolean): void {
  if (startNew) return controller.reset(); // the runs stay in Past sessions
  takePending()?.drop?.();
}
