import { describe, expect, it } from 'vitest';
import { metricKeys } from '../../src/core/metrics';
import { importFiles, seedOf } from '../../src/interop/import';
import { inferAgents, labAgentName, mapNames } from '../../src/interop/metric-map';
import { writeEventFile } from '../../src/interop/tensorboard';
import { parseCsv, readWandbCsv } from '../../src/interop/wandb-csv';
import { bytesOf, event, record, simple, tensorDouble, tensorFloat } from './hand-assembled';

const te = (s: string) => new TextEncoder().encode(s);

describe('metric names', () => {
  it('maps Dr. MAS / verl names to lab keys, per agent through the worker-group id', () => {
    const names = [
      'actor/Qwen3-4B_SolverAgent/grad_norm',
      'actor/Qwen3-4B_SolverAgent/pg_loss',
      'actor/Qwen3-4B_VerifierAgent/pg_clipfrac',
      'actor/Qwen3-4B_VerifierAgent/ppo_kl',
      'critic/score/mean',
      'critic/rewards/mean',
      'critic/Qwen3-4B_SolverAgent/score/mean',
      'critic/Qwen3-4B_SolverAgent/advantages/max',
      'critic/advantages/mean',
      'response_length/mean',
      'val/avg@16',
      'val/pass@16',
      'val/math500/test_score',
      'adv_diag/Verifier Agent/inflation_factor_mean',
      'adv_std/SolverAgent/mean',
      'timing_s/gen',
      'agent/solver/entropy',
    ];
    const { keys, inferred, wgAgents } = mapNames(names);
    expect(Object.fromEntries(keys)).toEqual({
      'actor/Qwen3-4B_SolverAgent/grad_norm': 'agent/solver/grad_norm',
      'actor/Qwen3-4B_SolverAgent/pg_loss': 'agent/solver/pg_loss',
      'actor/Qwen3-4B_VerifierAgent/pg_clipfrac': 'agent/verifier/clipfrac',
      'actor/Qwen3-4B_VerifierAgent/ppo_kl': 'agent/verifier/kl',
      'critic/score/mean': 'reward/mean',
      'critic/rewards/mean': 'other/critic/rewards/mean', // reward/mean taken by the score (earlier rule)
      'critic/Qwen3-4B_SolverAgent/score/mean': 'agent/solver/reward/mean',
      'critic/Qwen3-4B_SolverAgent/advantages/max': 'agent/solver/adv/max',
      'critic/advantages/mean': 'adv/mean',
      'response_length/mean': 'resp_len',
      'val/avg@16': 'eval/avg@16',
      'val/pass@16': 'eval/pass@16',
      'val/math500/test_score': 'eval/math500/test_score',
      'adv_diag/Verifier Agent/inflation_factor_mean': 'agent/verifier/amplification',
      'adv_std/SolverAgent/mean': 'agent/solver/reward/std',
      'timing_s/gen': 'other/timing_s/gen',
      'agent/solver/entropy': 'agent/solver/entropy', // already a lab key
    });
    expect(inferred.sort()).toEqual(['Qwen3-4B_SolverAgent', 'Qwen3-4B_VerifierAgent']);
    expect(wgAgents['Qwen3-4B_SolverAgent']).toEqual(['solver']);
  });

  it('gives a shared model’s grad norm to the model, and takes a given wg map over inference', () => {
    expect(inferAgents('Qwen2.5-7B_VerifierAgent_SearchAgent_AnswerAgent')).toEqual([
      'verifier',
      'search',
      'answer',
    ]);
    expect(labAgentName('Answer Agent')).toBe('answer');
    const shared = mapNames([
      'actor/Qwen2.5-7B_VerifierAgent_SearchAgent/grad_norm',
      'actor/Qwen2.5-7B_VerifierAgent_SearchAgent/pg_loss',
    ]);
    expect(Object.fromEntries(shared.keys)).toEqual({
      'actor/Qwen2.5-7B_VerifierAgent_SearchAgent/grad_norm':
        'model/Qwen2.5-7B_VerifierAgent_SearchAgent/grad_norm',
      'actor/Qwen2.5-7B_VerifierAgent_SearchAgent/pg_loss':
        'other/actor/Qwen2.5-7B_VerifierAgent_SearchAgent/pg_loss',
    });
    const given = mapNames(['actor/wg0/grad_norm'], { wg0: ['coder'] });
    expect(given.keys.get('actor/wg0/grad_norm')).toBe('agent/coder/grad_norm');
    expect(given.inferred).toEqual([]);
  });
});

