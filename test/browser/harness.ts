/** Opens the built app in a fresh headless Chromium profile and collects console errors. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { CHROME_ARGS } from './chrome';
import { RUNS } from './experiments';
import { KERNEL_FAMILIES } from '../../src/model/kernels/wasm';

/** The status line's kernels part where every wasm kernel family runs (run.worker.ts's words). */
export const ALL_WASM_KERNELS = ` · fused wasm SIMD (${KERNEL_FAMILIES.join(', ')})`;

export interface Lab {
  page: Page;
  context: BrowserContext;
  errors: string[];
  /** Every URL the page and its workers asked for, in order. */
  requests: string[];
  /**
   * Kills the whole browser at once (CDP's Browser.crash: no pagehide, no last write; what stays is
   * what it had handed the OS), then opens `url` in a new browser on the same profile. The Lab it
   * returns replaces this one.
   */
  crashAndReopen(url: string): Promise<Lab>;
  close(): Promise<void>;
}

/** Opens `base` (the preview server unless given: a static host's folder, say) with `hash`. */
export async function openLab(hash = '', base: string = inject('baseUrl')): Promise<Lab> {
  return launch(mkdtempSync(join(tmpdir(), 'agentwise-chrome-')), `${base}/${hash}`);
}

/** Chromium on the profile in `dir`, its first page at `url`. */
async function launch(dir: string, url: string): Promise<Lab> {
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: inject('chromePath'),
    headless: true,
    args: CHROME_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  return {
    page,
    context,
    errors,
    requests,
    async crashAndReopen(next) {
      const gone = new Promise<void>((ok) => context.once('close', () => ok()));
      const cdp = await context.newCDPSession(page);
      await cdp.send('Browser.crash').catch(() => undefined); // the call dies with the browser
      await gone;
      return launch(dir, next);
    },
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { TINY, RUNS } from './experiments';

/** Each run's step counter, in RUNS order. */
export const stepCounts = (l: Lab): Promise<number[]> =>
  Promise.all(RUNS.map(async (r) => Number(await l.page.getByLabel(`${r} steps done`).textContent())));

/**
 * Each run's "saved after N steps" in RUNS order (NaN while it has none). The page shows it once the run's
 * state after N steps is stored, carrying the frames the page had not stored: where a reload resumes.
 */
export const savedSteps = (l: Lab): Promise<number[]> =>
  Promise.all(
    RUNS.map(async (r) => {
      const saved = l.page.locator(`.run-status[data-run="${r}"] .saved`);
      return (await saved.count())
        ? Number(/saved after (\d+) step/.exec((await saved.textContent())!)?.[1])
        : NaN;
    }),
  );

/** Waits until every run's "saved after N steps" is at its step counter: a reload now restores exactly these steps. */
export async function savedAtSteps(l: Lab, timeout = 30_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const [saved, steps] = await Promise.all([savedSteps(l), stepCounts(l)]);
    if (saved.every((n, i) => n === steps[i])) return;
    if (Date.now() - t0 > timeout)
      throw new Error(`saved after ${saved.join(', ')} at steps ${steps.join(', ')}`);
    await l.page.waitForTimeout(100);
  }
}

/** A session as IndexedDB (agentwise-lab) holds it, each run with its stored frames. */
export interface StoredSessionRows {
  id: string;
  kind?: string;
  runs: {
    label: string;
    seed: number;
    agents: string[];
    markers: unknown[];
    /** The steps of its stored frames, ascending. */
    steps: number[];
    /** Its frames by step as {key: value} (NaN left out). */
    rows: Record<string, number>[];
  }[];
}

/** Every stored session (trained and imported), with its runs' frames. */
export const storedSessions = (l: Lab): Promise<StoredSessionRows[]> =>
  l.page.evaluate(
    () =>
      new Promise<StoredSessionRows[]>((ok, ko) => {
        const r = indexedDB.open('agentwise-lab');
        r.onerror = () => ko(r.error);
        r.onsuccess = () => {
          const tx = r.result.transaction(['sessions', 'frames']);
          const sessions = tx.objectStore('sessions').getAll();
          const frames = tx.objectStore('frames').getAll();
          tx.oncomplete = () => {
            type Run = {
              id: string;
              label: string;
              seed: number;
              agents: string[];
              markers?: unknown[];
              keys: string[];
            };
            const all = frames.result as { run: string; step: number; values: Float64Array }[];
            const runOf = (run: Run) => {
              const mine = all.filter((f) => f.run === run.id).sort((a, b) => a.step - b.step);
              return {
                ...{ label: run.label, seed: run.seed, agents: run.agents, markers: run.markers ?? [] },
                steps: mine.map((f) => f.step),
                rows: mine.map((f) =>
                  Object.fromEntries(
                    run.keys.flatMap((k, i) => (Number.isNaN(f.values[i]) ? [] : [[k, f.values[i]]])),
                  ),
                ),
              };
            };
            ok(
              (sessions.result as { id: string; kind?: string; runs: Run[] }[]).map((s) => ({
                ...{ id: s.id, kind: s.kind },
                runs: s.runs.map(runOf),
              })),
            );
            r.result.close();
          };
        };
      }),
  );

/** Per run label, the steps of its frames stored in IndexedDB (agentwise-lab), sorted. */
export const storedSteps = async (l: Lab): Promise<number[][]> => {
  const runs = (await storedSessions(l)).flatMap((s) => s.runs);
  return RUNS.map((label) =>
    runs
      .filter((r) => r.label === label)
      .flatMap((r) => r.steps)
      .sort((a, b) => a - b),
  );
};

/**
 * The step of each run's saved state, by key (run index:label): the newest of its state files
 * (origin-private, `agentwise-states/<session>/<key>.a|b`; src/storage/state-files.ts) where it
 * has them, else its record in IndexedDB (agentwise-states), as an earlier build kept it.
 * `files`: the files' alone.
 */
export const stateSteps = (l: Lab, from: 'any' | 'files' = 'any') =>
  l.page.evaluate(async (from) => {
    const out: Record<string, number> = {};
    // Opening a db that does not exist yet would create it empty: look first.
    if (from === 'any' && (await indexedDB.databases()).some((d) => d.name === 'agentwise-states')) {
      const records = await new Promise<{ run: string; step: number }[]>((ok, ko) => {
        const r = indexedDB.open('agentwise-states');
        r.onerror = () => ko(r.error);
        r.onsuccess = () => {
          if (!r.result.objectStoreNames.contains('states')) return ok([]);
          const all = r.result.transaction('states').objectStore('states').getAll();
          all.onsuccess = () => (r.result.close(), ok(all.result));
          all.onerror = () => ko(all.error);
        };
      });
      for (const s of records) out[s.run] = s.step;
    }
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('agentwise-states').catch(() => null);
    const found: Record<string, number> = {};
    for await (const session of dir?.values() ?? [])
      for await (const file of (session as FileSystemDirectoryHandle).values()) {
        const bytes = await (file as FileSystemFileHandle).getFile();
        if (bytes.size < 16) continue; // emptied
        const headerLength = new DataView(await bytes.slice(4, 8).arrayBuffer()).getUint32(0, true);
        const { step } = JSON.parse(await bytes.slice(16, 16 + headerLength).text()) as { step: number };
        const key = decodeURIComponent(file.name.slice(0, file.name.lastIndexOf('.')));
        found[key] = Math.max(found[key] ?? -1, step);
      }
    return { ...out, ...found };
  }, from);

/**
 * The first step of the frames each run's newest state file carries (src/core/carried-frames.ts),
 * by key; its step where it carries none.
 */
export const carriedFrom = (l: Lab) =>
  l.page.evaluate(async () => {
    const newest: Record<string, { step: number; from: number }> = {};
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('agentwise-states').catch(() => null);
    for await (const session of dir?.values() ?? [])
      for await (const file of (session as FileSystemDirectoryHandle).values()) {
        const bytes = await (file as FileSystemFileHandle).getFile();
        if (bytes.size < 16) continue; // emptied
        const headerLength = new DataView(await bytes.slice(4, 8).arrayBuffer()).getUint32(0, true);
        const header = JSON.parse(await bytes.slice(16, 16 + headerLength).text()) as {
          step: number;
          frames?: { from: number };
        };
        const key = decodeURIComponent(file.name.slice(0, file.name.lastIndexOf('.')));
        if (header.step > (newest[key]?.step ?? -1))
          newest[key] = { step: header.step, from: header.frames?.from ?? header.step };
      }
    return Object.fromEntries(Object.entries(newest).map(([k, v]) => [k, v.from]));
  });

/** The live-parameter markers stored in IndexedDB (agentwise-lab) over all sessions' runs, as `param=value`. */
export const storedMarkers = (l: Lab): Promise<string[]> =>
  l.page.evaluate(
    () =>
      new Promise<string[]>((ok, ko) => {
        const r = indexedDB.open('agentwise-lab');
        r.onerror = () => ko(r.error);
        r.onsuccess = () => {
          const got = r.result.transaction('sessions').objectStore('sessions').getAll();
          got.onerror = () => ko(got.error);
          got.onsuccess = () => {
            type Run = { markers?: { param: string; value: number }[] };
            const runs = (got.result as { runs: Run[] }[]).flatMap((s) => s.runs);
            ok(runs.flatMap((x) => (x.markers ?? []).map((m) => `${m.param}=${m.value}`)));
            r.result.close();
          };
        };
      }),
  );

/**
 * Each run's step it resumed at, in RUNS order, once Train or Take over has brought a stored session
 * back and every run has loaded (its status title then says "resumed at step N (saved on wasm)");
 * NaN for a run that started over.
 */
export async function resumedAt(l: Lab, timeout = 120_000): Promise<number[]> {
  await l.page.waitForFunction(
    () =>
      !document.querySelector('[data-testid="restored-note"]') &&
      [...document.querySelectorAll('.run-status')].every(
        (li) => !['loading', 'queued'].includes(li.getAttribute('data-state') ?? ''),
      ),
    null,
    { timeout, polling: 100 },
  );
  const titles = await Promise.all(
    RUNS.map((r) => l.page.locator(`.run-status[data-run="${r}"]`).getAttribute('title')),
  );
  return titles.map((t) => Number(/resumed at step (\d+)/.exec(t ?? '')?.[1] ?? NaN));
}

/** Polls the step counters until `ok` holds; returns them (fails naming where they stuck). */
export async function waitSteps(l: Lab, ok: (s: number[]) => boolean, timeout = 120_000): Promise<number[]> {
  const t0 = Date.now();
  for (;;) {
    const s = await stepCounts(l);
    if (ok(s)) return s;
    if (Date.now() - t0 > timeout) throw new Error(`step counters stuck at ${s.join(', ')}`);
    await l.page.waitForTimeout(100);
  }
}

/** Resolves once every run in the list is in `state` (its `.run-status[data-state]`). */
export const runsIn = (l: Lab, state = 'done', timeout?: number) =>
  l.page.waitForFunction(
    (st) => [...document.querySelectorAll('.run-status')].every((li) => li.getAttribute('data-state') === st),
    state,
    { timeout },
  );

/** Clicks Download CSV; the exported metrics' header and rows, each split into its cells. */
export async function downloadCsv(page: Page): Promise<{ header: string[]; rows: string[][] }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download CSV', exact: true }).click(),
  ]);
  const [header, ...rows] = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return { header, rows };
}

