/**
 * A run's live-change schedule replays a live change: a run given `live: {S: …}` trains, bit for
 * bit, what a run changed live at step S trains, and the schedule survives a save and a resume
 * (changes due after the save apply at their steps; those before it are already in the state). On
 * wasm, as the other trainer tests: bit for bit holds on any one backend.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { ExperimentSchema, type Experiment } from '../../src/core/config';
import { agreedStep, type HoldAnswer } from '../../src/core/live-schedule';
import { M } from '../../src/core/metrics';
import { InProcessEnvRunner } from '../../src/tasks/env';
import { RunDriver } from '../../src/train/driver';
import type { DriverStart } from '../../src/train/driver-host';
import { decodeRunState, encodeRunState, sealRunState, type RunState } from '../../src/train/run-state';

const STEPS = 5;
const AT = 2;
const LR = 0.01;
const base = ExperimentSchema.parse({
  task: 'sync',
  models: { preset: 'nano', base: 'scratch' },
  rollout: { batchSize: 1, groupSize: 2 },
  eval: { every: 0 },
});
const scheduled: Experiment = {
  ...base,
  runs: base.runs.map((r, i) => (i === 1 ? { ...r, live: { [AT]: { optim: { lr: LR } } } } : r)),
};

/** Everything a step computes, without the wall-clock and memory readings. */
const science = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(m).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('mem/') && k !== M.timeS),
  );

