/**
 * Reading an experiment from outside (a link, a JSON file, a stored session or state): what earlier
 * builds wrote is read as today's (old field names here, old role names in renamed-roles.ts, a
 * missing run label from its estimator in run-labels.ts), then the schema judges it, and every
 * problem comes back as a FieldError naming its dotted path in a reader's words. Unknown keys and
 * type mismatches are errors, never ignored; nothing is evaluated. Pure: no tfjs, no DOM.
 */
import { suggestField, suggestValue } from './config-suggest';
import { ExperimentSchema, type Experiment } from './config';
import { MAX_STEPS } from './config-names';
import { runLabel } from './config-run';
import { LIVE, type LiveParam } from './live-params';
import { isRecord, renameRolesInConfig } from './renamed-roles';
import { labelRunsByEstimator } from './run-labels';
import { presetById } from './presets';
import { refusalWords } from './config-words';
import type { FieldError } from './config-words';

export type { FieldError } from './config-words';

/**
 * One refusal as text in the page's words, named by its key: "rollout.groupSize must be at most
 * 32; got '999'" (the CLI's lines, a sweep's, a run state's; config-words.ts).
 */
export const fieldErrorText = (e: FieldError): string => `${e.path}${refusalWords(e)}`;

/** Field errors on one line, `path must …; …` (how a sweep, a sweep map and a run state say them). */
export const fieldErrorsText = (errors: readonly FieldError[]): string =>
  errors.map(fieldErrorText).join('; ');

/**
 * Field names of earlier builds, read as today's: `optim.lrPerAgent.<agent>` (of the experiment or
 * a run) is `optim.perAgent.<agent>.lr`, so links, stored sessions and session folders written before
 * keep working. Everything else is left for the schema to judge.
 */
function renameLegacy(input: unknown): unknown {
  const optimOf = (optim: unknown): unknown => {
    if (!isRecord(optim) || !isRecord(optim.lrPerAgent)) return optim;
    const { lrPerAgent, ...rest } = optim;
    const perAgent: Record<string, unknown> = isRecord(rest.perAgent) ? { ...rest.perAgent } : {};
    for (const [agent, lr] of Object.entries(lrPerAgent))
      perAgent[agent] = { lr, ...(isRecord(perAgent[agent]) ? perAgent[agent] : {}) };
    return { ...rest, perAgent };
  };
  if (!isRecord(input)) return input;
  const out = { ...input };
  if ('optim' in out) out.optim = optimOf(out.optim);
  if (Array.isArray(out.runs))
    out.runs = out.runs.map((r: unknown) =>
      isRecord(r) && 'optim' in r ? { ...r, optim: optimOf(r.optim) } : r,
    );
  return out;
}

/**
 * Validates a plain object; unknown keys and type mismatches are errors, never ignored. A task's
 * old role names (renamed-roles.ts) are read as today's, and `note` says so.
 */
export function validateExperiment(
  input: unknown,
): { ok: true; config: Experiment; note?: string } | { ok: false; errors: FieldError[] } {
  const roles = renameRolesInConfig(input); // plan's solver/coder are its planner/executor
  if (roles.conflicts.length) return { ok: false, errors: roles.conflicts };
  // A run given an estimator and no label is named by its estimator (run-labels.ts).
  const labelled = labelRunsByEstimator(roles.input);
  const r = ExperimentSchema.safeParse(renameLegacy(labelled.input));
  const note = [roles.note, labelled.note].filter(Boolean).join('; ');
  if (r.success) return { ok: true, config: r.data, ...(note ? { note } : {}) };
  const errors = r.error.issues.flatMap((issue): FieldError[] => {
    const at = issue.path.map(String);
    const run = runLabelAt(labelled.input, at);
    const ofRun = run === undefined ? {} : { run };
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => {
        const path = [...at, k].join('.');
        const preset = at.length === 0 ? presetNamed(valueAt(labelled.input, [k])) : undefined;
        if (preset) return { path, message: 'unknown field', hint: preset };
        const meant = at.includes('live') ? undefined : suggestField(path);
        return {
          path,
          message: scheduleMessage([...at, k], issue.code, 'unknown field'),
          ...ofRun,
          ...(meant ? { hint: `did you mean ${meant}?`, meant: { key: meant } } : {}),
        };
      });
    }
    // zod says "expected int, received number" for 2.5: a reader sees two numbers.
    const notWhole = issue.code === 'invalid_type' && issue.expected === 'int';
    const message = notWhole ? 'expected a whole number' : issue.message;
    // A value one of a list does not take: the one it most likely meant (`task=serch`).
    const given = issue.code === 'invalid_value' ? valueAt(labelled.input, at) : undefined;
    const meant =
      typeof given === 'string' && issue.code === 'invalid_value'
        ? suggestValue(given, issue.values.map(String))
        : undefined;
    return [
      {
        path: at.join('.') || '(root)',
        message: scheduleMessage(at, issue.code, message),
        ...ofRun,
        ...(meant ? { hint: `did you mean ${meant}?`, meant: { value: meant } } : {}),
      },
    ];
  });
  return { ok: false, errors };
}

/**
 * For a key the experiment lacks whose value is an experiment preset's id (`preset=mars2-team`):
 * what to do instead, where the nearest field's name (models.preset, the model size) would mislead.
 */
function presetNamed(value: unknown): string | undefined {
  const preset = typeof value === 'string' ? presetById(value) : undefined;
  if (!preset) return undefined;
  return `${preset.id} is the experiment preset "${preset.title}", and a link holds an experiment's fields, not a preset's id: open it from the presets (the CLI: --preset ${preset.id})`;
}

/** The input's value at a path (as the link or file gave it, runs labelled), or undefined. */
function valueAt(input: unknown, at: readonly string[]): unknown {
  let v: unknown = input;
  for (const k of at) v = isRecord(v) || Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The label the input gives the run at `runs.N.…`, where it is a valid one (else the run is named by N). */
function runLabelAt(input: unknown, at: string[]): string | undefined {
  if (at[0] !== 'runs' || at.length < 3 || !isRecord(input) || !Array.isArray(input.runs)) return undefined;
  const run: unknown = input.runs[Number(at[1])];
  const valid = isRecord(run) ? runLabel.safeParse(run.label) : undefined;
  return valid?.success ? valid.data : undefined;
}

/**
 * A schedule entry's problem in a reader's words: the live field by its label and the step
 * (`learning rate at step 179: …`); a key that is no step says so. Other paths keep `message`.
 */
function scheduleMessage(at: string[], code: string, message: string): string {
  const [runs, , live, step, section, param] = at;
  if (runs !== 'runs' || live !== 'live' || step === undefined) return message;
  if (code === 'invalid_key')
    return `live change at step ${JSON.stringify(step)}: a step is a whole number from 0 to ${MAX_STEPS - 1}`;
  const p = param as LiveParam | undefined;
  const named = p !== undefined && p in LIVE && LIVE[p].section === section;
  return `${named ? LIVE[p].label : 'live change'} at step ${step}: ${message}`;
}
