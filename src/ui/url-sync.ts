/**
 * The one module that touches window.location: reads the experiment from the hash at start and on
 * `hashchange`, and mirrors config changes back with `history.replaceState` (no history spam).
 */
import { structuralKey } from '../core/config';
import { decodeExperiment, encodeExperiment } from '../core/url';
import { proposeConfig } from './config-edit';
import { setConfig, setUrlErrors, useLab } from './store';
import type { LabState } from './store';

/**
 * Opens the experiment the hash names. A link that needs new runs while runs are on screen asks
 * first, like any reset-field change (proposeConfig); kept runs put the address bar back. A bad
 * link discards nothing either: the alert keeps its text, the runs stay.
 */
function readHash(): void {
  const r = decodeExperiment(window.location.hash);
  const { config, session } = useLab.getState();
  const keepRuns = session !== 'idle';
  const shown = () => writeHash(encodeExperiment(useLab.getState().config));
  if (!r.ok && keepRuns) {
    setUrlErrors(r.errors, window.location.hash, 'the runs on screen');
    return shown();
  }
  setUrlErrors(r.ok ? [] : r.errors, r.ok ? '' : window.location.hash);
  useLab.setState({ urlNote: r.ok ? (r.note ?? '') : '' });
  if (keepRuns && structuralKey(r.config) !== structuralKey(config)) return proposeConfig(r.config, shown);
  setConfig(r.config);
  // The address bar names the experiment on screen, a bad link's too (its text stays in the alert).
  writeHash(encodeExperiment(r.config));
}

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
  if (state.config !== prev.config) writeHash(encodeExperiment(state.config));
}

/** Reads the hash now and on every `hashchange`; returns a function that stops listening. */
export function startUrlSync(): () => void {
  readHash();
  window.addEventListener('hashchange', readHash);
  return () => window.removeEventListener('hashchange', readHash);
}

/** The shareable link: the page's own address (origin, path under any sub-path, query) with the experiment's hash. */
export function shareLink(): string {
  const { config } = useLab.getState();
  const { origin, pathname, search } = window.location;
  return `${origin}${pathname}${search}#${encodeExperiment(config)}`;
}
