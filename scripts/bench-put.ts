/**
 * What one run-state save costs the browser, by the form its payload is put in IndexedDB
 * (src/storage/state-store.ts; docs/figures.md#where-a-steps-time-goes): a dedicated worker puts a
 * record holding a `--mb` MB payload `--puts` times, each in its own transaction that it waits for,
 * as a run's worker does after every step, the payload once an `ArrayBuffer` (what earlier builds
 * put) and once a `Blob` (what the lab puts), alternating `--reps` times, each in a fresh page
 * under a Chrome trace. Prints the CPU per put by thread (the worker that puts, the renderer's
 * other threads, the browser process) and the wall time. Node only.
 *
 *   npm run bench:put [-- --puts 40 --reps 3 --mb 4.1]   (--smoke: 2 puts of 0.1 MB, once)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { arg, flag, median } from './cli-args';
import { timedTasks, traceNames } from './page-profile';
import type { TraceEvent } from './page-profile';

const smoke = flag('smoke');
const puts = Number(arg('puts', smoke ? '2' : '40'));
const reps = Number(arg('reps', smoke ? '1' : '3'));
const mb = Number(arg('mb', smoke ? '0.1' : '4.1'));
const FORMS = ['ArrayBuffer', 'Blob'] as const;
type Form = (typeof FORMS)[number];
type Measure = (form: Form, puts: number, floats: number) => Promise<number>;

// The worker: a fresh payload buffer each put (as each save reads the state anew), one changed float.
const WORKER = `
const open = () => new Promise((ok, ko) => {
  const r = indexedDB.open('bench-put', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('states');
  r.onsuccess = () => ok(r.result);
  r.onerror = () => ko(r.error);
});
onmessage = async ({ data: { form, puts, floats } }) => {
  const db = await open();
  const state = new Float32Array(floats).map(() => Math.random());
  const t0 = performance.now();
  for (let k = 0; k < puts; k++) {
    state[k % floats] = k;
    const bytes = state.buffer.slice(0);
    const tx = db.transaction('states', 'readwrite', { durability: 'relaxed' });
    tx.objectStore('states').put({ step: k, payload: form === 'Blob' ? new Blob([bytes]) : bytes }, 'run');
    await new Promise((ok, ko) => ((tx.oncomplete = ok), (tx.onerror = () => ko(tx.error))));
  }
  postMessage(performance.now() - t0);
};`;
const PAGE = `<!doctype html><script>
window.measure = (form, puts, floats) => new Promise((ok) => {
  const w = new Worker('/worker.js');
  w.onmessage = (e) => ok(e.data);
  w.postMessage({ form, puts, floats });
});
</script>`;

const server = createServer((req, res) => {
  const js = req.url === '/worker.js';
  if (!js && req.url !== '/') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' }).end(js ? WORKER : PAGE);
}).listen(0, '127.0.0.1');
await new Promise((ok) => server.once('listening', ok));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

/** CPU ms of top-level tasks by thread group. */
function cpuByThread(events: TraceEvent[]): Record<string, number> {
  const { thread, process } = traceNames(events);
  const group = (e: TraceEvent) => {
    if (/Browser/.test(process.get(e.pid) ?? '')) return 'browser process';
    if (!/Renderer/.test(process.get(e.pid) ?? '')) return 'other processes';
    return /DedicatedWorker/.test(thread.get(`${e.pid}:${e.tid}`) ?? '')
      ? 'the worker'
      : "renderer's other threads";
  };
  const out: Record<string, number> = {};
  for (const { e } of timedTasks(events).filter((t) => t.topLevel))
    out[group(e)] = (out[group(e)] ?? 0) + e.tdur! / 1000;
  return out;
}

const browser = await chromium.launch({ executablePath: ensureChrome(), headless: true, args: CHROME_ARGS });
const floats = Math.round((mb * 1e6) / 4);
const rows: Record<Form, { wall: number[]; cpu: Record<string, number[]> }> = {
  ArrayBuffer: { wall: [], cpu: {} },
  Blob: { wall: [], cpu: {} },
};
console.log(`[bench:put] ${puts} puts of ${mb} MB per form, ${reps}× alternating · load average ${load()}`);
try {
  for (let r = 0; r < reps; r++)
    for (const form of FORMS) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      const cdp = await context.newCDPSession(page);
      const events: TraceEvent[] = [];
      cdp.on('Tracing.dataCollected', (e) => void events.push(...(e.value as unknown as TraceEvent[])));
      await cdp.send('Tracing.start', {
        traceConfig: { includedCategories: ['toplevel'] },
        transferMode: 'ReportEvents',
      });
      const wall = await page.evaluate(
        ([f, n, k]) => (window as unknown as { measure: Measure }).measure(f, n, k),
        [form, puts, floats] as const,
      );
      const done = new Promise<void>((ok) => cdp.once('Tracing.tracingComplete', () => ok()));
      await cdp.send('Tracing.end');
      await done;
      await context.close();
      rows[form].wall.push(wall / puts);
      const cpu = cpuByThread(events);
      cpu.all = Object.values(cpu).reduce((a, b) => a + b, 0);
      for (const [k, ms] of Object.entries(cpu)) (rows[form].cpu[k] ??= []).push(ms / puts);
    }
} finally {
  await browser.close();
  server.close();
}
const cols = ['all', 'the worker', "renderer's other threads", 'browser process'];
console.log(`ms per put    wall  CPU: ${cols.join(' / ')}`);
for (const form of FORMS) {
  const { wall, cpu } = rows[form];
  const cell = (k: string) => (cpu[k] ? median(cpu[k]).toFixed(1) : '0');
  console.log(
    `${form.padEnd(12)}  ${median(wall).toFixed(1).padStart(4)}  CPU: ${cols.map(cell).join(' / ')}`,
  );
}
console.log(`[bench:put] medians of ${reps}; load average ${load()}`);
console.log(JSON.stringify({ puts, mb, reps, rows }));

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
}
