/**
 * The lab's service worker, both sides: the worker itself (`serve`, built to dist/sw.js by
 * scripts/service-worker.ts) and the page's side (`startServiceWorker`, called by src/ui/main.tsx).
 *
 * The worker has two jobs:
 *
 * - Offline after the first visit: Workbox's precache holds every file of the build (app shell,
 *   run and env workers, tfjs and kernel wasm, base models), listed with a revision at build
 *   time, and answers for them before the network.
 * - Cross-origin isolation where the host sends no headers: every response it gives carries
 *   COOP/COEP (headers.ts), so from the second load on the page is isolated anyway.
 *
 * Versions never mix: a new build's worker installs its own revisions beside the old ones and
 * waits; it takes over only when the page asks it to, and only then are the old revisions
 * dropped. The page asks on a load where nothing trains yet, reloads once, then says so ("Lab
 * updated"); while runs exist it keeps its build and says the update will come on the next load.
 *
 * Each side's bundle keeps only its own half: the page never calls `serve`, the worker never
 * calls `startServiceWorker`, and nothing runs on import.
 */
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import type { PrecacheEntry } from 'workbox-precaching';
import { Workbox } from 'workbox-window';
import { ISOLATION_HEADERS } from './headers';

/** Every file of the build and its revision, written into the worker at build time. */
declare const __PRECACHE__: PrecacheEntry[];
/** The build's name (git commit, or $LAB_BUILD_ID), set for the page by vite.config.ts. */
declare const __LAB_BUILD__: string;

// ─── the worker ───────────────────────────────────────────────────────────────

function isolated(response: Response): Response {
  if (response.type === 'opaque' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Runs as dist/sw.js: answers from the precache, isolated, and takes over when the page says. */
export function serve(): void {
  const sw = self as unknown as ServiceWorkerGlobalScope;
  addPlugins([{ handlerWillRespond: async ({ response }) => isolated(response) }]);
  precacheAndRoute(__PRECACHE__);
  cleanupOutdatedCaches();
  sw.addEventListener('message', (event) => {
    if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void sw.skipWaiting();
  });
}

// ─── the page ─────────────────────────────────────────────────────────────────

/** A new build of the lab: loaded on this visit (`updated`), or waiting for the next load. */
export type BuildUpdate = { kind: 'updated'; build: string } | { kind: 'waiting' };

interface ServiceWorkerPage {
  /** Whether live runs are on screen: a waiting build then waits for the next load. */
  busy(): boolean;
  /** Says an update (the UpdateNotice panel). */
  say(update: BuildUpdate): void;
}

/** Survives the reload into the new build, so that build can say it was an update. */
const UPDATED_KEY = 'agentwise-updated';

/** Registers the worker in the production build and applies updates without mixing two builds' files. */
export function startServiceWorker(page: ServiceWorkerPage): void {
  if (sessionStorage.getItem(UPDATED_KEY)) {
    sessionStorage.removeItem(UPDATED_KEY);
    page.say({ kind: 'updated', build: __LAB_BUILD__ });
  }
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  // Relative, so the worker's scope is the folder the lab is served from.
  const wb = new Workbox('./sw.js');
  wb.addEventListener('waiting', () => {
    // Live runs wait for the user (a stored session on screen comes back after the reload).
    if (page.busy()) return page.say({ kind: 'waiting' });
    wb.addEventListener('controlling', () => {
      sessionStorage.setItem(UPDATED_KEY, '1');
      window.location.reload();
    });
    wb.messageSkipWaiting();
  });
  void wb.register();
}
