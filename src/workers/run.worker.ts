/**
 * Dedicated worker hosting one run: a thin adapter between the page's messages (protocol.ts) and
 * a RunDriver (train/driver.ts), which owns the step loop, saves, the lost-device fallback and
 * rollout throttling exactly as it does for the CLI. This file only picks the backend (with the
 * sanity check; its threads, kernels and fallback are run-backend.ts), loads the base models or the
 * saved state, and connects the driver to the page:
 * frames go out as one transferred Float64Array per step, states go to the run's state files
 * (IndexedDB where there are none; state-store.ts) with the frames the page has not stored yet
 * (src/core/carried-frames.ts), environments run in a pool of nested env workers with a time
 * limit, and each step waits for the other runs of its block (lockstep.ts). tfjs lives only in
 * workers.
 */
import * as tf from '@tensorflow/tfjs';
import type { BackendName } from '../core/config-names';
import { runRepeats } from '../core/config';
import type { ModelPreset } from '../core/model-sizes';
import { FrameCodec } from '../core/frame';
import { FramesInFlight, MAX_CARRIED, type CarriedFrames, type StepFrame } from '../core/carried-frames';
import { RunDriver } from '../train/driver';
import type { DriverSink } from '../train/driver-host';
import {
  checkRunIdentity,
  decodeRunState,
  encodeRunState,
  openKept,
  stateCheck,
  stateFileName,
  type RunState,
  type UnsealedRunState,
} from '../train/run-state';
import { timedPreset } from '../backends/auto-choice';
import { selectBackend } from '../backends/backend';
import type { BackendReport } from '../backends/backend-types';
import { loadBaseModels } from './base-models';
import { inspectBatch } from './inspect';
import { backendSwitcher, kernelsInUse, withThreads } from './run-backend';
import { WorkerEnvRunner, type WorkerLike } from './env-pool';
import { Lockstep } from './lockstep';
import { browserPlatform, setWasmThreads } from '../backends/platform-browser';
import { openState, putState, releaseStateFiles, stateKey } from '../storage/state-store';
import { isFull } from '../storage/idb';
import type { FromWorker, Measurements, RunId, RunStatus, ToWorker } from './protocol';
import { registerGivenData } from './given-data';

const post = (msg: FromWorker, transfer: Transferable[] = []) => postMessage(msg, transfer);

/** The run this worker hosts: its id and backend, and once started its driver. */
class RunHost {
  private id = '' as RunId;
  private report: BackendReport | null = null;
  private driver: RunDriver<BackendReport> | null = null;
  /** Speed set before the run is loaded (the page sends it right after init). */
  private delayMs = 0;
  /** The run's state file name, as `lab train` writes it (runRepeats order: the runs × seeds). */
  private stateName = 'run.run';
  /** Saves waiting for the page's `frames-stored`, by step. */
  private readonly asked = new Map<number, (answer: { stored: boolean; through: number }) => void>();
  /** The frames sent that the page has not said it stored: a saved state carries them. */
  private readonly inFlight = new FramesInFlight();

  private setState(state: RunStatus, message?: string): void {
    post({
      type: 'state',
      runId: this.id,
      state,
      step: this.driver?.step ?? 0,
      ...(message ? { message } : {}),
    });
  }

  /**
   * Selects the backend, wasm on `threads` threads (set before tfjs starts it: once per worker);
   * `auto` times `preset` on each candidate unless `measurements` has these devices at these threads.
   */
  private async init(
    runId: RunId,
    backend: BackendName,
    preset: ModelPreset,
    measurements: Measurements = {},
    threads = 1,
  ): Promise<void> {
    this.id = runId;
    setWasmThreads(threads);
    const report = await selectBackend(tf, backend, browserPlatform, {
      preset,
      timeAlone: true,
      wasmThreads: threads,
      cached: (key) => measurements[key],
    });
    this.report = await withThreads(report);
    post({ type: 'backend', runId, report: this.report });
  }

  /**
   * The frames the state after `step` steps carries: those the page has not stored yet. The page
   * answers `saving` at once with how far it has stored this run's frames (`frames-stored`; it
   * writes them about once a second). Throws where it records this session no more, or has
   * stored none of the last MAX_CARRIED steps' frames (no room, as a full disk's write throws).
   */
  private framesToCarry(step: number): Promise<CarriedFrames | undefined> {
    return new Promise((ok, ko) => {
      this.asked.set(step, ({ stored, through }) => {
        if (!stored) return ko(new Error('the page records this session no more'));
        this.inFlight.storedBefore(through);
        if (this.inFlight.size > MAX_CARRIED)
          return ko(
            new DOMException(`no room for the frames of ${this.inFlight.size} steps`, 'QuotaExceededError'),
          );
        try {
          ok(this.inFlight.before(step));
        } catch (e) {
          ko(e as Error);
        }
      });
      post({ type: 'saving', runId: this.id, step });
    });
  }