/** Each run's exported steps (Download CSV), in RUNS order. */
export async function exportedSteps(page: Page): Promise<number[][]> {
  const { header, rows } = await downloadCsv(page);
  const step = header.indexOf('step');
  return RUNS.map((run) => rows.filter((r) => r[0] === run).map((r) => Number(r[step])));
}

/** Steps 0…n-1, each once: what a whole run's exported steps are. */
export const everyStep = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Grants or denies the page Copy link's clipboard (denied, it shows the link in a field to copy by hand). */
export async function clipboardWrite(l: Lab, setting: 'granted' | 'denied'): Promise<void> {
  const cdp = await l.context.newCDPSession(l.page);
  const origin = new URL(l.page.url()).origin;
  await cdp.send('Browser.setPermission', { permission: { name: 'clipboard-write' }, setting, origin });
}

/**
 * Drops a real folder from disk, as the OS does: Chromium's DevTools protocol drag with file paths
 * (the page walks it with webkitGetAsEntry).
 */
export async function dropPaths(l: Lab, paths: string[]): Promise<void> {
  await l.page.getByTestId('drop-zone').scrollIntoViewIfNeeded(); // a drag lands where it is on screen
  const box = await l.page.getByTestId('drop-zone').boundingBox();
  if (!box) throw new Error('no drop zone');
  const cdp = await l.context.newCDPSession(l.page);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const data = {
    items: [{ mimeType: 'text/plain', data: paths.join('\n') }],
    files: paths,
    dragOperationsMask: 1,
  };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
}

