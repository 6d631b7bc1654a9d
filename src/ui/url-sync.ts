/**
 * The one module that touches window.location: reads the experiment from the hash at start and on
 * `hashchange`, and mirrors config changes back with `history.replaceState` (no history spam).
 */
import { decodeExperiment, encodeExperiment } from '../core/url';
import { setConfig, setUrlErrors, useLab } from './store';
import type { LabState } from './store';

function readHash(): void {
  const r = decodeExperiment(window.location.hash);
  setUrlErrors(r.ok ? [] : r.errors);
  setConfig(r.config);
  // A bad link is left in the address bar so the user can see and fix it.
  if (r.ok) writeHash(encodeExperiment(r.config));
}

function writeHash(hash: string): void {
  if (window.location.hash.slice(1) !== hash) {
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${hash}`);
  }
}

/** A store reaction: a valid config change moves the hash along. */
export function followConfig(state: LabState, prev: LabState): void {
  if (state.config !== prev.config && state.urlErrors.length === 0) writeHash(encodeExperiment(state.config));
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
