/**
 * What a train step of the default experiment spends around its arithmetic, in Node on wasm
 * (docs/figures.md#where-a-steps-time-goes): the experiment's runs in lockstep as `lab train` runs
 * them, after a warm-up step;
 *   - with `--profile`, `--profile-steps` steps under V8's sampling profiler, nothing wrapped: their
 *     CPU per run step split by where it ran (the lab's wasm kernels, tfjs's wasm ops, tfjs's JS,
 *     the lab's JS by file, the garbage collector), and the part of it under tfjs's `Engine.clone`
 *     (the Identity kernels and their tape nodes) and in filtering the tape before a backward pass;
 *   - then the census over `--steps` more steps, tfjs's engine wrapped (so not timed): per run
 *     step the kernels by name, how many ran while the gradient tape recorded, the Identity kernels
 *     and what asked for each (the tensors a registered kernel's gradient keeps, by kernel; a
 *     custom gradient's `save`; a `tf.clone`), and the tfjs flags that would add work to every
 *     kernel (DEBUG, IS_TEST, CHECK_COMPUTATION_FOR_ERRORS, profiling);
 *   - with `--callers`, the census also names where each kernel came from: the line of the lab's
 *     source that ran it, or, in a backward pass, the taped op whose gradient it is (and
 *     "accumulating" for the Adds that join a tensor's gradients). Reading the stack of every kernel
 *     makes this census slow.
 *
 *   npx tsx scripts/profile-dispatch.ts [--config 'v=1'] [--profile] [--profile-steps 10] [--steps 5] [--callers]
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { runRepeats } from '../src/core/config';
import { enableRelaxedSimd } from '../src/backends/relaxed-simd-node';
import { loadConfig } from '../src/cli/load-config';
import { loadShippedBase } from '../src/cli/base-models';
import { InProcessEnvRunner } from '../src/tasks/env';
import { RunTrainer } from '../src/train/trainer';
import { arg, flag } from './cli-args';

enableRelaxedSimd();
await tf.setBackend('wasm');
const exp = loadConfig(arg('config', 'v=1'));
const steps = Number(arg('steps', '5'));
const { checkpoints } = await loadShippedBase(exp);
const trainers = runRepeats(exp).map(
  ({ seed, runIndex }) =>
    new RunTrainer({ exp, run: exp.runs[runIndex], seed, base: checkpoints, env: new InProcessEnvRunner() }),
);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** Steps `from`..`to`-1 of every run, in lockstep; returns the run steps taken and their CPU ms. */
async function train(from: number, to: number): Promise<{ runSteps: number; cpu: number }> {
  const c0 = cpuMs();
  for (let s = from; s < to; s++) for (const t of trainers) await t.trainStep();
  return { runSteps: (to - from) * trainers.length, cpu: cpuMs() - c0 };
}

console.log(`[profile-dispatch] ${exp.runs.length} runs, load average ${load()}`);
await train(0, 1); // compiles, warms up, and registers the lab's Identity in place of tfjs-wasm's

const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

// ---- the CPU split: unwrapped steps under V8's sampler, each sample's own function by where it ran
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
const isWasm = ({ functionName: fn, url }: ProfileNode['callFrame']) =>
  url.startsWith('wasm://') || fn.startsWith('wasm-function') || fn.includes('js-to-wasm');
/**
 * Where a sample's own function ran: wasm (the lab's kernels, or tfjs's, by the JS that called
 * it), tfjs's JS by package, the lab's JS by file, V8 itself.
 */
