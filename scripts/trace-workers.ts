/**
 * Where the run workers' busy time goes, from a raw trace with V8's samples
 * (docs/figures.md#where-a-steps-time-goes): by what the sampled leaf ran (the lab's wasm kernels,
 * tfjs's wasm ops, the run worker's own JS, tfjs's JS, native calls such as IndexedDB's put), and
 * by each function on the stack, inclusive (a function's share counts every sample under it).
 * Idle samples are left out. Make the trace with bench:experiment's profile on an unminified
 * build, which names the functions:
 *
 *   npx vite build --minify false --outDir /tmp/dist-nomin
 *   LAB_TRACE_OUT=/tmp/trace.json LAB_DIST=/tmp/dist-nomin npx tsx scripts/bench-experiment.ts \
 *     --steps 80 --saves on --profile --window 15
 *   npx tsx scripts/trace-workers.ts /tmp/trace.json [--top 30]
 */
import { readFileSync } from 'node:fs';
import { arg } from './cli-args';
import { isRunWorker, sampledProfiles } from './page-profile';
import type { ProfileNode, TraceEvent } from './page-profile';

const file = process.argv[2];
if (!file || file.startsWith('--')) {
  console.error('usage: npx tsx scripts/trace-workers.ts TRACE.json [--top 30]');
  process.exit(2);
}
const top = Number(arg('top', '30'));
const events = JSON.parse(readFileSync(file, 'utf8')) as TraceEvent[];

const byLeaf = new Map<string, number>();
const inclusive = new Map<string, number>();
const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
let busy = 0;
for (const p of sampledProfiles(events).filter(isRunWorker)) {
  for (const id of p.samples) {
    const leaf = p.nodes.get(id);
    if (!leaf || leaf.callFrame.functionName === '(idle)') continue;
    busy++;
    const { functionName: fn, url = '' } = leaf.callFrame;
    const file = url.split('/').pop() ?? '';
    add(
      byLeaf,
      url.startsWith('wasm')
        ? "the lab's wasm kernels"
        : /tfjs-backend-wasm.*\.wasm/.test(url)
          ? "tfjs's wasm ops"
          : /run\.worker/.test(url)
            ? "the run worker's JS"
            : url
              ? `JS of ${file}`
              : `native: ${fn}`,
    );
    const seen = new Set<string>();
    for (
      let n: ProfileNode | undefined = leaf;
      n;
      n = n.parent === undefined ? undefined : p.nodes.get(n.parent)
    ) {
      const f = n.callFrame;
      const k = `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('/').pop()}:${f.lineNumber ?? ''}`;
      if (seen.has(k)) continue;
      seen.add(k);
      add(inclusive, k);
    }
  }
}
const show = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .forEach(([k, v]) => console.log(`${((100 * v) / busy).toFixed(1).padStart(6)} %  ${k}`));
console.log(`run workers: ${busy} busy samples`);
console.log('by what the leaf ran:');
show(byLeaf, 12);
console.log(`by function on the stack, inclusive (the largest ${top}):`);
show(inclusive, top);
