/**
 * What one run-state save costs the browser, by where and in what form its payload is written
 * (src/storage/state-store.ts; docs/figures.md#where-a-steps-time-goes): a dedicated worker saves a
 * `--mb` MB payload `--puts` times, as a run's worker does after every step, each form in turn,
 * alternating `--reps` times, each in a fresh Chromium profile on disk under a Chrome trace
 * (`--memory`: an incognito context, whose storage is in memory, as earlier figures were taken).
 * Prints the CPU per save by thread (the worker that saves, the renderer's other threads, the
 * browser process) and the wall time. The forms (`--forms`, comma-separated):
 *
 * - `none`: nothing written (the payload still copied): what a trial costs besides saving;
 * - `arraybuffer`, `blob`: an IndexedDB put of a record holding the payload, each in its own
 *   'relaxed' transaction that the worker waits for (what earlier builds put, and what the lab puts);
 * - `kept`: an origin-private file through one FileSystemSyncAccessHandle opened once for the
 *   worker's life, overwritten in place (written at 0, truncated only if the size changed), never
 *   flushed: the OS has the bytes, as a relaxed transaction's commit promises;
 * - `flush`: the same, flushed after each write;
 * - `ab`: two such files kept open, written in turn, so that a torn write leaves the other whole;
 * - `each`: a sync access handle created, written, flushed and closed per save (an earlier try).
 *
 *   npm run bench:put [-- --puts 40 --reps 3 --mb 4.1 --forms none,blob,kept,flush,ab,each --memory]
 *   (--smoke: 2 saves of 0.1 MB in each form, once)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { arg, flag, median } from './cli-args';
import { chromeThreads, cpuBetween } from './proc-cpu';
import type { ThreadCpu } from './proc-cpu';

const smoke = flag('smoke');
const memory = flag('memory');
const puts = Number(arg('puts', smoke ? '2' : '40'));
const reps = Number(arg('reps', smoke ? '1' : '3'));
const mb = Number(arg('mb', smoke ? '0.1' : '4.1'));
const ALL = ['none', 'arraybuffer', 'blob', 'kept', 'flush', 'ab', 'each'];
const forms = arg('forms', 'none,blob,kept,flush,ab,each').split(',');
const unknown = forms.filter((f) => !ALL.includes(f));
if (unknown.length) throw new Error(`unknown form ${unknown.join(', ')}: the forms are ${ALL.join(', ')}`);

// The worker: a fresh payload buffer each save (as each save reads the state anew), one changed float.
const WORKER = `
const open = () => new Promise((ok, ko) => {
  const r = indexedDB.open('bench-put', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('states');
  r.onsuccess = () => ok(r.result);
  r.onerror = () => ko(r.error);
});
const idbPut = (db, form, k, bytes) => {
  const tx = db.transaction('states', 'readwrite', { durability: 'relaxed' });
  tx.objectStore('states').put({ step: k, payload: form === 'blob' ? new Blob([bytes]) : bytes }, 'run');
  return new Promise((ok, ko) => ((tx.oncomplete = ok), (tx.onerror = () => ko(tx.error))));
};
const fileOf = async (name) => (await navigator.storage.getDirectory()).getFileHandle(name, { create: true });
/** Overwrites the file in place: written at 0, truncated only if its size changed. */
const overwrite = (h, bytes) => {
  const n = h.write(new Uint8Array(bytes), { at: 0 });
  if (h.getSize() !== n) h.truncate(n);
};
let form, db, kept, state;
/** What the last save left: the step of each record or file (its changed float), and its bytes. */
const lastSaved = async () => {
  if (db) {
    const tx = db.transaction('states', 'readonly');
    const r = tx.objectStore('states').get('run');
    const { step, payload } = await new Promise((ok) => (r.onsuccess = () => ok(r.result)));
    return [{ step, bytes: payload.byteLength ?? payload.size }];
  }
  const each = form === 'each' ? [await (await fileOf('a')).createSyncAccessHandle()] : [];
  const saved = [...kept, ...each].map((h) => {
    const bytes = new Uint8Array(h.getSize());
    h.read(bytes, { at: 0 });
    const floats = new Float32Array(bytes.buffer);
    return { step: Math.max(...floats.slice(0, 64).filter(Number.isInteger)), bytes: bytes.length };
  });
  for (const h of each) h.close();
  return saved;
};
onmessage = async ({ data }) => {
  if (data.floats) {
    // Before the measured window: the database or the kept files opened, the state filled.
    form = data.form;
    db = form === 'arraybuffer' || form === 'blob' ? await open() : null;
    kept = ['kept', 'flush', 'ab'].includes(form)
      ? await Promise.all((form === 'ab' ? ['a', 'b'] : ['a']).map(async (f) => (await fileOf(f)).createSyncAccessHandle()))
      : [];
    state = new Float32Array(data.floats).map(() => Math.random());
    return postMessage('ready');
  }
  if (data.verify) return postMessage(await lastSaved());
  const t0 = performance.now();
  for (let k = 0; k < data.puts; k++) {
    state[k % state.length] = k;
    const bytes = state.buffer.slice(0);
    if (form === 'none') await null;
    else if (db) await idbPut(db, form, k, bytes);
    else if (form === 'each') {
      const h = await (await fileOf('a')).createSyncAccessHandle();
      overwrite(h, bytes);
      h.flush();
      h.close();
    } else {
      const h = kept[k % kept.length];
      overwrite(h, bytes);
      if (form === 'flush') h.flush();
      await null; // as a save between two steps ends
    }
  }
  postMessage(performance.now() - t0);
};`;
const PAGE = `<!doctype html><script>
let w;
const ask = (data) => new Promise((ok, ko) => {
  w.onmessage = (e) => ok(e.data);
  w.onerror = (e) => ko(new Error(e.message));
  w.postMessage(data);
});
window.prepare = (form, floats) => ((w = new Worker('/worker.js')), ask({ form, floats }));
window.measure = (puts) => ask({ puts });
window.verify = () => ask({ verify: true });
</script>`;
const server = createServer((req, res) => {
  const js = req.url === '/worker.js';
  if (!js && req.url !== '/') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' }).end(js ? WORKER : PAGE);
}).listen(0, '127.0.0.1');
await new Promise((ok) => server.once('listening', ok));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

/** CPU ms by thread group between two readings (a renderer without the worker counts as another process). */
function cpuByGroup(before: Map<string, ThreadCpu>, after: Map<string, ThreadCpu>): Record<string, number> {
  const withWorker = new Set(
    [...after.values()].filter((t) => t.name === 'DedicatedWorker').map((t) => t.pid),
  );
  return cpuBetween(before, after, (t) =>
    t.browser
      ? 'browser process'
      : t.type !== 'renderer' || !withWorker.has(t.pid)
        ? 'other processes'
        : t.name === 'DedicatedWorker'
          ? 'the worker'
          : "renderer's other threads",
  );
}

const floats = Math.round((mb * 1e6) / 4);
const rows: Record<string, { wall: number[]; cpu: Record<string, number[]> }> = Object.fromEntries(
  forms.map((f) => [f, { wall: [], cpu: {} }]),
);
/** A fresh Chromium, its browser process marked by `tag`: a new profile on disk, or (`--memory`) an incognito context. */
async function freshContext(tag: string): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const chrome = { executablePath: ensureChrome(), headless: true, args: [...CHROME_ARGS, tag] };
  if (memory) {
    const browser = await chromium.launch(chrome);
    return { context: await browser.newContext(), close: () => browser.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-bench-put-'));
  const context = await chromium.launchPersistentContext(dir, chrome);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const where = memory ? 'an incognito context (in memory)' : 'a fresh profile on disk';
console.log(
  `[bench:put] ${puts} saves of ${mb} MB per form, ${reps}× alternating, each in ${where} · load average ${load()}`,
);
/** The page's calls into its worker: set up a form, time its saves, read back what they left. */
interface Bench {
  prepare(form: string, floats: number): Promise<string>;
  measure(puts: number): Promise<number>;
  verify(): Promise<{ step: number; bytes: number }[]>;
}
try {
  for (let r = 0; r < reps; r++)
    for (const form of forms) {
      const tag = `--bench-put-run=${process.pid}-${r}-${form}`;
      const { context, close } = await freshContext(tag);
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(url);
        await page.evaluate(([f, n]) => (window as unknown as Bench).prepare(f, n), [form, floats] as const);
        const before = chromeThreads(tag);
        const wall = await page.evaluate((n) => (window as unknown as Bench).measure(n), puts);
        const cpu = cpuByGroup(before, chromeThreads(tag));
        const saved = await page.evaluate(() => (window as unknown as Bench).verify());
        const whole = saved.every((f) => f.bytes === floats * 4);
        if (form !== 'none' && (!whole || Math.max(...saved.map((f) => f.step)) !== puts - 1))
          throw new Error(`${form}: the saves left ${JSON.stringify(saved)}, not step ${puts - 1}`);
        rows[form].wall.push(wall / puts);
        cpu.all = Object.values(cpu).reduce((a, b) => a + b, 0);
        for (const [k, ms] of Object.entries(cpu)) (rows[form].cpu[k] ??= []).push(ms / puts);
      } finally {
        await close();
      }
    }
} finally {
  server.close();
}
const cols = ['all', 'the worker', "renderer's other threads", 'browser process'];
console.log(`ms per save   wall  CPU: ${cols.join(' / ')}`);
for (const form of forms) {
  const { wall, cpu } = rows[form];
  const cell = (k: string) => (cpu[k] ? median(cpu[k]).toFixed(1) : '0');
  console.log(
    `${form.padEnd(12)}  ${median(wall).toFixed(1).padStart(4)}  CPU: ${cols.map(cell).join(' / ')}`,
  );
}
console.log(`[bench:put] medians of ${reps}; load average ${load()}`);
console.log(JSON.stringify({ puts, mb, reps, memory, rows }));

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
}