  /** One message starts a run: select the backend and report it, then load the run. */
  private async start(msg: Extract<ToWorker, { type: 'start' }>): Promise<void> {
    const { config, seed, uploads = [] } = msg;
    // A workflow's dataset first: the run (and its base models) are built from it.
    if (msg.dataset) registerGivenData(msg.dataset);
    // A fresh run's base models are fetched while the backend is chosen (they need none).
    const fetching = msg.persist?.resume
      ? null
      : loadBaseModels(
          config,
          uploads.map((u) => ({ name: u.name, bytes: new Uint8Array(u.bytes) })),
        );
    fetching?.catch(() => undefined); // a failure is thrown where it is awaited, below
    await this.init(msg.runId, msg.backend, timedPreset(config), msg.measurements, msg.threads);
    const report = this.report!;
    if (!report.backend)
      throw new Error(
        `backend ${report.requested} refused: ${report.attempts.map((a) => a.reason).join('; ')}`,
      );
    const id = this.id;
    const index = runRepeats(config).findIndex((r) => r.label === msg.label);
    this.stateName = stateFileName(index, msg.label);
    const persist = msg.persist ? { session: msg.persist.session, key: stateKey(msg.run, msg.label) } : null;
    const env = new WorkerEnvRunner({
      spawn: () =>
        new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike,
      size: 1,
      timeoutMs: config.rollout.envTimeoutMs,
    });
    let codec: FrameCodec | null = null;
    const lockstep = msg.lockstep ? new Lockstep(id, msg.lockstep) : null;
    const sink: DriverSink<BackendReport> = {
      frame: (r) => {
        const values = codec!.encode(r.metrics);
        if (persist) this.inFlight.add({ step: r.step, values: values.slice() });
        post({ type: 'frame', runId: id, step: r.step, values }, [values.buffer]);
        lockstep?.done(r.step + 1);
      },
      rollouts: (r) => post({ type: 'rollouts', runId: id, step: r.step, trajectories: inspectBatch(r) }),
      status: (state, step, message) =>
        post({ type: 'state', runId: id, state, step, ...(message ? { message } : {}) }),
      // `full`: refused for want of room (the page says what is not being saved).
      saved: (step, error, full) =>
        post({ type: 'saved', runId: id, step, ...(error ? { error, full } : {}) }),
      fallback: (report, step, why) =>
        post({
          type: 'fallback',
          runId: id,
          report,
          step,
          message: `${why} after step ${step}; the run goes on from there on wasm`,
          kernels: kernelsInUse(),
        }),
      error: (message) => post({ type: 'error', runId: id, message }),
    };
    const options = {
      env,
      steps: config.steps,
      sink,
      saveEvery: msg.persist?.every ?? 0,
      // A save that fails is reported (sink.saved) and training goes on: the page records the metrics either way.
      store: persist && {
        save: async (s: UnsealedRunState) => {
          const frames = await this.framesToCarry(s.meta.step);
          // From the page's answer on, nothing but this save runs here until it is written: its
          // awaits are of promises already settled (the files, once open), so no step work
          // interleaves, and this is the save's own time (perf/save_ms).
          const t0 = performance.now();
          const stored = {
            ...{ session: persist.session, run: persist.key, step: s.meta.step, savedAt: Date.now() },
            kept: { state: s, check: stateCheck(s, frames), ...(frames && { frames }) },
          };
          await putState(stored, msg.persist?.fault);
          return performance.now() - t0;
        },
        isFull,
      },
      backend: backendSwitcher(report),
      ...(lockstep ? { gate: (step: number) => lockstep.gate(step) } : {}),
    };
    let notes: Record<string, string>;
    let carried: StepFrame[] = [];
    try {
      if (msg.persist?.resume) {
        this.setState('loading', 'loading the saved run state…');
        // The newest whole one: a file torn by a killed tab fails its check, and the other is taken.
        const opened = await openState<UnsealedRunState, { state: RunState; frames: StepFrame[] }>(
          msg.persist.session,
          stateKey(msg.run, msg.label),
          (stored) =>
            stored.kept ? openKept(stored.kept) : { state: decodeRunState(stored.bytes!), frames: [] },
        );
        if (!opened) throw new Error(`no saved state for ${msg.label} in this session`);
        const { state } = opened;
        // Its carried frames go to the page with `ready`, and stay in flight until the page stores them.
        carried = opened.frames;
        for (const f of carried) this.inFlight.add(f);
        try {
          checkRunIdentity(state.manifest, { experiment: config, runIndex: msg.run, seed });
        } catch (e) {
          throw new Error(`the saved state of ${msg.label} ${(e as Error).message}`, { cause: e });
        }
        // The page's schedule holds the changes recorded after this save too.
        const schedule = config.runs[msg.run].live;
        this.driver = await RunDriver.open({ state, schedule }, options);
        const m = state.manifest;
        notes = Object.fromEntries(
          this.driver.trainer.models.map((pm) => [
            pm.id,
            `resumed at step ${m.step} (saved on ${String(m.notes.backend)})`,
          ]),
        );
      } else {
        this.setState(
          'loading',
          config.models.base === 'shipped' || uploads.length ? 'loading base models…' : undefined,
        );
        const base = await fetching!;
        notes = base.notes;
        this.driver = await RunDriver.open(
          { fresh: { exp: config, run: config.runs[msg.run], seed, base: base.checkpoints } },
          options,
        );
      }
    } catch (e) {
      env.dispose();
      throw e;
    }
    const t = this.driver.trainer;
    lockstep?.join(t.step); // a resumed run at its saved step
    this.driver.pace(this.delayMs);
    const keys = t.metricKeys();
    codec = new FrameCodec(keys);
    post({
      type: 'ready',
      runId: id,
      keys,
      agents: t.agents,
      models: t.models.map((m) => ({
        id: m.id,
        preset: m.preset,
        agents: m.agents,
        params: m.model.numParams(),
      })),
      base: notes,
      startStep: t.step,
      carried,
      kernels: kernelsInUse(),
    });
    this.setState(this.driver.done ? 'done' : 'paused');
  }

