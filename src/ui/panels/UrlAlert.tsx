/**
 * The alert of a link that could not be opened: what opened instead, each refused field by its
 * label, the link as it was given, and, where leaving the refused fields out lets the rest open,
 * a button that opens it with those fields at their defaults, naming them. What it quotes of the
 * link is cut (a 50 KB link made the page 370,429 px wide) and wraps, so the page never scrolls
 * sideways; it sits above the intro, so a phone's first screen shows it.
 */
import { useMemo } from 'react';
import { echoed, labelOf } from '../field-labels';
import { withoutBadFields } from '../link-repair';
import { useLab } from '../session/store';
import { openLink } from '../url-sync';
import { FieldErrors } from './FieldErrors';

/** "a", "a and b", "a, b and c". */
const listed = (xs: readonly string[]) =>
  xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

export function UrlAlert() {
  const errors = useLab((s) => s.urlErrors);
  const badLink = useLab((s) => s.badLink);
  const shownInstead = useLab((s) => s.shownInstead);
  const fixed = useMemo(() => (badLink ? withoutBadFields(badLink, errors) : null), [badLink, errors]);
  if (errors.length === 0) return null;
  const named = fixed?.dropped.map((k) => {
    const label = labelOf(k);
    return label ? `${label} (${k})` : echoed(k);
  });
  return (
    <div role="alert" className="alert url-alert" data-testid="url-alert">
      <strong>This link could not be opened; showing {shownInstead} instead.</strong>
      <FieldErrors errors={errors} />
      {fixed && named && (
        <p>
          <button type="button" onClick={() => openLink(fixed.hash)} data-testid="open-without">
            Open it with {listed(named)} at {named.length === 1 ? 'its default' : 'their defaults'}
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
