/**
 * Why the experiment cannot run now, as the page says it next to Train: a field holding a
 * refused value (by its label), the backend check still running or finding no backend, and a
 * config over the memory limit (the same check that refuses it at start, session/controller.ts). Any reason
 * keeps Train, Step, Run again and Continue off, so nothing trains with a value other than the
 * one on screen; so does a session another tab is training (read-only here), and an opened
 * result file (trained elsewhere). No React.
 */
import { memoryVerdict } from '../sizing/memory';
import { fieldReason } from './field-labels';
import type { LabState } from './session/store';

export function trainBlockers(
  s: Pick<LabState, 'fieldErrors' | 'backend' | 'config'> & Partial<Pick<LabState, 'readOnly' | 'opened'>>,
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
  // A result file's runs trained on another machine: there is nothing here to go on from.
  if (s.opened)
    reasons.push(
      `${s.opened.name} is a result opened read-only: it was not trained here (Reset, then Train, trains its experiment here)`,
    );
  if (s.backend.state === 'probing') reasons.push('Checking which backend can run it…');
  else if (s.backend.state === 'refused') reasons.push('No usable compute backend (see Backend below)');
  else if (s.backend.state === 'error') reasons.push(`The backend check failed: ${s.backend.message}`);
  // An estimate that cannot be made is said by the Experiment panel, not here.
  const memory = memoryVerdict(s.config, s.config.backend);
  if (!memory.error && memory.refused) reasons.push(`Memory: ${memory.refused}`);
  return reasons;
}