function place(node: ProfileNode, parent: Map<number, ProfileNode>): string {
  const { functionName: fn, url } = node.callFrame;
  if (isWasm(node.callFrame)) {
    let caller = parent.get(node.id);
    while (caller && isWasm(caller.callFrame)) caller = parent.get(caller.id);
    return caller?.callFrame.url.includes('tfjs-backend-wasm')
      ? 'wasm: tfjs’s ops'
      : 'wasm: the lab’s kernels';
  }
  const lib = /node_modules\/(@tensorflow\/[^/]+)/.exec(url);
  if (lib) return `JS: ${lib[1]}`;
  const lab = /\/src\/(.+)$/.exec(url);
  if (lab && !url.includes('node_modules')) return `JS: the lab’s ${lab[1]}`;
  return fn.startsWith('(') ? fn : `JS: other (${fn || 'anonymous'} in ${url.split('/').pop() || '?'})`;
}
const profileSteps = Number(arg('profile-steps', '10')); // one evaluation per run in every 10 steps
if (flag('profile')) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 }); // µs
  await session.post('Profiler.start');
  const run = await train(1, 1 + profileSteps);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const nodes = new Map((profile.nodes as ProfileNode[]).map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of nodes.values()) for (const c of n.children ?? []) parent.set(c, n);
  const byPlace = new Map<string, number>();
  /** Whether a function named `fn` is on the sample's stack. */
  const under = (node: ProfileNode | undefined, fn: string): boolean =>
    node !== undefined && (node.callFrame.functionName === fn || under(parent.get(node.id), fn));
  const engineParts = new Map<string, number>();
  // The first sample's interval reaches back into Profiler.start itself: left out.
  (profile.samples ?? []).forEach((id, i) => {
    if (i === 0) return;
    const node = nodes.get(id)!;
    bump(byPlace, place(node, parent), profile.timeDeltas![i]);
    for (const fn of ['Engine.clone', 'getFilteredNodesXToY'])
      if (under(node, fn)) bump(engineParts, fn, profile.timeDeltas![i]);
  });
  const sampled = [...byPlace.values()].reduce((a, b) => a + b, 0);
  const ms = (x: number) => ((run.cpu * x) / sampled / run.runSteps).toFixed(1);
  console.log(
    `CPU ${(run.cpu / run.runSteps).toFixed(1)} ms per run step over steps 1–${profileSteps} ` +
      `(load average ${load()}), by V8's samples:`,
  );
  const groups = new Map<string, number>();
  for (const [where, t] of byPlace)
    bump(
      groups,
      where
        .replace(/^JS: the lab’s .*/, 'JS: the lab’s, all files')
        .replace(/^JS: @tensorflow.*/, 'JS: tfjs’s'),
      t,
    );
  for (const [where, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 6))
    console.log(where.padEnd(48) + ms(t).padStart(8) + ` ms  ${((100 * t) / sampled).toFixed(1)} %`);
  console.log(
    `under tfjs's Engine.clone ${ms(engineParts.get('Engine.clone') ?? 0)} ms, ` +
      `filtering the tape ${ms(engineParts.get('getFilteredNodesXToY') ?? 0)} ms; by place:`,
  );
  for (const [where, t] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(where.padEnd(48) + ms(t).padStart(8) + ` ms  ${((100 * t) / sampled).toFixed(1)} %`);
}

