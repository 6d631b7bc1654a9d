/**
 * The seam between the orchestrator and whoever computes environment transitions and rewards.
 * `EnvRunner` takes one batch per tick and answers per item, with an error outcome for an item
 * whose environment failed, hung or was killed; the orchestrator then marks that trajectory
 * invalid with reward 0 and goes on. This file holds the in-process runner; src/workers swaps in
 * a Web Worker pool that calls `applyStep` inside each worker. Pure: no tfjs, no DOM.
 */
import type { Role } from '../core/vocab';
import { getTask, type TaskRef } from './registry';
import type { BaseState } from './types';

/** One transition to compute. Everything is plain data, so it can be posted to a worker. */
export interface EnvStepInput {
  /** The trajectory's id in its rollout batch (for time-outs, logs and error reports). */
  traj: number;
  state: BaseState;
  agent: Role;
  response: string;
}

export type EnvStepResult =
  | { ok: true; state: BaseState; valid: boolean }
  /** The environment threw, hung past its time limit or crashed: the trajectory is invalid. */
  | { ok: false; error: string };

export interface EnvRunner {
  /**
   * Applies each input's transition and answers in input order. Must not reject for a failure
   * of one item (answer `{ ok: false }` for it instead); rejecting means the runner itself broke.
   */
  step(task: TaskRef, inputs: readonly EnvStepInput[]): Promise<EnvStepResult[]>;
  /** Releases workers or other resources; later calls to `step` are an error. */
  dispose(): void;
}

/** One transition, with any exception turned into an error outcome (what a worker runs). */
export function applyStep(task: TaskRef, input: EnvStepInput): EnvStepResult {
  try {
    const { state, valid } = getTask(task).step(input.state, input.agent, input.response);
    return { ok: true, state, valid };
  } catch (e) {
    return { ok: false, error: `traj ${input.traj}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * Runs transitions on the calling thread. It cannot pre-empt a hung environment (JavaScript has
 * no way to interrupt synchronous code); only a worker pool can enforce a time limit.
 */
export class InProcessEnvRunner implements EnvRunner {
  private disposed = false;

  async step(task: TaskRef, inputs: readonly EnvStepInput[]): Promise<EnvStepResult[]> {
    if (this.disposed) throw new Error('InProcessEnvRunner: step() after dispose().');
    return inputs.map((input) => applyStep(task, input));
  }

  dispose(): void {
    this.disposed = true;
  }
}