export { trainEnabled } from './train-button';

/** Starts recording the page's long tasks (> 50 ms of main thread) into `window.longTasks`, in ms. */
/**
 * Long Animation Frames (> 50 ms) with their attribution, as bench-ui.ts records them: each as
 * `<ms> ms: <script ms> <invoker> <function>; …` in `window.longFrames`.
 */
export const observeLongFrames = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { longFrames: string[] };
    w.longFrames = [];
    type Script = { duration: number; invoker: string; sourceFunctionName: string };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        scripts: Script[];
        renderStart: number;
        styleAndLayoutStart: number;
      })[]) {
        if (e.duration <= 50) continue;
        const scripts = e.scripts
          .filter((x) => x.duration >= 5)
          .map((x) => `${Math.round(x.duration)} ${x.invoker} ${x.sourceFunctionName}`.trim());
        w.longFrames.push(`${Math.round(e.duration)} ms: ${scripts.join('; ')}`);
      }
    }).observe({ type: 'long-animation-frame' });
  });

export const observeLongTasks = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push(e.duration);
    }).observe({ type: 'longtask' });
  });

/** Clicks a button and keeps every file it downloads (name → path on disk), waiting for `count` of them. */
export async function downloads(l: Lab, button: string, count: number): Promise<Record<string, string>> {
  const got: Download[] = [];
  const listener = (d: Download) => got.push(d);
  l.page.on('download', listener);
  await l.page.getByRole('button', { name: button, exact: true }).click();
  await expect.poll(() => got.length, { timeout: 30_000 }).toBe(count);
  l.page.off('download', listener);
  const out: Record<string, string> = {};
  for (const d of got) out[d.suggestedFilename()] = (await d.path())!;
  return out;
}

/** Drops files (name → path) onto the drop zone as loose files; resolves once the import is stored. */
export async function dropLoose(l: Lab, files: Record<string, string>): Promise<void> {
  const payload = Object.entries(files).map(([name, path]) => [name, readFileSync(path).toString('base64')]);
  const dt = await l.page.evaluateHandle((entries) => {
    const data = new DataTransfer();
    for (const [name, b64] of entries)
      data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    return data;
  }, payload);
  await l.page.dispatchEvent('[data-testid="drop-zone"]', 'drop', { dataTransfer: dt });
}