/** Opens a run, lets `during(driver)` drive it, then steps it to the end; its frames and saved states. */
async function train(start: DriverStart, during: (d: RunDriver) => Promise<void> = async () => {}) {
  const frames: Record<string, number>[] = [];
  const states: RunState[] = [];
  const driver = await RunDriver.open(start, {
    env: new InProcessEnvRunner(),
    steps: STEPS,
    saveEvery: 1,
    store: { save: (s) => void states.push(decodeRunState(encodeRunState(sealRunState(s)))) },
    sink: { frame: (r) => void frames.push(science(r.metrics)) },
  });
  try {
    await during(driver);
    while (!driver.done) await driver.stepOnce();
    return { frames, states, lr: driver.trainer.liveValues().lr };
  } finally {
    driver.stop();
  }
}
const fresh = (exp: Experiment, seed = 7): DriverStart => ({ fresh: { exp, run: exp.runs[1], seed } });
/** `base` with run 1 changed to `LR` at `step`: the link the page records. */
const scheduledAt = (step: number): Experiment => ({
  ...base,
  runs: base.runs.map((r, i) => (i === 1 ? { ...r, live: { [step]: { optim: { lr: LR } } } } : r)),
});

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('a live-change schedule', () => {
  it('trains what a change made live at that step trains, bit for bit', async () => {
    const replayed = await train(fresh(scheduled));
    const live = await train(fresh(base), async (d) => {
      while (d.step < AT) await d.stepOnce();
      expect(d.setLiveFrom('lr', LR)).toBe(AT);
    });
    const untouched = await train(fresh(base));
    expect(replayed.lr).toBe(LR);
    expect(replayed.frames).toEqual(live.frames);
    // The change made a difference after step AT, and none before it.
    expect(replayed.frames.slice(0, AT + 1)).toEqual(untouched.frames.slice(0, AT + 1));
    expect(replayed.frames[AT + 1]).not.toEqual(untouched.frames[AT + 1]);
  }, 120_000);

  it('a change set while a step computes waits for the next step', async () => {
    const live = await train(fresh(base), async (d) => {
      while (d.step < AT - 1) await d.stepOnce();
      const inFlight = d.stepOnce(); // step AT - 1
      expect(d.setLiveFrom('lr', LR)).toBe(AT);
      await inFlight;
    });
    expect(live.frames).toEqual((await train(fresh(scheduled))).frames);
  }, 120_000);

  it('is part of the saved state: a resume before the change takes it at its step, one after has it', async () => {
    // Set while step AT - 1 computes: the state saved after that step carries the change, not yet taken.
    const whole = await train(fresh(base), async (d) => {
      while (d.step < AT - 1) await d.stepOnce();
      const inFlight = d.stepOnce();
      d.setLiveFrom('lr', LR);
      await inFlight;
    });
    const savedAt = (step: number) => whole.states.find((s) => s.manifest.step === step)!;
    expect(savedAt(AT).manifest.live.lr).toBe(3e-4);
    expect(savedAt(AT).manifest.experiment.runs[1].live).toEqual({ [AT]: { optim: { lr: LR } } });
    expect((await train({ state: savedAt(AT) })).frames).toEqual(whole.frames.slice(AT));
    expect(savedAt(AT + 1).manifest.live.lr).toBe(LR);
    expect((await train({ state: savedAt(AT + 1) })).frames).toEqual(whole.frames.slice(AT + 1));
    // A state saved before the change was set resumes under an experiment that has it (the page's link).
    expect(savedAt(AT - 1).manifest.experiment.runs[1].live).toEqual({});
    const resumed = await train({ state: savedAt(AT - 1), schedule: scheduled.runs[1].live });
    expect(resumed.frames).toEqual(whole.frames.slice(AT - 1));
  }, 240_000);

  it('reaches two repeats of a run at different steps at one step, as their link replays it', async () => {
    // The page asks each running repeat to hold; the change goes to both at the later answer.
    const seeds = [7, 8];
    const tick = () => new Promise((r) => setTimeout(r, 10));
    const held: HoldAnswer[] = [];
    let agreed = -1;
    const repeats = Promise.all([
      train(fresh(base, seeds[0]), async (d) => {
        while (d.step < AT + 1) await d.stepOnce();
        while (held.length < 1) await tick();
        held.push(d.hold());
        expect(held[1]).toEqual({ step: AT + 1, done: false });
        while (agreed < 0) await tick();
        expect(d.setLiveFrom('lr', LR, agreed)).toBe(AT + 1);
      }),
      train(fresh(base, seeds[1]), async (d) => {
        // Asked while its step 0 computes: it holds before step 1.
        const inFlight = d.stepOnce();
        held.push(d.hold());
        expect(held[0]).toEqual({ step: 1, done: false });
        await inFlight;
        // Held: its next step waits for the change.
        const next = d.stepOnce();
        while (held.length < 2) await tick();
        expect(d.step).toBe(1);
        agreed = agreedStep(held, false)!;
        expect(d.setLiveFrom('lr', LR, agreed)).toBe(AT + 1);
        await next;
      }),
    ]);
    const [ahead, behind] = await repeats;
    const replayed = await Promise.all(seeds.map((s) => train(fresh(scheduledAt(AT + 1), s))));
    expect(ahead.frames).toEqual(replayed[0].frames);
    expect(behind.frames).toEqual(replayed[1].frames);
    // The repeat behind took it at step AT + 1, not at its own next step (1).
    const early = await train(fresh(scheduledAt(1), seeds[1]));
    expect(behind.frames[2]).not.toEqual(early.frames[2]);
  }, 240_000);

  it('a repeat in its last step answers the step it ends at; a finished one holds nothing', async () => {
    await train(fresh(base), async (d) => {
      while (d.step < STEPS - 1) await d.stepOnce();
      const last = d.stepOnce();
      expect(d.hold()).toEqual({ step: STEPS, done: false });
      await last;
      expect(d.hold()).toEqual({ step: STEPS, done: true });
    });
  }, 120_000);

  it('agrees the latest next step of the repeats still training', () => {
    const at = (step: number, done = false) => ({ step, done });
    expect(agreedStep([at(3), at(1), at(5, true)], false)).toBe(3);
    // None training: queued repeats start with it; all finished: a Continue goes on from there.
    expect(agreedStep([at(5, true)], true)).toBe(0);
    expect(agreedStep([], true)).toBe(0);
    expect(agreedStep([at(5, true), at(5, true)], false)).toBe(5);
    expect(agreedStep([], false)).toBeNull();
  });
});
