/**
 * The alert of a link that could not be opened: what opened instead, each refused field by its
 * label, the link as it was given, and, where mending the refused fields lets the rest open, a
 * button that opens it so, saying how: each suggestion taken ("optim.lrr as Learning rate"), the
 * other refused fields at their defaults (link-repair.ts). What it quotes of the
 * link is cut (a 50 KB link made the page 370,429 px wide) and wraps, so the page never scrolls
 * sideways; it sits above the intro, so a phone's first screen shows it.
 *
 * An `#open=` result link that opened nothing (refused, or failed when fetched and read) is said
 * here too, the one place its wording lives: what stayed on screen, why, that the address bar keeps
 * the link (to mend it there: url-sync.ts), and a dismiss.
 */
import { useMemo } from 'react';
import { echoed } from '../field-labels';
import { repairLink, repairWords } from '../link-repair';
import { utcTime } from '../opened-words';
import { setOpenRefused, useLab } from '../session/store';
import type { LabState } from '../session/store';
import { openLink } from '../url-sync';
import { FieldErrors } from './FieldErrors';

/** A refusal as a sentence: its reason ends in a full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * What stayed on screen, as the alert names it now: a stored session brought back after the link
 * was refused (restore.ts: the last session of the experiment shown) by its date, not as "the
 * default experiment" it ran; otherwise what the link's refusal recorded.
 */
export function shownInsteadNow(s: Pick<LabState, 'shownInstead' | 'restored' | 'opened'>): string {
  if (!s.restored || s.opened || s.shownInstead === 'an empty panel') return s.shownInstead;
  const session = `your session of ${utcTime(s.restored.createdAt)}`;
  return s.shownInstead === 'the default experiment' ? `${session} (the default experiment)` : session;
}

export function UrlAlert() {
  const refused = useLab((s) => s.openRefused);
  return refused ? <ResultLinkAlert refused={refused} /> : <ExperimentLinkAlert />;
}

function ResultLinkAlert({ refused }: { refused: string }) {
  const shownInstead = useLab(shownInsteadNow);
  return (
    <div role="alert" className="alert url-alert" data-testid="url-alert">
      <strong>This result link could not be opened; showing {shownInstead} instead.</strong>
      <p data-testid="open-refused">{sentence(refused)}</p>
      <p>
        The address bar keeps the link, to mend it there.{' '}
        <button type="button" className="link" onClick={() => setOpenRefused('')}>
          dismiss
        </button>
      </p>
    </div>
  );
}

function ExperimentLinkAlert() {
  const errors = useLab((s) => s.urlErrors);
  const badLink = useLab((s) => s.badLink);
  const shownInstead = useLab(shownInsteadNow);
  const fixed = useMemo(() => (badLink ? repairLink(badLink, errors) : null), [badLink, errors]);
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="alert url-alert" data-testid="url-alert">
      <strong>This link could not be opened; showing {shownInstead} instead.</strong>
      <FieldErrors errors={errors} />
      {fixed && (
        <p>
          <button type="button" onClick={() => openLink(fixed.hash)} data-testid="open-without">
            {repairWords(fixed)}
          </button>
        </p>
      )}
      <p className="bad-link">
        The link asked for <code data-testid="bad-link">{echoed(badLink, 200)}</code>; the address bar now
        holds the experiment shown.
      </p>
    </div>
  );
}
