/**
 * Why the experiment cannot run now, as the page says it next to Train: a field holding a
 * refused value (by its label), the backend check still running or finding no backend, a workflow
 * whose agents have no base models yet (docs/workflows.md#in-the-page), a link that waits for its
 * workflow's files (the experiment on screen is not the link's), and a config over the
 * memory limit (the same check that refuses it at start, session/controller.ts). Any reason
 * keeps Train, Step, Run again and Continue off, so nothing trains with a value other than the
 * one on screen; so does a session another tab is training (read-only here), and an opened
 * result file (trained elsewhere). No React.
 */
import type { Experiment } from '../core/config';
import { baseModelsKey } from '../core/workflow/base-key';
import { memoryVerdict } from '../sizing/memory';
import { needsPreparedBase } from './session/workflow-library';
import { fieldReason, splitKeys } from './field-labels';
import type { LabState } from './session/store';

/**
 * Train waits while the backend check runs (at every load, for a second or so): no alarm, and the
 * page says what it waits for instead of "Train is off" while this is the only reason.
 */
export const CHECKING_BACKEND = 'Checking which backend can run it…';

/** Whether Train only waits for the backend check: no reason but that one. */
export const onlyWaiting = (reasons: readonly string[]): boolean =>
  reasons.length > 0 && reasons.every((r) => r === CHECKING_BACKEND);

/** What leads the reasons where the page says them: "Train is off: ", or nothing while it only waits. */
export const trainOffLead = (reasons: readonly string[]): string =>
  onlyWaiting(reasons) ? '' : 'Train is off: ';

/**
 * Where else the page asks for Train (the status line, the empty chart area, the first screen's
 * steps): the reasons are said once, beside Train, and these places point there.
 */
export const trainOffPointer = (reasons: readonly string[]): string =>
  onlyWaiting(reasons) ? 'Train waits for the backend check' : 'Train is off (why: beside it, at the top)';

/** The reasons as one line of plain text (for a title), each field as the reasons beside Train name it. */
export const trainOffText = (reasons: readonly string[]): string =>
  trainOffLead(reasons) +
  reasons
    .map((r) =>
      splitKeys(r)
        .map((p) => ('text' in p ? p.text : `${p.label} (${p.path})`))
        .join(''),
    )
    .join('; ');

/** Where Train waits for a workflow's base models: Controls makes its "Prepare base models" a button. */
export const PREPARE = 'Prepare base models';
// The remedy first: the header shows one line of it, cut with an ellipsis where it is long.
export const NO_BASE_MODELS = `${PREPARE} first: this workflow’s agents have none yet`;

/**
 * `wanted`: a link waits for its files. `preparing`: the baseModelsKey of the base models being
 * prepared, if any (another workflow's, maybe).
 */
export function trainBlockers(
  s: Pick<LabState, 'fieldErrors' | 'backend' | 'config'> &
    Partial<Pick<LabState, 'readOnly' | 'opened' | 'baseModels' | 'uploads'>> & {
      preparing?: string | null;
      wanted?: boolean;
    },
): string[] {
  const reasons = Object.values(s.fieldErrors).flatMap((errors) =>
    errors.map((e) => fieldReason(e, s.config)),
  );
  // One writer per session (session/writer-lock.ts): this tab shows it read-only.
  if (s.readOnly)
    reasons.push(
      s.readOnly.free
        ? 'The tab that trained this session has stopped: Take over to train it here'
        : 'Another tab is training this session: it is shown here read-only',
    );
  // A result file's runs: no worker holds them, there is nothing here to go on from.
  if (s.opened)
    reasons.push(
      `${s.opened.name} is a result opened read-only (Train it here, in its banner, trains its experiment here beside it)`,
    );
  // A link waiting for its files (workflow-open.ts) is not the experiment on screen: Train would train the wrong one.
  if (s.wanted)
    reasons.push(
      'This link waits for its workflow’s files: open them where it asks, or keep the experiment on screen',
    );
  if (s.backend.state === 'probing') reasons.push(CHECKING_BACKEND);
  else if (s.backend.state === 'refused') reasons.push('No usable compute backend (see Backend below)');
  else if (s.backend.state === 'error') reasons.push(`The backend check failed: ${s.backend.message}`);
  // A workflow whose agents are its own starts from base models prepared for it (or chosen files).
  if (needsPreparedBase(s.config) && !s.uploads?.length && !(baseKey(s.config) in (s.baseModels ?? {})))
    reasons.push(
      s.preparing === baseKey(s.config)
        ? 'Preparing the base models of this workflow’s agents…'
        : NO_BASE_MODELS,
    );
  // An estimate that cannot be made is said by the Experiment panel, not here.
  const memory = memoryVerdict(s.config, s.config.backend);
  if (!memory.error && memory.refused) reasons.push(`Memory: ${memory.refused}`);
  return reasons;
}

/** baseModelsKey, once per experiment object (a SHA-256 of its workflow and models). */
const keys = new WeakMap<Experiment, string>();
function baseKey(exp: Experiment): string {
  let key = keys.get(exp);
  if (key === undefined) keys.set(exp, (key = baseModelsKey(exp)));
  return key;
}

/**
 * Why Train it here cannot train an opened result's experiment now (docs/sharing.md#train-it-here):
 * Train's own reasons for the experiment on screen, which is the result's, less the result being
 * opened (what Train it here is for): its workflow's base models not prepared in this browser, a
 * refused field, no backend. A session that failed at step 0 on every run would say less.
 */
export function trainHereBlockers(s: LabState): string[] {
  return trainBlockers({
    ...s,
    opened: null,
    readOnly: null,
    preparing: s.preparing?.key ?? null,
    wanted: s.wanted !== null,
  });
}
