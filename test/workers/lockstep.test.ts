/**
 * Runs side by side, step for step (src/workers/lockstep.ts): a run's step s waits until every
 * other run of its block has done s steps; a run that joins late hears where the others are; one
 * that left holds no one back. The page's LabSession (client.ts) stops a block at one step and
 * agrees a live change at one step for every run. Node has BroadcastChannel, so the real channel
 * carries these, between two real runs (RunDriver, nano models on wasm) of which one is paced
 * slower; the sessions' workers are stand-ins that record what they are sent.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { DEFAULT_EXPERIMENT, ExperimentSchema } from '../../src/core/config';
import { InProcessEnvRunner } from '../../src/tasks/env';
import { RunDriver } from '../../src/train/driver';
import { LabSession } from '../../src/workers/client';
import { leaveLockstep, Lockstep } from '../../src/workers/lockstep';
import { lockstepBlocks, runsAtOnce, sessionSlots, type RunInfo } from '../../src/workers/run-start';
import { runId, type FromWorker, type RunId, type ToWorker } from '../../src/workers/protocol';

const [a, b, c] = ['a', 'b', 'c'].map(runId);
let open: Lockstep[] = [];
afterEach(() => {
  for (const l of open) l.close();
  open = [];
});
const join = (me: RunId, channel: string, runs: RunId[], steps = 0) => {
  const l = new Lockstep(me, { channel, runs });
  open.push(l);
  l.join(steps);
  return l;
};
/** Lets the channel's messages arrive (they are delivered as tasks). */
const settle = () => new Promise((ok) => setTimeout(ok, 20));
/** Whether `p` has resolved by now. */
async function resolved(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await settle();
  return done;
}

describe('lockstep', () => {
  it("holds a run's step until every other run of the block has done as many", async () => {
    const ch = 'test-hold';
    const [la, lb] = [join(a, ch, [a, b, c]), join(b, ch, [a, b, c])];
    await settle();
    expect(await resolved(la.gate(0))).toBe(true); // step 0 waits for no one
    const first = la.gate(1);
    expect(await resolved(first)).toBe(false); // b and c have done no step
    lb.done(1);
    expect(await resolved(first)).toBe(false); // c, not yet started, neither
    const lc = join(c, ch, [a, b, c], 1); // c joins late, resumed at step 1: its hello says so
    expect(await resolved(first)).toBe(true);
    // b's step 2 waits for a and c; a done, it waits for c alone.
    const bNext = lb.gate(2);
    la.done(2);
    expect(await resolved(bNext)).toBe(false);
    lc.done(2);
    expect(await resolved(bNext)).toBe(true);
  });

  it('answers a late hello with where it is, so no count is missed', async () => {
    const ch = 'test-hello';
    const la = join(a, ch, [a, b], 0);
    la.done(5); // b is not listening yet: this is lost
    await settle();
    const lb = join(b, ch, [a, b], 5);
    await settle();
    expect(await resolved(lb.gate(5))).toBe(true); // a answered b's hello: it is at 5
    expect(await resolved(la.gate(5))).toBe(true);
  });

  it('holds no one back for a run that left (failed, or its worker crashed)', async () => {
    const ch = 'test-left';
    const la = join(a, ch, [a, b]);
    const waiting = la.gate(3);
    expect(await resolved(waiting)).toBe(false);
    leaveLockstep(ch, b); // what the page says when b fails
    expect(await resolved(waiting)).toBe(true);
  });

  it('plans whole blocks: the runs of one seed together, whatever the cores', () => {
    const four = {
      ...DEFAULT_EXPERIMENT,
      runs: [...DEFAULT_EXPERIMENT.runs, ...DEFAULT_EXPERIMENT.runs].map((r, i) => ({
        ...r,
        label: `r${i}`,
      })),
    };
    expect(sessionSlots(four, 2)).toBe(4); // 4 workers on 2 cores, not 2 and a queue
    expect(runsAtOnce(four, 2)).toBe(4);
    expect(sessionSlots({ ...four, seeds: 3 }, 8)).toBe(8); // two seeds' blocks; the third waits
    expect(sessionSlots(DEFAULT_EXPERIMENT, 2)).toBe(2);
    expect(sessionSlots({ ...DEFAULT_EXPERIMENT, runs: four.runs.slice(0, 3) }, 8)).toBe(6);
    const runs = [0, 1].flatMap((seed) =>
      [0, 1].map((runIndex): RunInfo => ({
        id: runId(`s${seed}r${runIndex}`),
        label: `r${runIndex}`,
        seed,
        runIndex,
        cell: 0,
        queued: false,
      })),
    );
    const plans = lockstepBlocks(runs, 'sess');
    expect(plans.get(runId('s0r1'))).toEqual({
      channel: 'agentwise-lockstep:sess:0:0',
      runs: ['s0r0', 's0r1'],
    });
    expect(plans.get(runId('s1r0'))?.runs).toEqual(['s1r0', 's1r1']);
    expect(lockstepBlocks(runs.slice(0, 1), 'sess').size).toBe(0); // a run alone steps alone
  });
});

/** A worker that keeps the messages it is sent, and says what a run says. */
class RecordingWorker {
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: ((e: { message: string }) => void) | null = null;
  readonly sent: ToWorker[] = [];
  postMessage(msg: ToWorker): void {
    this.sent.push(msg);
  }
  terminate(): void {}
  say(msg: FromWorker): void {
    this.onmessage?.({ data: msg });
  }
}

