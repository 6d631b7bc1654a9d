/**
 * Which rows train which model at a step (train.buffer; docs/estimators.md#per-agent-buffers).
 * Under `step` every agent updates on its rows of this step. Under `per-agent` each agent keeps its
 * own buffer of rows, each with the advantage it got at the step it was sampled: rows accumulate
 * across steps, and an agent updates only once its buffer holds train.bufferSize rows, then on all
 * of them, emptying it (MARS2's and CoMLRL's asynchronous buffers). An agent not ready skips the
 * step; on a model shared by several agents only the ready agents' terms train it.
 *
 * The buffers are plain data (rows are JSON: token ids, log-probs as float32 values, the advantage
 * as a float64), so the run state saves them and a resumed run repeats the uninterrupted one.
 */
import { agentKey, FILTER_METRICS } from '../core/metrics';
import type { FilteredGroups } from '../rl/group-filter';
import type { Row } from '../tasks/orchestrator';
import type { SampledTokens } from './policy';

/** A row waiting in an agent's buffer, with the advantage it was given when sampled. */
export interface BufferedRow {
  row: Row<SampledTokens>;
  advantage: number;
}

/** What the update of one step trains on: `rows` with `advantages`, and per agent whether it updates. */
export interface UpdateBatch {
  rows: Row<SampledTokens>[];
  advantages: Float64Array;
  /** Indices into `rows` of the rows that train, in order. */
  idx: number[];
  /** Per agent (per-agent buffers only): 1 if it updates this step, and its buffer's fill at the decision. */
  agents: Record<string, { updated: number; buffer: number }> | null;
}

export class AgentBuffers {
  private readonly held = new Map<string, BufferedRow[]>();

  constructor(
    readonly agents: readonly string[],
    readonly size: number,
  ) {
    for (const a of agents) this.held.set(a, []);
  }

  /**
   * Adds this step's training rows (indices `idx` into `rows`) to their agents' buffers, then takes
   * every full buffer out whole: those rows train this step.
   */
  step(
    rows: readonly Row<SampledTokens>[],
    advantages: ArrayLike<number>,
    idx: readonly number[],
  ): UpdateBatch {
    for (const i of idx) this.own(rows[i].agent).push({ row: rows[i], advantage: advantages[i] });
    const taken: BufferedRow[] = [];
    const agents: Record<string, { updated: number; buffer: number }> = {};
    for (const a of this.agents) {
      const held = this.own(a);
      const ready = held.length >= this.size;
      agents[a] = { updated: ready ? 1 : 0, buffer: held.length };
      if (ready) taken.push(...held.splice(0));
    }
    return {
      rows: taken.map((b) => b.row),
      advantages: Float64Array.from(taken, (b) => b.advantage),
      idx: taken.map((_, i) => i),
      agents,
    };
  }

  /** The buffers as plain data, for the run state. */
  save(): Record<string, BufferedRow[]> {
    return Object.fromEntries([...this.held].map(([a, rows]) => [a, structuredClone(rows)]));
  }

  /** Puts saved buffers back; an agent the run does not have, or a row that is not one, is refused. */
  load(saved: Record<string, BufferedRow[]>): void {
    for (const [agent, rows] of Object.entries(saved)) {
      if (!this.held.has(agent)) throw new Error(`run state buffers name agent '${agent}', not in this run`);
      if (!Array.isArray(rows) || !rows.every(isBufferedRow))
        throw new Error(`run state buffer of agent '${agent}' holds something that is not a row`);
      this.held.set(agent, structuredClone(rows));
    }
  }

  private own(agent: string): BufferedRow[] {
    const held = this.held.get(agent);
    if (!held) throw new Error(`no buffer for agent '${agent}'`);
    return held;
  }
}

const numbers = (x: unknown): boolean => Array.isArray(x) && x.every((v) => typeof v === 'number');

function isBufferedRow(b: unknown): b is BufferedRow {
  const { row, advantage } = (b ?? {}) as Partial<BufferedRow>;
  return (
    typeof advantage === 'number' &&
    typeof row === 'object' &&
    row !== null &&
    typeof row.agent === 'string' &&
    numbers(row.promptIds) &&
    numbers(row.responseIds) &&
    numbers(row.oldLogp) &&
    row.oldLogp.length === row.responseIds.length
  );
}

/**
 * This step's update batch: under `step` (no `buffers`) the step's own rows `idx`, every agent
 * updating; under `per-agent` what `buffers` release.
 */
export function updateBatch(
  buffers: AgentBuffers | null,
  rows: Row<SampledTokens>[],
  advantages: Float64Array,
  idx: number[],
): UpdateBatch {
  if (!buffers) return { rows, advantages, idx, agents: null };
  return buffers.step(rows, advantages, idx);
}

/**
 * The metrics of which rows trained: the group filter's (when one is set) and each agent's buffer
 * (per-agent buffers only); core/metrics.ts names them.
 */
export function stepShapeMetrics(
  filtered: FilteredGroups | null,
  agents: UpdateBatch['agents'],
): Record<string, number> {
  return {
    ...(filtered
      ? { [FILTER_METRICS.keptFrac]: filtered.keptFrac, [FILTER_METRICS.emptyStep]: filtered.empty ? 1 : 0 }
      : {}),
    ...Object.fromEntries(
      Object.entries(agents ?? {}).flatMap(([a, b]): [string, number][] => [
        [agentKey(a, 'updated'), b.updated],
        [agentKey(a, 'buffer'), b.buffer],
      ]),
    ),
  };
}