describe("the lab's own keys", () => {
  it('maps every key a lab run can record to itself, whatever its options (a lab run reads back unchanged)', () => {
    for (const estimator of ['grpo', 'mars2', 'custom'] as const)
      for (const on of [false, true]) {
        const keys = metricKeys(['alice', 'search-2'], ['shared', 'bob'], 8, {
          ...{ estimator, shadowGradNorm: on, credit: on, ownSuccess: on },
          ...{ mcts: on, filter: on, buffers: on },
        });
        const { keys: mapped } = mapNames(keys);
        const moved = keys.filter((k) => mapped.get(k) !== k).map((k) => `${k} → ${mapped.get(k)}`);
        expect(moved, `${estimator}, options ${on}`).toEqual([]);
      }
  });
});

describe('W&B CSV', () => {
  it('parses quoted fields with commas, quotes and newlines', () => {
    expect(parseCsv('a,"b,c","d ""e""\nf"\r\n1,2,3\n')).toEqual([
      ['a', 'b,c', 'd "e"\nf'],
      ['1', '2', '3'],
    ]);
  });

  it('reads a run history (_step, _runtime) and a chart export (<run> - <metric>, bands skipped)', () => {
    const history = readWandbCsv(
      '_step,_runtime,_timestamp,critic/score/mean,val/avg@16\n0,1.5,1700000000,0.25,\n1,3,1700000001,0.5,0.125\nbroken\n',
    );
    expect(history.skipped).toBe(1);
    expect(history.runs.get('')).toEqual([
      { step: 0, time_s: 1.5, 'critic/score/mean': 0.25 },
      { step: 1, time_s: 3, 'critic/score/mean': 0.5, 'val/avg@16': 0.125 },
    ]);
    const chart = readWandbCsv(
      'Step,grpo - critic/score/mean,grpo - critic/score/mean__MIN,drmas - critic/score/mean\n5,0.1,0.05,0.2\n',
    );
    expect([...chart.runs.keys()]).toEqual(['grpo', 'drmas']);
    expect(chart.runs.get('drmas')).toEqual([{ step: 5, 'critic/score/mean': 0.2 }]);
    expect(() => readWandbCsv('a,b\n1,2\n')).toThrow(/no step column/);
  });
});

