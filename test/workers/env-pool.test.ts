import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { WorkerEnvRunner } from '../../src/workers/env-pool';
import { nodeEnvWorker, threadWorker } from '../../src/workers/env-pool-node';
import type { WorkerLike } from '../../src/workers/env-pool';
import { demonstratorPolicy } from '../../src/tasks/demo';
import { InProcessEnvRunner } from '../../src/tasks/env';
import type { EnvStepInput } from '../../src/tasks/env';
import { rollout } from '../../src/tasks/orchestrator';
import { Prng } from '../../src/core/prng';
import { defineWorkflow, getTask, TASKS, sampleInstances } from '../../src/tasks/registry';
import { exampleWorkflow } from '../tasks/workflow-examples';

/**
 * A stand-in environment worker (plain JS in a real thread) whose transitions misbehave on cue:
 * response 'hang' loops forever, 'crash' throws out of the message handler, anything else echoes.
 */
const MISBEHAVING = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, inputs }) => {
  inputs.forEach((input, index) => {
    if (input.response === 'hang') for (;;) {}
    if (input.response === 'crash') throw new Error('boom');
    parentPort.postMessage({ id, from: index, results: [{ ok: true, state: input.state, valid: true }] });
  });
});`;

const input = (traj: number, response: string): EnvStepInput => ({
  traj,
  agent: 'solver',
  response,
  state: { log: [], done: false, outcome: null },
});

describe('WorkerEnvRunner', () => {
  it('tries a hung or crashed transition on fresh workers, scores it failed only after two that answer one by one, and finishes the batch', async () => {
    const pool = new WorkerEnvRunner({
      spawn: () => threadWorker(new Worker(MISBEHAVING, { eval: true })),
      size: 2,
      timeoutMs: 2000,
      startupGraceMs: 2000, // these stand-ins never say they are ready: their start counts against the limit
    });
    try {
      const responses = ['a', 'b', 'hang', 'c', 'd', 'crash', 'e', 'f'];
      const results = await pool.step(
        'math',
        responses.map((r, i) => input(i, r)),
      );
      expect(results.map((r) => r.ok)).toEqual([true, true, false, true, true, false, true, true]);
      expect(results[2]).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^traj 2: environment timed out after 4000 ms, and again on a fresh worker \(timed out after 4000 ms\); both workers replaced$/,
        ),
      });
      expect(results[5]).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^traj 5: environment worker crashed \(.*boom.*\), and again on a fresh worker \(worker crashed \(.*boom/,
        ),
      });
      // Each failed three times: once batching (which item it stopped at unknown), twice one by one.
      expect(pool.stats).toEqual({ timeouts: 3, crashes: 3, replaced: 6 });
      // The replacements work: the next tick is clean.
      const again = await pool.step(
        'math',
        ['x', 'y', 'z'].map((r, i) => input(i, r)),
      );
      expect(again.every((r) => r.ok)).toBe(true);
    } finally {
      pool.dispose();
    }
  });

  it('a transition the machine left unscheduled past the limit answers on its second try: nothing is scored failed', async () => {
    // The first worker started stalls 1.5 s in its first transition (as an unscheduled thread on a
    // loaded machine would); every later one answers at once. The limit is 500 ms.
    let spawned = 0;
    const pool = new WorkerEnvRunner({
      spawn: () =>
        threadWorker(
          new Worker(
            spawned++ === 0
              ? `const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, inputs }) => {
  const t0 = Date.now(); while (Date.now() - t0 < 1500) {}
  inputs.forEach((input, index) => parentPort.postMessage({ id, from: index, results: [{ ok: true, state: input.state, valid: true }] }));
});`
              : `const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true });