  private loaded(what: string): RunDriver<BackendReport> {
    if (!this.driver) throw new Error(`no run to ${what}: start it first`);
    return this.driver;
  }

  async handle(msg: ToWorker): Promise<void> {
    switch (msg.type) {
      case 'init':
        return this.init(msg.runId, msg.backend, msg.preset, msg.measurements, msg.threads);
      case 'start':
        return this.start(msg);
      case 'play':
        // Before the run is loaded there is nothing to play: the page says play again once it is ready.
        return this.driver?.play();
      case 'pause':
        await this.driver?.pause(msg.at);
        // Saved as it stopped: the page may now let the session go to another tab.
        await releaseStateFiles();
        post({ type: 'stopped', runId: this.id, step: this.driver?.step ?? 0 });
        return;
      case 'step':
        return this.loaded('step').stepOnce();
      case 'pace':
        if (!Number.isFinite(msg.delayMs) || msg.delayMs < 0)
          throw new Error(`pace must be a delay ≥ 0 ms, got ${msg.delayMs}`);
        this.delayMs = msg.delayMs;
        this.driver?.pace(msg.delayMs);
        return;
      case 'hold':
        post({ type: 'holding', runId: this.id, ...this.loaded('change').hold() });
        return;
      case 'set': {
        const step = this.loaded('change').setLiveFrom(msg.param, msg.value, msg.step);
        post({ type: 'param', runId: this.id, param: msg.param, value: msg.value, step });
        return;
      }
      case 'snapshot': {
        const driver = this.loaded('snapshot');
        const step = driver.step;
        const files = Object.fromEntries(
          Object.entries(await driver.snapshot()).map(([m, bytes]) => [m, bytes.buffer as ArrayBuffer]),
        );
        post({ type: 'checkpoint', runId: this.id, step, files }, Object.values(files));
        return;
      }
      case 'run-state': {
        const state = await this.loaded('save').state();
        const bytes = encodeRunState(state).slice().buffer;
        const { step } = state.manifest;
        post({ type: 'run-state', runId: this.id, step, name: this.stateName, bytes }, [bytes]);
        return;
      }
      case 'frames-stored':
        this.asked.get(msg.step)?.(msg);
        this.asked.delete(msg.step);
        return;
      case 'lose-device': {
        const device = (tf.backend() as unknown as { device?: { destroy(): void } }).device;
        if (!device) throw new Error(`no GPU device to lose: this run is on ${tf.getBackend()}`);
        device.destroy();
        return;
      }
      default: {
        const never: never = msg;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  }

  /** A command failed: the page hears why, and the run stops. */
  fail(e: Error): void {
    this.driver?.halt();
    post({ type: 'error', runId: this.id, message: e.message });
    this.setState('failed', e.message);
  }
}

const host = new RunHost();
onmessage = (event: MessageEvent<ToWorker>) => {
  host.handle(event.data).catch((e: Error) => host.fail(e));
};
