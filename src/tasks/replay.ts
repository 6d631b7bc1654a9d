/**
 * Coalition replays for per-agent credit (src/rl/credit.ts): a finished trajectory's workflow run
 * again from its instance, with some agents' outputs replaced by their neutral default
 * (`Task.neutral`). Pure environment work: no policy is called, so a replay costs only
 * transitions, which go through the same `EnvRunner` as the rollout's (the env worker pool in
 * the CLI and the page), batched one tick at a time over every replay of the step.
 *
 * Which output a replayed call gets (the choices SHARP, arXiv 2602.08335, leaves open):
 * - An agent outside the coalition gives its neutral default at every call it is asked for.
 * - An agent inside it gives its n-th recorded output (its row with `turn` n) at its n-th call of
 *   the replay, where the workflow still reaches that call. What "reaches" means is
 *   `reward.creditReplay`:
 *   - `turn` (default): the call is reached whenever the agent gets its n-th call, whatever the
 *     prompt now says. The other agents' actions are held fixed: Wolpert & Tumer's difference
 *     reward G(z) − G(z₋ₖ + cₖ) with cₖ the neutral default, the counterfactual COMA's baseline
 *     also takes. It asks how the outcome changes when only this agent's contribution is removed,
 *     not how the others would have reacted to its absence.
 *   - `prompt`: the call is reached only if the agent sees exactly the prompt it saw then. A
 *     recorded output answers one prompt; where removing an agent changed what a later agent
 *     sees, that agent's recorded answer no longer applies, and no pure-environment replay can say
 *     what it would have answered instead. Removing an agent then removes everything downstream
 *     of it that it changed ("knock-out" credit).
 * - A call not reached (no n-th recorded output, or under `prompt` a different prompt) gets the
 *   agent's neutral default, and is counted (`credit/unrecorded_calls`): re-sampling the agent
 *   with the call's seed would need its policy, which a pure environment replay does not have.
 * - Seeds: transitions are deterministic functions of (state, response), so the replay draws no
 *   randomness and the full coalition reproduces the trajectory exactly, under either rule.
 * Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import type { EnvStepInput, EnvStepResult } from './env';
import type { AnyTask, BaseState, Outcome } from './types';

/** When a kept agent's recorded output applies to a replayed call (see above). */
type ReplayMatch = 'turn' | 'prompt';

/** One recorded call: what the agent saw and what it answered. */
export interface RecordedCall {
  prompt: string;
  response: string;
}

/** One replay: an instance, the recorded outputs, and the agents that keep theirs. */
export interface ReplayRequest {
  instance: unknown;
  /** Each agent's recorded calls in the order it made them (its turn 0, 1, …). */
  recorded: Partial<Record<Role, readonly RecordedCall[]>>;
  /** Agents that give their recorded outputs; every other agent gives its neutral default. */
  keep: ReadonlySet<Role>;
}

interface ReplayResult {
  /** The replay's outcome; null when its environment failed (`error` says why). */
  outcome: Outcome | null;
  error?: string;
  /** Calls of kept agents that the recording did not reach (see above) and took the neutral default. */
  unrecorded: number;
  /** Transitions computed. */
  steps: number;
}

/** Computes a batch of transitions in input order (an EnvRunner's `step` bound to the task). */
export type EnvStepper = (inputs: EnvStepInput[]) => Promise<EnvStepResult[]>;

/** The neutral default of `agent` in `state`, or an error naming the task that has none. */
function neutralOf(task: AnyTask, state: BaseState, agent: Role): string {
  if (!task.neutral)
    throw new Error(
      `task '${task.name}' defines no neutral default output (Task.neutral), which per-agent credit needs`,
    );
  return task.neutral(state, agent);
}

/** Runs every replay to its end, all advancing together, one env batch per tick. */
export async function replay(
  task: AnyTask,
  step: EnvStepper,
  requests: readonly ReplayRequest[],
  match: ReplayMatch = 'turn',
): Promise<ReplayResult[]> {
  const live = requests.map((r) => ({
    state: task.init(r.instance),
    turns: {} as Partial<Record<Role, number>>,
    result: { outcome: null, unrecorded: 0, steps: 0 } as ReplayResult,
  }));
  for (;;) {
    const inputs: EnvStepInput[] = [];
    const owners: number[] = [];
    live.forEach((l, i) => {
      if (l.state.done || l.result.error !== undefined) return;
      if (l.result.steps >= task.maxCalls) {
        l.result.error = `replay exceeded ${task.maxCalls} calls`;
        return;
      }
      const call = task.next(l.state);
      if (!call) return;
      const n = l.turns[call.agent] ?? 0;
      l.turns[call.agent] = n + 1;
      const kept = requests[i].keep.has(call.agent);
      const rec = kept ? requests[i].recorded[call.agent]?.[n] : undefined;
      const reached = rec !== undefined && (match === 'turn' || rec.prompt === call.prompt);
      if (kept && !reached) l.result.unrecorded++;
      inputs.push({
        traj: i,
        state: l.state,
        agent: call.agent,
        response: reached ? rec.response : neutralOf(task, l.state, call.agent),
      });
      owners.push(i);
    });
    if (inputs.length === 0) break;
    const results = await step(inputs);
    owners.forEach((i, j) => {
      const l = live[i];
      const r = results[j];
      l.result.steps++;
      if (!r || !r.ok) l.result.error = r ? r.error : 'environment returned no result';
      else l.state = r.state;
    });
  }
  return live.map((l) => {
    if (l.result.error === undefined && !l.state.done) l.result.error = 'replay did not finish';
    return { ...l.result, outcome: l.result.error === undefined ? l.state.outcome : null };
  });
}