function session() {
  const workers: RecordingWorker[] = [];
  const s = new LabSession(DEFAULT_EXPERIMENT, () => {}, {
    newWorker: () => {
      const w = new RecordingWorker();
      workers.push(w);
      return w as unknown as Worker;
    },
  });
  return { s, workers };
}
const ready = (w: RecordingWorker, id: RunId) =>
  w.say({ type: 'ready', runId: id, keys: [], agents: [], models: [], base: {}, startStep: 0, kernels: '' });
const last = (w: RecordingWorker, type: ToWorker['type']) => w.sent.filter((m) => m.type === type).at(-1);

describe('a session of runs side by side', () => {
  it('starts each run with its block, stops them at one step, and agrees a change at one step for all', async () => {
    const { s, workers } = session();
    await Promise.resolve(); // the workers start in a microtask
    const ids = s.runs.map((r) => r.id);
    const start = (i: number) => workers[i].sent.find((m) => m.type === 'start');
    expect(start(0)).toMatchObject({ lockstep: { runs: ids } });
    expect((start(1) as { lockstep: { channel: string } }).lockstep.channel).toBe(
      (start(0) as { lockstep: { channel: string } }).lockstep.channel,
    );
    workers.forEach((w, i) => ready(w, ids[i]));
    s.play();
    await settle();

    // Pause: each says its next step and holds; both stop once the later one is done.
    s.pause();
    await settle();
    expect(workers.map((w) => last(w, 'hold'))).toEqual(ids.map((runId) => ({ type: 'hold', runId })));
    workers[0].say({ type: 'holding', runId: ids[0], step: 41, done: false });
    workers[1].say({ type: 'holding', runId: ids[1], step: 42, done: false });
    await settle();
    expect(workers.map((w) => last(w, 'pause'))).toEqual(
      ids.map((runId) => ({ type: 'pause', runId, at: 42 })),
    );

    // A change while paused (or training): at one step for every run, not one per run.
    const agreed = s.set('lr', 5e-4);
    await settle();
    workers[0].say({ type: 'holding', runId: ids[0], step: 42, done: false });
    workers[1].say({ type: 'holding', runId: ids[1], step: 43, done: false });
    await agreed;
    expect(workers.map((w) => last(w, 'set'))).toEqual(
      ids.map((runId) => ({ type: 'set', runId, param: 'lr', value: 5e-4, step: 43 })),
    );
    s.dispose();
  });
});

describe('two runs in lockstep, one of them slower', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  /** Two runs (b paced 150 ms slower) in lockstep, playing until both have done 6 steps. */
  async function twoRuns(ch: string) {
    const exp = ExperimentSchema.parse({
      task: 'sync',
      models: { preset: 'nano', base: 'scratch' },
      rollout: { batchSize: 1, groupSize: 2 },
      eval: { every: 0 },
      steps: 40,
    });
    const ids = [a, b];
    const counts = [0, 0];
    const seen = { widest: 0 };
    const drivers = await Promise.all(
      ids.map(async (id, i) => {
        const lockstep = join(id, ch, ids);
        return RunDriver.open(
          { fresh: { exp, run: exp.runs[i], seed: 5 } },
          {
            env: new InProcessEnvRunner(),
            steps: exp.steps,
            gate: (step) => lockstep.gate(step),
            sink: {
              frame: (r) => {
                counts[i] = r.step + 1;
                seen.widest = Math.max(seen.widest, Math.abs(counts[0] - counts[1]));
                lockstep.done(r.step + 1);
              },
            },
          },
        );
      }),
    );
    drivers[1].pace(150); // b waits 150 ms between steps: a, alone, would run ahead
    for (const d of drivers) void d.play();
    while (Math.min(...counts) < 6) await settle();
    return { drivers, counts, seen };
  }

  it('are never more than one step apart, and a pause at the later next step stops both there', async () => {
    const { drivers, counts, seen } = await twoRuns('test-drivers');
    try {
      const holds = drivers.map((d) => d.hold());
      const at = Math.max(...holds.map((h) => h.step));
      await Promise.all(drivers.map((d) => d.pause(at)));
      expect(drivers.map((d) => d.step)).toEqual([at, at]);
      expect(counts).toEqual([at, at]);
      expect(seen.widest).toBeLessThanOrEqual(1);
      expect(seen.widest).toBe(1); // they did move, one after the other
    } finally {
      for (const d of drivers) d.stop();
    }
  }, 60_000);

  it('a pause that comes after each run reached its hold stops them there: no step past it', async () => {
    // On a loaded machine the page's pause follows the answers by a while: each run has by then
    // done the step it answered and waits at its hold, which the pause releases.
    const { drivers, counts } = await twoRuns('test-drivers-late');
    try {
      const holds = drivers.map((d) => d.hold());
      const at = Math.max(...holds.map((h) => h.step));
      while (drivers.some((d, i) => d.step < holds[i].step)) await settle();
      await new Promise((ok) => setTimeout(ok, 300)); // longer than a step: any step past the hold would start
      await Promise.all(drivers.map((d) => d.pause(at)));
      expect(drivers.map((d) => d.step)).toEqual([at, at]);
      expect(counts).toEqual([at, at]);
    } finally {
      for (const d of drivers) d.stop();
    }
  }, 60_000);
});
