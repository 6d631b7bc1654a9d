/**
 * The lab's service worker (built to dist/sw.js by scripts/service-worker.ts). Two jobs:
 *
 * - Offline after the first visit: Workbox's precache holds every file of the build (app shell,
 *   run and env workers, tfjs and kernel wasm, base models), listed with a revision at build
 *   time, and answers for them before the network.
 * - Cross-origin isolation where the host sends no headers: every response it gives carries
 *   COOP/COEP (src/host/headers.ts), so from the second load on the page is isolated anyway.
 *
 * Versions never mix: a new build's worker installs its own revisions beside the old ones and
 * waits; it takes over only when the page asks it to (src/ui/service-worker.ts does so on a load
 * where nothing trains, then reloads), and only then are the old revisions dropped.
 */
/// <reference lib="webworker" />
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import type { PrecacheEntry } from 'workbox-precaching';
import { ISOLATION_HEADERS } from './headers';

declare const self: ServiceWorkerGlobalScope;
/** Every file of the build and its revision, written in at build time. */
declare const __PRECACHE__: PrecacheEntry[];

function isolated(response: Response): Response {
  if (response.type === 'opaque' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

addPlugins([{ handlerWillRespond: async ({ response }) => isolated(response) }]);
precacheAndRoute(__PRECACHE__);
cleanupOutdatedCaches();

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
