/**
 * A run worker that crashes (an uncaught error: the Worker's `error` event, with no state of its
 * own) fails its run in LabSession (client.ts): the page hears the error and the run's 'failed'
 * state, the worker's slot goes to the next queued run, and a second error from the same worker
 * starts nothing more. Node has no Web Worker, so the session gets a worker that only records
 * what it is sent and raises what a crashed one does (SessionOptions.newWorker). Without the
 * session's failing of a crashed run, no 'failed' state arrives and the queued run never starts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { LabSession } from '../../src/workers/client';
import type { FromWorker, ToWorker } from '../../src/workers/protocol';

/** A worker that keeps the messages it is sent; `crash` raises the error event a crash raises. */
class RecordingWorker {
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: ((e: { message: string }) => void) | null = null;
  readonly sent: ToWorker[] = [];
  terminated = false;
  constructor(readonly name: string) {}
  postMessage(msg: ToWorker): void {
    this.sent.push(msg);
  }
  terminate(): void {
    this.terminated = true;
  }
  crash(message: string): void {
    this.onerror?.({ message });
  }
  say(msg: FromWorker): void {
    this.onmessage?.({ data: msg });
  }
}

function sessionOf(seeds: number, slots: number) {
  const workers: RecordingWorker[] = [];
  const heard: FromWorker[] = [];
  const config = { ...DEFAULT_EXPERIMENT, runs: DEFAULT_EXPERIMENT.runs.slice(0, 1), seeds };
  const session = new LabSession(config, (m) => heard.push(m), {
    slots,
    newWorker: (name) => {
      const w = new RecordingWorker(name);
      workers.push(w);
      return w as unknown as Worker;
    },
  });
  return { session, workers, heard };
}

const started = (w: RecordingWorker) => w.sent.filter((m) => m.type === 'start').length;

describe('a crashed run worker', () => {
  it('fails its run with the error and gives its slot to the next queued run', async () => {
    const { session, workers, heard } = sessionOf(3, 2);
    await Promise.resolve(); // the first workers start in a microtask
    expect(workers.map(started)).toEqual([1, 1]);
    const [first, second] = session.runs;
    const third = session.runs[2];
    expect(session.queued()).toEqual([third.id]);

    workers[0].crash('Uncaught Error: boom');

    const said = heard.filter((m) => m.runId === first.id);
    expect(said).toEqual([
      { type: 'error', runId: first.id, message: 'run worker crashed: Uncaught Error: boom' },
      {
        type: 'state',
        runId: first.id,
        state: 'failed',
        step: 0,
        message: 'run worker crashed: Uncaught Error: boom',
      },
    ]);
    expect(workers[0].terminated).toBe(true);
    expect(workers).toHaveLength(3);
    expect(started(workers[2])).toBe(1);
    expect(workers[2].sent[0]).toMatchObject({ type: 'start', runId: third.id, seed: third.seed });
    expect(session.queued()).toEqual([]);
    expect(session.live().sort()).toEqual([second.id, third.id].sort());
    expect(heard).toContainEqual(expect.objectContaining({ runId: third.id, state: 'loading' }));
  });

  it('fails its run once: a second error, or one after the run failed, starts nothing more', async () => {
    const { session, workers, heard } = sessionOf(4, 2);
    await Promise.resolve();
    const [first, second] = session.runs;

    // The second worker fails its run itself, then crashes: the failure already freed its slot.
    workers[1].say({ type: 'state', runId: second.id, state: 'failed', step: 3, message: 'NaN loss' });
    expect(workers).toHaveLength(3);
    workers[1].crash('late');
    workers[0].crash('boom');
    workers[0].crash('boom again');

    expect(workers).toHaveLength(4);
    expect(heard.filter((m) => m.type === 'error').map((m) => m.runId)).toEqual([first.id]);
    expect(heard.filter((m) => m.type === 'state' && m.state === 'failed').map((m) => m.runId)).toEqual([
      second.id,
      first.id,
    ]);
  });

  it('with no run queued, fails the run and leaves the others training', async () => {
    const { session, workers, heard } = sessionOf(2, 2);
    await Promise.resolve();
    workers[0].crash('boom');
    expect(heard).toContainEqual(expect.objectContaining({ type: 'state', state: 'failed' }));
    expect(workers).toHaveLength(2);
    expect(workers[1].terminated).toBe(false);
    expect(session.live()).toHaveLength(2);
  });
});
