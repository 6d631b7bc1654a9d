/**
 * Where a stored run goes on from. Its state is written by its worker (state-store.ts) and its
 * frames by the page (recorder.ts): no transaction spans the two. The page writes frames about
 * once a second; the worker writes a state after every step, carrying the frames the page had not
 * stored then (src/core/carried-frames.ts). So a page closed at any moment leaves each run's
 * stored frames and its newest state's carried frames covering every step before that state, and
 * the resumed run records the carried ones first. A state ahead of what both cover is still
 * possible in a session stored by an earlier build (which wrote the frames first and carried
 * none), or with its frames deleted apart from it. Resumed from it, the run would leave a gap of
 * steps that nothing can fill, and the session would look whole. So a state is used only where
 * the run's frames and its carried ones cover every step before it; a run whose state is ahead
 * starts over from step 0 (a run is deterministic: on the same backend it recomputes the same
 * frames bit for bit), and the restored note says so.
 */
import { labelOfKey, statesOf, stateKey } from '../../storage/state-store';
import type { StateInfo } from '../../storage/state-store';
import type { RunView } from './store';

/** n where steps 0…n-1 are all recorded (a run's frames carry 0-based steps): the run's whole part. */
export function recordedSteps(steps: readonly number[]): number {
  const have = new Set(steps);
  let n = 0;
  while (have.has(n)) n++;
  return n;
}

/**
 * The saved states a resume may use (their stateKeys) and the labels of the runs whose state is
 * ahead of their recorded steps (`runs[i].step`: recordedSteps of a restored run's frames).
 */
export function usableStates(
  states: readonly StateInfo[],
  runs: readonly Pick<RunView, 'runIndex' | 'label' | 'step'>[],
): { saved: string[]; ahead: string[] } {
  const recorded = new Map(runs.map((r) => [stateKey(r.runIndex, r.label), r.step]));
  const isAhead = (s: StateInfo) => {
    const have = recorded.get(s.run) ?? 0;
    return s.step > have && !(s.carriedFrom !== undefined && s.carriedFrom <= have);
  };
  return {
    saved: states.filter((s) => !isAhead(s)).map((s) => s.run),
    ahead: states.filter(isAhead).map((s) => labelOfKey(s.run)),
  };
}

/** A stored session's saved states (how many) and those its runs on screen (`runs`) may resume from. */
export async function statesToResume(
  session: string,
  runs: readonly Pick<RunView, 'runIndex' | 'label' | 'step'>[],
): Promise<{ count: number; saved: string[] }> {
  const states = await statesOf(session).catch(() => []);
  return { count: states.length, saved: usableStates(states, runs).saved };
}