// ---- the census: engine entry points wrapped (tfjs 4.22's Engine; internal, so a script only)
interface EngineInternals {
  runKernelFunc(p: { kernelName?: string }): unknown;
  clone(x: tf.Tensor): tf.Tensor;
  getTensorsForGradient(name: string, inputs: unknown, outputs: unknown): tf.Tensor[];
  isTapeOn(): boolean;
  addTapeNode(...args: unknown[]): void;
  state: { profiling: boolean; activeTape: TapeNode[] | null };
}
interface TapeNode {
  gradient?: (dys: tf.Tensor[]) => Record<string, () => tf.Tensor>;
}
const engine = tf.engine() as unknown as EngineInternals;
const kernels = new Map<string, { n: number; taped: number }>();
const clones = new Map<string, number>();
let gradSaves = 0;
const { runKernelFunc, clone, getTensorsForGradient, addTapeNode } = engine;
/** With --callers: kernels by name and origin (the lab's line, or the gradient of which op). */
const callers = flag('callers') ? new Map<string, number>() : null;
const labSource = new URL('../src/', import.meta.url).pathname;
/** The first line of the lab's source on the stack, as file:line. */
const labLine = (): string => {
  const line = new Error().stack!.split('\n').find((l) => l.includes(labSource));
  return line ? line.slice(line.indexOf(labSource) + labSource.length).replace(/:\d+\)?$/, '') : '?';
};
/** The taped op whose gradient runs now ('' outside a backward pass's gradient functions). */
let gradientOf = '';
if (callers) {
  Error.stackTraceLimit = 64;
  engine.addTapeNode = function (name, ...rest) {
    addTapeNode.call(this, name, ...rest);
    const node = this.state.activeTape![this.state.activeTape!.length - 1];
    const gradient = node.gradient;
    if (!gradient) return;
    const tag = `gradient of ${String(name)} (${labLine()})`;
    const as = <T>(f: () => T): T => {
      const outer = gradientOf;
      gradientOf = tag;
      try {
        return f();
      } finally {
        gradientOf = outer;
      }
    };
    node.gradient = (dys) => {
      const byInput = as(() => gradient(dys));
      return Object.fromEntries(Object.entries(byInput).map(([k, f]) => [k, () => as(f)]));
    };
  };
}
engine.runKernelFunc = function (p) {
  const name = p.kernelName ?? 'custom gradient op';
  if (callers) {
    const from =
      gradientOf || (/backpropagateGradients/.test(new Error().stack!) ? 'accumulating' : labLine());
    bump(callers, `${name.padEnd(22)} ${from}`);
  }
  const k = kernels.get(name) ?? { n: 0, taped: 0 };
  k.n++;
  if (this.isTapeOn()) k.taped++;
  kernels.set(name, k);
  return runKernelFunc.call(this, p);
};
engine.getTensorsForGradient = function (name, inputs, outputs) {
  const saved = getTensorsForGradient.call(this, name, inputs, outputs);
  if (saved.length) bump(clones, `kept for ${name}'s gradient`, saved.length);
  gradSaves += saved.length;
  return saved;
};
engine.clone = function (x) {
  bump(clones, 'all');
  return clone.call(this, x);
};
const first = flag('profile') ? 1 + profileSteps : 1;
const census = await train(first, first + steps);
engine.runKernelFunc = runKernelFunc;
engine.getTensorsForGradient = getTensorsForGradient;
engine.clone = clone;
engine.addTapeNode = addTapeNode;
const per = (x: number) => (x / census.runSteps).toFixed(1);
const total = [...kernels.values()].reduce((a, k) => a + k.n, 0);
const identity = kernels.get('Identity')?.n ?? 0;
const cloned = clones.get('all') ?? 0;
console.log(
  `flags: DEBUG ${tf.env().getBool('DEBUG')}, IS_TEST ${tf.env().getBool('IS_TEST')}, ` +
    `CHECK_COMPUTATION_FOR_ERRORS ${tf.env().getBool('CHECK_COMPUTATION_FOR_ERRORS')}, profiling ${engine.state.profiling}`,
);
console.log(
  `\nper run step, over steps ${first}–${first + steps - 1} of ${trainers.length} runs (load average ${load()}):`,
);
console.log(
  `kernels ${per(total)} (${per([...kernels.values()].reduce((a, k) => a + k.taped, 0))} while the tape recorded)`,
);
console.log(
  `Identity ${per(identity)}: tf.clone ${per(identity - cloned)}, engine.clone ${per(cloned)} ` +
    `(a registered kernel's gradient keeps ${per(gradSaves)}, a custom gradient's save ${per(cloned - gradSaves)})`,
);
console.log('\nkernel'.padEnd(28) + 'per step'.padStart(9) + 'taped'.padStart(7));
for (const [name, k] of [...kernels].sort((a, b) => b[1].n - a[1].n).slice(0, 30))
  console.log(name.padEnd(27) + per(k.n).padStart(9) + per(k.taped).padStart(7));
console.log('\nIdentity copies asked for by'.padEnd(44) + 'per step'.padStart(9));
for (const [what, n] of [...clones]
  .filter(([w]) => w !== 'all')
  .sort((a, b) => b[1] - a[1])
  .slice(0, 12))
  console.log(what.padEnd(43) + per(n).padStart(9));
if (callers) {
  console.log('\nkernel and where it came from'.padEnd(80) + 'per step'.padStart(9));
  for (const [what, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(what.padEnd(79) + per(n).padStart(9));
}

for (const t of trainers) t.dispose();
