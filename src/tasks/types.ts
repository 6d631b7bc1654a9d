/**
 * The Task contract every multi-agent task implements, plus helpers shared by the tasks.
 * A task's trajectory state is plain data (JSON-safe) so environments can run in Web Workers.
 * Prompts and responses use only the lab vocabulary (src/core/vocab.ts). Follows the Dr. MAS
 * orchestras (docs/tasks.md#tasks-and-settings) shrunk for character-level policies. Pure: no tfjs, no DOM.
 */
import { CHARSET, roleToken, type Role } from '../core/vocab';
import type { Prng } from '../core/prng';

export type Split = 'train' | 'val';

/** Share of demonstrator mistakes that are malformed outputs rather than wrong ones (all tasks). */
export const MALFORMED_SHARE = 0.25;

/** One agent of a task. */
export interface AgentSpec {
  role: Role;
  /** A few characters placed before the role token; the role token itself ends every prompt. */
  rolePrompt: string;
  /** Longest response the sampler should produce for this agent (characters, EOS excluded). */
  maxResponse: number;
}

/** How a finished trajectory scored. */
export interface Outcome {
  success: boolean;
  /** Trajectory reward before per-row penalties (what `reward/mean` averages). */
  reward: number;
  /** Per-agent rewards where agents are scored differently (coder-tester); else `reward` for all. */
  agentRewards?: Partial<Record<Role, number>>;
  /** Per-agent outcomes where a task can tell whether each agent did its own part (its `ownSuccess`). */
  agentSuccess?: Partial<Record<Role, boolean>>;
  /**
   * Per call, in order, the reward its row starts from before penalties, where a task rewards each
   * call on its own (a workflow's mix of own and team rewards); else a row starts from its agent's.
   */
  callRewards?: readonly number[];
}

/** Fields every trajectory state carries; tasks extend it with their own plain data. */
export interface BaseState {
  /** Agent calls so far, in order, with their validity. */
  log: { agent: Role; valid: boolean }[];
  done: boolean;
  /** Set exactly when `done`. */
  outcome: Outcome | null;
}

/** The workflow's answer to "who acts next": one agent with its full prompt. */
export interface NextCall {
  agent: Role;
  prompt: string;
}

/** Result of one environment transition. */
export interface StepResult<S> {
  state: S;
  /** Whether the agent's output parsed; invalid rows are penalized by `invalidPenalty`. */
  valid: boolean;
}

/**
 * A multi-agent task. Methods (not function-typed fields) on purpose: method parameters are
 * bivariant, so every concrete `Task<I, S>` fits the registry's `AnyTask`.
 */
export interface Task<I, S extends BaseState> {
  readonly name: string;
  /** One line for the UI and docs. */
  readonly doc: string;
  /**
   * The task this one varies (its rewards, say): it shares that task's instances, train/val split
   * and shipped base models (except a model it ships under models/<variant>/), so the two run on
   * the same task stream from the same weights.
   */
  readonly variantOf?: string;
  readonly agents: readonly AgentSpec[];
  /** Subtracted from the reward of each row whose output was invalid. */
  readonly invalidPenalty: number;
  /**
   * Its outcomes carry `agentSuccess` for every agent that acted, so each agent's own accuracy
   * (`agent/<name>/own_success`) is measured beside the team's success.
   */
  readonly ownSuccess?: boolean;
  /** Upper bound on agent calls per trajectory (the orchestrator treats more as an env error). */
  readonly maxCalls: number;

  /** Draws one instance (either split; `splitOf` on its key decides which). */
  generate(rng: Prng): I;
  /**
   * A task over a finite dataset (a workflow's rows) gives each split's instances here, and
   * sampling draws from them instead of generating and rejecting (a split may hold few rows).
   */
  readonly pool?: { readonly train: readonly I[]; readonly val: readonly I[] };
  /** Identity of an instance: equal keys = same question. Drives the train/val split. */
  key(instance: I): string;
  /** Initial trajectory state for an instance. */
  init(instance: I): S;
  /** Workflow: the next agent and its prompt, or null when the trajectory is done. */
  next(state: S): NextCall | null;
  /** Parser/validator for one agent's raw output: null if valid, else what is wrong. */
  validate(agent: Role, response: string): string | null;
  /** Environment transition after `agent` answered `response`; pure (returns a new state). */
  step(state: S, agent: Role, response: string): StepResult<S>;
  /**
   * Scripted policy: the response a competent agent gives in `state`, except that with
   * probability `errorRate` it makes a mistake (wrong or malformed). Privileged: reads the state.
   */
  demonstrate(state: S, agent: Role, rng: Prng, errorRate: number): string;
  /**
   * The acting agent's reward for its last transition `before` → `after` (AT-GRPO's per-turn
   * reward r_t, docs/tree-sampling.md#tree-sampling-at-grpo). Tree sampling (`rollout.sampling: 'tree'`) picks the best of
   * the sibling candidates at each turn by it, and each sibling row carries it as its reward. It is
   * the row's whole reward: include `invalidPenalty` where the output was invalid (the rollout adds
   * nothing). A task without it is scored by the outcome of a seeded greedy completion from each
   * candidate instead (src/tasks/tree.ts).
   */
  turnReward?(before: S, agent: Role, after: S): number;
  /**
   * The neutral default output of `agent` in `state`: what a no-op agent gives, so that
   * replaying a trajectory with it measures what the agent contributed (per-agent credit,
   * src/tasks/replay.ts). Each task says why its choice is neutral. Optional: a task without it
   * cannot run `reward.credit` other than `shared`.
   */
  neutral?(state: S, agent: Role): string;
}

/** A task with its types erased, as the registry and orchestrator hold it. */
export type AnyTask = Task<unknown, BaseState>;

// ---- helpers shared by the task files ----

const CHARSET_SET = new Set(CHARSET);

/** True if every character of `s` is in CHARSET (no specials, no role tokens). */
export function inCharset(s: string): boolean {
  for (const ch of s) if (!CHARSET_SET.has(ch)) return false;
  return true;
}

/**
 * Raw agent output made safe to show other agents: characters outside CHARSET dropped and the
 * length capped, so garbage cannot forge ENV markers or blow the context budget.
 */
export function sanitize(s: string, maxLen: number): string {
  let out = '';
  for (const ch of s) if (CHARSET_SET.has(ch)) out += ch;
  return out.slice(0, maxLen);
}

/** `context + rolePrompt + roleToken`: the prompt layout every task uses. */
export function promptFor(context: string, agent: AgentSpec): string {
  return context + agent.rolePrompt + roleToken(agent.role);
}

/** The spec of `role` in `agents`, or an error naming the task's agents. */
export function agentSpec(agents: readonly AgentSpec[], role: Role): AgentSpec {
  const spec = agents.find((a) => a.role === role);
  if (!spec) throw new Error(`agent '${role}' is not one of ${agents.map((a) => a.role).join(', ')}.`);
  return spec;
}

/** Throws unless `agent` is the agent the workflow expects now (a bug in the caller). */
export function expectTurn(expected: NextCall | null, agent: Role): void {
  if (!expected) throw new Error(`trajectory is done; '${agent}' cannot act.`);
  if (expected.agent !== agent) throw new Error(`expected '${expected.agent}' to act, got '${agent}'.`);
}

/** A finished state: marks done and records the outcome. */
export function finish<S extends BaseState>(state: S, outcome: Outcome): S {
  return { ...state, done: true, outcome };
}

/** Appends one call to the log (returns a new array; states are never mutated). */
export function logged(state: BaseState, agent: Role, valid: boolean): BaseState['log'] {
  return [...state.log, { agent, valid }];
}
