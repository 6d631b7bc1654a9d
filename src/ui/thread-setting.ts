/**
 * The wasm thread setting (backends/threads.ts): a setting of this machine, kept in localStorage
 * beside `auto`'s measurements and never in the experiment or its link, since threads change how
 * fast a run goes, not what it computes, and the right count depends on the machine that runs it.
 */
import type { Experiment } from '../core/config';
import { runsAtOnce } from '../workers/run-start';
import {
  isThreadSetting,
  wasmThreadsFor,
  type Machine,
  type ThreadChoice,
  type ThreadSetting,
} from '../backends/threads';

const STORAGE_KEY = 'agentwise.wasm-threads';

/** The kept setting; `auto` when none is kept, it is not one the panel makes, or there is no storage. */
export function loadThreadSetting(): ThreadSetting {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '"auto"');
    return isThreadSetting(kept) ? kept : 'auto';
  } catch {
    return 'auto';
  }
}

export function keepThreadSetting(setting: ThreadSetting): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(setting));
  } catch {
    // No storage: the setting lasts as long as the page.
  }
}

/** This page's machine: its cores, and whether it is cross-origin isolated. */
export const thisMachine = (): Machine => ({
  cores: globalThis.navigator?.hardwareConcurrency ?? 1,
  isolated: globalThis.crossOriginIsolated === true,
});

/** The threads each run of `config` (a link sweep's cells) gets under `setting` on this machine, and why. */
export const threadChoice = (
  config: Experiment | readonly Experiment[],
  setting: ThreadSetting,
): ThreadChoice => wasmThreadsFor(setting, runsAtOnce(config, thisMachine().cores), thisMachine());

/** "1 thread", "2 threads": how the status line and the backend panel say a count. */
export const threadsText = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
