/**
 * Storage full, in words (src/ui/session/storage-full.ts) and in the test seam that fakes it
 * (src/storage/storage-fault.ts); a session another tab trains keeps Train off, saying why.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../../src/core/config';
import { isFull } from '../../../src/storage/idb';
import { faultAt, parseSaveEvery, parseStorageFault, refuseIfFull } from '../../../src/storage/storage-fault';
import type { RunId } from '../../../src/workers/protocol';
import type { RunView, BackendStatus } from '../../../src/ui/session/store';
import { trainBlockers } from '../../../src/ui/train-blockers';
import { unsavedText } from '../../../src/ui/session/storage-full';

const run = (id: string, label: string, savedStep?: number, state = 'running') =>
  ({ id, label, savedStep, state }) as RunView;
const b = 'b' as RunId;

describe('storage full', () => {
  it('reads the seam from a query string, and refuses exactly its steps as a full disk does', () => {
    expect(parseStorageFault('?storage-fault=quota:5-15')).toEqual({ kind: 'quota', from: 5, until: 15 });
    expect(parseStorageFault('?a=1&storage-fault=quota:7')).toEqual({
      kind: 'quota',
      from: 7,
      until: Infinity,
    });
    expect(parseStorageFault('?storage-fault=quota:x')).toBeNull();
    expect(parseStorageFault('')).toBeNull();
    const fault = { kind: 'quota', from: 5, until: 15 } as const;
    expect(() => refuseIfFull(fault, 4)).not.toThrow();
    expect(() => refuseIfFull(fault, 15)).not.toThrow();
    let thrown: unknown;
    try {
      refuseIfFull(fault, 5);
    } catch (e) {
      thrown = e;
    }
    expect(isFull(thrown)).toBe(true);
    expect(isFull(new Error('broken'))).toBe(false);
    expect(() => refuseIfFull(null, 5)).not.toThrow();
    // The other plan closes the run states' database from a step on: it refuses nothing for room.
    const closed = parseStorageFault('?storage-fault=closed:5');
    expect(closed).toEqual({ kind: 'closed', from: 5, until: Infinity });
    expect(() => refuseIfFull(closed, 5)).not.toThrow();
    expect([4, 5, 500].map((step) => faultAt(closed, 'closed', step))).toEqual([false, true, true]);
  });

  it("reads the benchmarks' save cadence, and nothing else as one", () => {
    expect(parseSaveEvery('?save-every=0')).toBe(0);
    expect(parseSaveEvery('?storage-fault=quota:7&save-every=10')).toBe(10);
    expect(parseSaveEvery('?save-every=-1')).toBeNull();
    expect(parseSaveEvery('?save-every=')).toBeNull();
    expect(parseSaveEvery('')).toBeNull();
  });

  it('says which steps and which runs’ states are not being saved', () => {
    const runs = [run('a', 'GRPO', 0), run('b', 'Dr. MAS', 10)];
    expect(unsavedText({ unsaved: { states: {} }, runs })).toBeNull();
    expect(unsavedText({ unsaved: { frames: 5, states: {} }, runs })).toBe(
      'Storage is full: the steps from 5 on are not being saved. Training goes on in this tab and what was saved before stays; saving picks up again once there is room.',
    );
    expect(unsavedText({ unsaved: { frames: 5, states: { [b]: 20 } }, runs })).toContain(
      'the steps from 5 on and the run states of Dr. MAS (a reload would go back to the state after 10 steps) are not being saved',
    );
    // Once no run trains, the line no longer says training goes on: the rest is this tab's alone.
    const done = [run('a', 'GRPO', 0, 'done'), run('b', 'Dr. MAS', 10, 'paused')];
    expect(unsavedText({ unsaved: { frames: 5, states: {} }, runs: done })).toBe(
      'Storage is full: the steps from 5 on are not saved. No run is training; what was saved before stays, and the rest is held in this tab only until it is closed: download it to keep it.',
    );
  });

  it('keeps Train off while another tab trains the session, and says when it can be taken over', () => {
    const s = { fieldErrors: {}, backend: { state: 'ready' } as BackendStatus, config: DEFAULT_EXPERIMENT };
    expect(trainBlockers(s)).toEqual([]);
    expect(trainBlockers({ ...s, readOnly: { id: 's1', free: false } })).toEqual([
      'Another tab is training this session: it is shown here read-only',
    ]);
    expect(trainBlockers({ ...s, readOnly: { id: 's1', free: true } })).toEqual([
      'The tab that trained this session has stopped: Take over to train it here',
    ]);
  });
});
