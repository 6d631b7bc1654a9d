/**
 * The one module that touches window.location: reads the experiment from the hash at start and on
 * `hashchange`, and mirrors config changes back with `history.replaceState` (no history spam).
 */
import { decodeExperiment, encodeExperiment } from '../core/url';
import { setConfig, setUrlErrors, useLab } from './store';

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

/** Starts syncing; returns a function that stops it. */
export function startUrlSync(): () => void {
  readHash();
  const unsubscribe = useLab.subscribe((state, prev) => {
    if (state.config !== prev.config && state.urlErrors.length === 0) writeHash(encodeExperiment(state.config));
  });
  window.addEventListener('hashchange', readHash);
  return () => {
    unsubscribe();
    window.removeEventListener('hashchange', readHash);
  };
}

/** The shareable link: the page's own address (origin, path under any sub-path, query) with the experiment's hash. */
export function shareLink(): string {
  const { config } = useLab.getState();
  const { origin, pathname, search } = window.location;
  return `${origin}${pathname}${search}#${encodeExperiment(config)}`;
}