${MISBEHAVING.replace("const { parentPort } = require('node:worker_threads');", '')}`,
            { eval: true },
          ),
        ),
      size: 1,
      timeoutMs: 500,
      startupGraceMs: 60_000, // a ready worker's limit counts from its ready: the grace never applies
    });
    try {
      await new Promise((ok) => setTimeout(ok, 1000)); // let the first worker say it is ready
      const results = await pool.step(
        'math',
        ['a', 'b'].map((r, i) => input(i, r)),
      );
      expect(results.map((r) => r.ok)).toEqual([true, true]);
      expect(pool.stats).toEqual({ timeouts: 1, crashes: 0, replaced: 1 });
      // A true hang fails both tries, each at the limit (the fresh worker's counted from its ready).
      const started = Date.now();
      const hung = await pool.step('math', [input(0, 'hang')]);
      expect(hung[0]).toEqual({
        ok: false,
        error:
          'traj 0: environment timed out after 500 ms, and again on a fresh worker (timed out after 500 ms); both workers replaced',
      });
      expect(Date.now() - started).toBeLessThan(30_000); // not the 60 s grace
    } finally {
      pool.dispose();
    }
  });

  it('does not take a slow worker start for a hung transition, and still times out a hang once started', async () => {
    // Starting takes 1.5 s (as tsx compiling the task code can on a busy machine); the limit is 300 ms.
    const slowStart = `const t0 = Date.now(); while (Date.now() - t0 < 1500) {}\n${MISBEHAVING}`;
    const pool = new WorkerEnvRunner({
      spawn: () => threadWorker(new Worker(slowStart, { eval: true })),
      size: 1,
      timeoutMs: 300,
      startupGraceMs: 4000, // these stand-ins never say they are ready: a start gets the grace
    });
    try {
      const results = await pool.step(
        'math',
        ['a', 'b'].map((r, i) => input(i, r)),
      );
      expect(results.map((r) => r.ok)).toEqual([true, true]);
      expect(pool.stats).toEqual({ timeouts: 0, crashes: 0, replaced: 0 });
      const hung = await pool.step(
        'math',
        ['hang', 'c'].map((r, i) => input(i, r)),
      );
      expect(hung[0]).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^traj 0: environment timed out after 4300 ms, and again on a fresh worker \(timed out after 4300 ms\)/,
        ),
      });
      expect(hung[1].ok).toBe(true); // answered by the replacement, once it had started
      // The started worker's try had the limit alone (and BATCH_MS); each fresh one, the grace too.
      expect(pool.stats).toEqual({ timeouts: 3, crashes: 0, replaced: 3 });
    } finally {
      pool.dispose();
    }
  });

  it("counts the limit from a worker's ready message, not from the start-up grace, and from each answer after", async () => {
    // The lab's env workers say when they have loaded: from then a hang times out after the limit
    // alone (300 ms), not after the 60 s grace a start gets. Answers that each take 200 ms, under
    // the limit but over it together, never time out: the limit counts from the last answer.
    const ready = `require('node:worker_threads').parentPort.postMessage({ ready: true });
