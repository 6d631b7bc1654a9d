/**
 * The page's side of the service worker (src/host/sw.ts): registers it in the production build
 * and applies updates without ever mixing two builds' files. A new build's worker waits; on a load
 * where nothing trains yet it is told to take over and the page reloads once, then says so ("Lab
 * updated"). While runs exist the page keeps its build and says the update will come on the next load.
 */
import { Workbox } from 'workbox-window';
import { create } from 'zustand';
import { useLab } from './store';

/** The build's name (git commit, or $LAB_BUILD_ID), set by vite.config.ts. */
declare const __LAB_BUILD__: string;
export const LAB_BUILD = __LAB_BUILD__;

/** A new build of the lab: loaded on this visit (`updated`), or waiting for the next load; null when none. */
type BuildUpdate = { kind: 'updated'; build: string } | { kind: 'waiting' } | null;
/** What the UpdateNotice panel says. */
export const useUpdateNotice = create<{ notice: BuildUpdate }>(() => ({ notice: null }));

/** Survives the reload into the new build, so that build can say it was an update. */
const UPDATED_KEY = 'agentwise-updated';

export function startServiceWorker(): void {
  if (sessionStorage.getItem(UPDATED_KEY)) {
    sessionStorage.removeItem(UPDATED_KEY);
    useUpdateNotice.setState({ notice: { kind: 'updated', build: LAB_BUILD } });
  }
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  // Relative, so the worker's scope is the folder the lab is served from.
  const wb = new Workbox('./sw.js');
  wb.addEventListener('waiting', () => {
    // Live runs wait for the user (a stored session on screen comes back after the reload).
    if (useLab.getState().session !== 'idle' && useLab.getState().restored === null) {
      useUpdateNotice.setState({ notice: { kind: 'waiting' } });
      return;
    }
    wb.addEventListener('controlling', () => {
      sessionStorage.setItem(UPDATED_KEY, '1');
      window.location.reload();
    });
    wb.messageSkipWaiting();
  });
  void wb.register();
}
