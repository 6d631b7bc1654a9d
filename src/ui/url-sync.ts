/**
 * The one module that touches window.location: reads the experiment, and the sweep a link may
 * carry over it, from the hash at start and on `hashchange`, and mirrors their changes back with
 * `history.replaceState` (no history spam).
 */
import { structuralKey } from '../core/config';
import { encodeLink } from '../core/url';
import { decodeSweepLink } from '../rl/sweep';
import { proposeConfig } from './config-edit';
import { setExperiment, setUrlErrors, useLab } from './session/store';
import type { LabState } from './session/store';

/**
 * Opens the experiment the hash names. A link that needs new runs while runs are on screen asks
 * first, like any reset-field change (proposeConfig); kept runs put the address bar back. A bad
 * link discards nothing either: the alert keeps its text, the runs stay.
 */
function readHash(): void {
  const r = decodeSweepLink(window.location.hash);
  const { config, sweep, sessionState } = useLab.getState();
  const keepRuns = sessionState !== 'idle';
  const shown = () => writeHash(linkOf(useLab.getState()));
  if (!r.ok && keepRuns) {
    setUrlErrors(r.errors, window.location.hash, 'the runs on screen');
    return shown();
  }
  setUrlErrors(r.ok ? [] : r.errors, r.ok ? '' : window.location.hash);
  setExperiment({ urlNote: r.ok ? (r.note ?? '') : '' });
  const otherSweep = JSON.stringify(r.sweep) !== JSON.stringify(sweep);
  if (keepRuns && (otherSweep || structuralKey(r.config) !== structuralKey(config)))
    return proposeConfig(r.config, shown, r.sweep);
  setExperiment({ config: r.config, sweep: r.sweep });
  // The address bar names the experiment on screen, a bad link's too (its text stays in the alert).
  writeHash(encodeLink(r.config, r.sweep));
}

/** The link of what the page holds: its experiment and the sweep over it. */
const linkOf = (s: LabState) => encodeLink(s.config, s.sweep);

function writeHash(hash: string): void {
  if (window.location.hash.slice(1) !== hash) {
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${hash}`);
  }
}

/**
 * A store reaction: every config change moves the hash along. After a bad link too: the address
 * bar already names the experiment that opened instead (readHash), and must go on following it.
 */
export function followConfig(state: LabState, prev: LabState): void {
  if (state.config !== prev.config || state.sweep !== prev.sweep) writeHash(linkOf(state));
}

/** Opens `hash` as if typed in the address bar: read on its `hashchange`, as any link. */
export function openLink(hash: string): void {
  window.location.hash = hash;
}

/** Reads the hash now and on every `hashchange`; returns a function that stops listening. */
export function startUrlSync(): () => void {
  readHash();
  window.addEventListener('hashchange', readHash);
  return () => window.removeEventListener('hashchange', readHash);
}

/** The shareable link: the page's own address (origin, path under any sub-path, query) with the experiment's hash, and its sweep. */
export function shareLink(): string {
  const { origin, pathname, search } = window.location;
  return `${origin}${pathname}${search}#${linkOf(useLab.getState())}`;
}