const wait = (ms) => { const t0 = Date.now(); while (Date.now() - t0 < ms) {} };
${MISBEHAVING.replace("if (input.response === 'crash')", "if (input.response === 'slow') wait(200);\n    if (input.response === 'crash')")}`;
    const pool = new WorkerEnvRunner({
      spawn: () => threadWorker(new Worker(ready, { eval: true })),
      size: 1,
      timeoutMs: 300,
      startupGraceMs: 60_000,
    });
    try {
      const slow = await pool.step(
        'math',
        Array.from({ length: 5 }, (_, i) => input(i, 'slow')),
      );
      expect(slow.map((r) => r.ok)).toEqual([true, true, true, true, true]);
      expect(pool.stats).toEqual({ timeouts: 0, crashes: 0, replaced: 0 });
      const t0 = Date.now();
      const hung = await pool.step('math', [input(0, 'hang')]);
      expect(hung[0]).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^traj 0: environment timed out after 300 ms, and again on a fresh worker \(timed out after 300 ms\)/,
        ),
      });
      expect(Date.now() - t0).toBeLessThan(30_000); // two limits and a start, far from one grace
    } finally {
      pool.dispose();
    }
  });

  it('runs real task transitions in threads with the same trajectories as in-process', async () => {
    const task = 'search';
    const instances = sampleInstances(TASKS[task], new Prng(5), 'train', 4);
    const policy = demonstratorPolicy(task, 0.3);
    const policies = Object.fromEntries(TASKS[task].agents.map((a) => [a.role, policy]));
    const pool = new WorkerEnvRunner({ spawn: nodeEnvWorker, size: 2, timeoutMs: 20_000 });
    try {
      const threaded = await rollout({ task, instances, groupSize: 4, policies, seed: 9, env: pool });
      const local = await rollout({
        task,
        instances,
        groupSize: 4,
        policies,
        seed: 9,
        env: new InProcessEnvRunner(),
      });
      expect(threaded.rows).toEqual(local.rows);
      expect(threaded.trajectories).toEqual(local.trajectories);
      expect(threaded.rows.length).toBeGreaterThan(16);
      expect(pool.stats).toEqual({ timeouts: 0, crashes: 0, replaced: 0 });
    } finally {
      pool.dispose();
    }
  });

  it('steps a workflow in threads that learn it from the pool, the same as in-process', async () => {
    // The relay example reads a dataset: the threads get the workflow without its rows, once each.
    const task = defineWorkflow(exampleWorkflow('router'));
    const instances = sampleInstances(getTask(task), new Prng(2), 'train', 4);
    const policy = demonstratorPolicy(task, 0.3);
    const policies = Object.fromEntries(getTask(task).agents.map((a) => [a.role, policy]));
    const pool = new WorkerEnvRunner({ spawn: nodeEnvWorker, size: 2, timeoutMs: 20_000 });
    try {
      const threaded = await rollout({ task, instances, groupSize: 4, policies, seed: 9, env: pool });
      const local = await rollout({ task, instances, groupSize: 4, policies, seed: 9 });
      expect(threaded.trajectories).toEqual(local.trajectories);
      expect(threaded.rows).toEqual(local.rows);
      expect(new Set(threaded.rows.map((r) => r.agent)).size).toBeGreaterThan(2);
      expect(pool.stats).toEqual({ timeouts: 0, crashes: 0, replaced: 0 });
    } finally {
      pool.dispose();
    }
  });

  it('the real worker answers a tick in one message, and a hang after answers it kept back still names its trajectory', async () => {
    // env.worker.node.ts's fault hook: trajectory 3's transition never returns. A worker thread
    // reads the environment it was started with.
    const task = 'search';
    const instances = sampleInstances(TASKS[task], new Prng(5), 'train', 6);
    const inputs = instances.map((x, traj) => ({
      traj,
      agent: TASKS[task].agents[0].role,
      response: 'search: capital',
      state: getTask(task).init(x),
    }));
    const local = await new InProcessEnvRunner().step(task, inputs);
    let replies = 0;
    const counted = (): WorkerLike => {
      const w = nodeEnvWorker();
      const like: WorkerLike = {
        postMessage: (m) => w.postMessage(m),
        onmessage: null,
        onerror: null,
        terminate: () => w.terminate(),
      };
      w.onmessage = (e) => {
        if (!('ready' in e.data)) replies++;
        like.onmessage?.(e);
      };
      w.onerror = (e) => like.onerror?.(e);
      return like;
    };
    const pool = new WorkerEnvRunner({ spawn: counted, size: 1, timeoutMs: 500 });
    try {
      expect(await pool.step(task, inputs)).toEqual(local);
      expect(replies).toBe(1);
      process.env.LAB_FAULT_HANG_TRAJ = '3';
      const hanging = new WorkerEnvRunner({ spawn: counted, size: 1, timeoutMs: 500 });
      try {
        const results = await hanging.step(task, inputs);
        expect(results[3]).toEqual({
          ok: false,
          error: `traj 3: environment timed out after 500 ms, and again on a fresh worker (timed out after 500 ms); both workers replaced`,
        });
        expect(results.filter((_, i) => i !== 3)).toEqual(local.filter((_, i) => i !== 3));
        expect(hanging.stats).toEqual({ timeouts: 3, crashes: 0, replaced: 3 });
      } finally {
        hanging.dispose();
      }
    } finally {
      delete process.env.LAB_FAULT_HANG_TRAJ;
      pool.dispose();
    }
  }, 120_000);

  it('refuses work after dispose', async () => {
    const pool = new WorkerEnvRunner({
      spawn: () => threadWorker(new Worker(MISBEHAVING, { eval: true })),
      size: 1,
      timeoutMs: 100,
    });
    pool.dispose();
    await expect(pool.step('math', [input(0, 'a')])).rejects.toThrow(/after dispose/);
  });
});