describe('importFiles', () => {
  it('reads the lab’s own event files back to the written values (float32) under the same keys', () => {
    const rows = [
      {
        step: 0,
        time_s: 1,
        'reward/mean': 0.1,
        'agent/verifier/amplification': 1.337,
        'model/verifier/grad_norm': 7.77,
      },
      {
        step: 1,
        time_s: 2,
        'reward/mean': 0.2,
        'agent/verifier/amplification': 0.875,
        'model/verifier/grad_norm': 1e-3,
      },
    ];
    const { runs, refused } = importFiles([
      { path: 'tb/GRPO/events.out.tfevents.1.agentwise-lab', bytes: writeEventFile(rows, 1e9) },
    ]);
    expect(refused).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      label: 'GRPO',
      agents: ['verifier'],
      records: 3,
      skipped: 0,
      truncatedBytes: 0,
    });
    expect(runs[0].rows.map(({ time_s: _t, ...r }) => r)).toEqual(
      rows.map(({ time_s: _t, ...r }) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'step' ? v : Math.fround(v)])),
      ),
    );
  });

  it('reads a hand-assembled Dr. MAS file with a corrupt record and a cut-off tail, and refuses other files by name', () => {
    const wg = 'Qwen3-4B_SolverAgent';
    const corrupt = record(event(2, 1002, [simple(`actor/${wg}/grad_norm`, 5)]));
    corrupt[20] ^= 0x55;
    const file = bytesOf(
      record(event(1, 1001, [simple(`actor/${wg}/grad_norm`, 0.3), tensorFloat('critic/score/mean', 0.7)])),
      corrupt,
      record(event(3, 1003, [tensorDouble('val/avg@16', 0.1), simple('timing_s/gen', 12.5)])),
      record(event(4, 1004, [simple(`actor/${wg}/grad_norm`, 0.4)])).slice(0, 30),
    );
    const { runs, refused } = importFiles([
      { path: 'cluster/drmas_math/events.out.tfevents.1.node0', bytes: file },
      { path: 'cluster/notes.txt', bytes: te('hello') },
      { path: 'cluster/bad.csv', bytes: te('a,b\n1,2\n') },
    ]);
    expect(refused.map((r) => r.path)).toEqual(['cluster/notes.txt', 'cluster/bad.csv']);
    expect(refused[1].reason).toContain('no step column');
    expect(runs[0]).toMatchObject({
      label: 'drmas_math',
      agents: ['solver'],
      records: 2,
      skipped: 1,
      truncatedBytes: 30,
      inferred: [wg],
    });
    expect(runs[0].rows).toEqual([
      { step: 1, time_s: 0, 'agent/solver/grad_norm': Math.fround(0.3), 'reward/mean': Math.fround(0.7) },
      { step: 3, time_s: 2, 'eval/avg@16': 0.1, 'other/timing_s/gen': 12.5 },
    ]);
  });

  it('refuses a run of which nothing could be read (an empty or wholly damaged event file) instead of keeping an empty run', () => {
    const ok = writeEventFile([{ step: 0, 'reward/mean': 0.5 }], 1e9);
    const damaged = record(event(1, 1001, [simple('critic/score/mean', 0.7)]));
    damaged[20] ^= 0x55;
    const { runs, refused } = importFiles([
      { path: 'logs/good/events.out.tfevents.1.h', bytes: ok },
      { path: 'junk.tfevents/junk.tfevents', bytes: te('not a record') },
      { path: 'logs/bad/events.out.tfevents.1.h', bytes: bytesOf(damaged) },
      { path: 'logs/empty/events.out.tfevents.1.h', bytes: new Uint8Array(0) },
    ]);
    expect(runs.map((r) => r.label)).toEqual(['good']);
    expect(refused).toEqual([
      {
        path: 'junk.tfevents/junk.tfevents',
        reason: 'no scalar values read (0 records, 1 damaged records skipped)',
      },
      {
        path: 'logs/bad/events.out.tfevents.1.h',
        reason: 'no scalar values read (0 records, 1 damaged records skipped)',
      },
      {
        path: 'logs/empty/events.out.tfevents.1.h',
        reason: 'no scalar values read (0 records, 0 damaged records skipped)',
      },
    ]);
  });

  it('merges the event files of one folder by step and reads a W&B CSV as its own run', () => {
    const a = writeEventFile([{ step: 0, 'reward/mean': 0.5 }], 1e9);
    const b = writeEventFile([{ step: 1, 'reward/mean': 0.75 }], 1e9 + 60);
    const { runs } = importFiles([
      { path: 'x/run1/events.out.tfevents.1.h', bytes: a },
      { path: 'x/run1/events.out.tfevents.2.h', bytes: b },
      { path: 'x/wandb-run.csv', bytes: te('_step,critic/score/mean\n0,0.25\n') },
    ]);
    expect(runs.map((r) => [r.label, r.rows.map((row) => row['reward/mean'])])).toEqual([
      ['run1', [0.5, 0.75]],
      ['wandb-run', [0.25]],
    ]);
  });

  it('names a run by its folder under the one picked, so seed folders of two groups stay apart', () => {
    const ev = (reward: number) => writeEventFile([{ step: 0, 'reward/mean': reward }], 1e9);
    const { runs } = importFiles([
      { path: 'logs/grpo/seed1/events.out.tfevents.1.h', bytes: ev(0.1) },
      { path: 'logs/grpo/seed2/events.out.tfevents.1.h', bytes: ev(0.2) },
      { path: 'logs/drmas/seed1/events.out.tfevents.1.h', bytes: ev(0.3) },
      { path: 'logs/events.out.tfevents.1.h', bytes: ev(0.4) },
    ]);
    expect(runs.map((r) => [r.label, r.group, r.seed, r.rows[0]['reward/mean']])).toEqual([
      ['grpo #1', 'grpo', 1, Math.fround(0.1)],
      ['grpo #2', 'grpo', 2, Math.fround(0.2)],
      ['drmas #1', 'drmas', 1, Math.fround(0.3)],
      ['logs', 'logs', 0, Math.fround(0.4)],
    ]);
  });
});

describe('seeds in run names', () => {
  it('reads the seed trainers put at the end of a run name, and nothing else', () => {
    const cases: [string, ReturnType<typeof seedOf>][] = [
      ['GRPO #2', { group: 'GRPO', seed: 2 }],
      ['Dr. MAS #10', { group: 'Dr. MAS', seed: 10 }],
      ['grpo_seed3', { group: 'grpo', seed: 3 }],
      ['grpo-seed-4', { group: 'grpo', seed: 4 }],
      ['grpo/seed5', { group: 'grpo', seed: 5 }],
      ['drmas_math_s6', { group: 'drmas_math', seed: 6 }],
      ['Seed=7', null],
      ['seed1', null],
      ['run1', null],
      ['bs128', null],
      ['qwen3-4b', null],
      ['lr_1e-6', null],
    ];
    for (const [name, want] of cases) expect(seedOf(name), name).toEqual(want);
  });
});
