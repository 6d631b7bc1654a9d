/**
 * The one module that touches window.location: reads the experiment, and the sweep a link may
 * carry over it, from the hash at start and on `hashchange`, and mirrors their changes back with
 * `history.replaceState` (no history spam); or opens the result file an `#open=<URL>` names.
 */
import { DEFAULT_EXPERIMENT, structuralKey } from '../core/config';
import { encodeLink } from '../core/url';
import { resultLinkOf } from '../report/result-link';
import type { ResultLink } from '../report/result-link';
import { decodeSweepLink } from '../rl/sweep';
import { proposeConfig } from './config-edit';
import { openLinkedResult } from './interop';
import {
  setEmbed,
  setExperiment,
  setOpenRefused,
  setUrlErrors,
  setWorkflowSlice,
  useLab,
} from './session/store';
import { linkFiles } from './workflow-open';
import type { LabState } from './session/store';

/**
 * Opens the experiment the hash names. A link that needs new runs while runs are on screen asks
 * first, like any reset-field change (proposeConfig); kept runs put the address bar back. A bad
 * link discards nothing either: the alert keeps its text, the runs stay. A workflow link whose files
 * this browser lacks waits for them (workflow-open.ts: the page asks, and checks what it is given),
 * the address bar keeping the link, and nothing on screen changing meanwhile.
 */
async function readHash(): Promise<void> {
  const hash = window.location.hash;
  const link = resultLinkOf(hash);
  if (link) return openFromHash(link);
  setExperiment({ openRefused: '' }); // another link: a result link's refusal goes
  const files = await linkFiles(hash);
  if (window.location.hash !== hash) return; // a newer link is being opened
  if ('wanted' in files)
    return setWorkflowSlice({ wanted: { ...files.wanted, open: () => void readHash() } });
  setWorkflowSlice({ wanted: null });
  if ('refused' in files) {
    const keepRuns = useLab.getState().sessionState !== 'idle';
    setUrlErrors(files.refused, hash, keepRuns ? 'the runs on screen' : undefined);
    return writeHash(linkOf(useLab.getState()));
  }
  openHash(hash);
}

/** Opens a link whose files (if any) are here: readHash's. */
function openHash(hash: string): void {
  const r = decodeSweepLink(hash);
  const { config, sweep, sessionState } = useLab.getState();
  const keepRuns = sessionState !== 'idle';
  const shown = () => writeHash(linkOf(useLab.getState()));
  if (!r.ok && keepRuns) {
    setUrlErrors(r.errors, hash, 'the runs on screen');
    return shown();
  }
  setUrlErrors(r.ok ? [] : r.errors, r.ok ? '' : hash);
  setExperiment({ urlNote: r.ok ? (r.note ?? '') : '' });
  const otherSweep = JSON.stringify(r.sweep) !== JSON.stringify(sweep);
  if (keepRuns && (otherSweep || structuralKey(r.config) !== structuralKey(config)))
    return proposeConfig(r.config, shown, r.sweep);
  setExperiment({ config: r.config, sweep: r.sweep });
  // The address bar names the experiment on screen, a bad link's too (its text stays in the alert).
  writeHash(encodeLink(r.config, r.sweep));
}

/**
 * `#open=<URL>`: the result file at URL opens read-only (interop.ts), and the address bar keeps
 * the link that opened it. A link that fails, refused here (not https, a `view` the page has not)
 * or when fetched and read (not found, not a result, cut off), is said in the link's alert
 * (UrlAlert), and the address bar keeps it too, for its user to mend; the page stays as it was.
 */
function openFromHash(link: NonNullable<ResultLink>): void {
  const hash = window.location.hash.slice(1);
  const shown = shownNow(useLab.getState());
  // An earlier link's alert goes: this link's, if it opens nothing, takes its place.
  setUrlErrors([]);
  if ('refused' in link) return setOpenRefused(link.refused, shown);
  setOpenRefused('');
  setEmbed(link.view);
  void openLinkedResult(link.url).then((refused) => {
    if (refused === null) writeHash(hash);
    // Unless a newer link is being opened meanwhile; an embed's frame shows nothing else.
    else if (window.location.hash.slice(1) === hash)
      setOpenRefused(refused, link.view ? 'an empty panel' : shown);
  });
}

/** What stays on screen when a result link opens nothing (the link's alert says it). */
function shownNow(s: LabState): string | undefined {
  if (s.opened) return 'the result on screen';
  if (s.sessionState !== 'idle' || s.runs.length + s.imported.length > 0) return 'the runs on screen';
  return s.config === DEFAULT_EXPERIMENT ? undefined : 'the experiment on screen';
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

/**
 * Reads the hash now and on every `hashchange`; resolves once the first link is open (or waits for
 * its files), so what is restored at load is restored under the link's experiment.
 */
export function startUrlSync(): Promise<void> {
  window.addEventListener('hashchange', () => void readHash());
  return readHash();
}

/**
 * Leaves a link that waits for its files: the notice goes, and the address bar names the experiment
 * on screen again (it kept the link while it waited).
 */
export function dropWanted(): void {
  setWorkflowSlice({ wanted: null });
  writeHash(linkOf(useLab.getState()));
}

/**
 * The shareable link: the page's own address (origin, path under any sub-path, query) with the
 * experiment's hash, and its sweep; for a result opened by an `#open=` link, that link (the whole
 * page, not one panel), which opens the result again. `result` says which it is: a result opened
 * from a file has no link of its own, so Copy link gives its experiment's and says so.
 */
export function shareLink(): { link: string; of: 'experiment' | 'result' | 'result-experiment' } {
  const { origin, pathname, search } = window.location;
  const s = useLab.getState();
  const page = `${origin}${pathname}${search}`;
  if (s.opened?.url) return { link: `${page}#open=${s.opened.url}`, of: 'result' };
  return { link: `${page}#${linkOf(s)}`, of: s.opened ? 'result-experiment' : 'experiment' };
}
