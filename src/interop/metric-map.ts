/**
 * Metric names of other trainers → the lab's keys (src/core/metrics.ts), one rule table. Dr. MAS
 * (verl fork) logs per worker group: `actor/<wg_id>/grad_norm`, `critic/<wg_id>/score/mean`, …,
 * where wg_id is `<model>_<Agent>` (one model per agent) or `<model>_<AgentA>_<AgentB>` (a shared
 * model; Dr. MAS agent_system/agent/utils.py build_wg_ids, agent ids with spaces removed).
 * Names that are already lab keys stay as they are (a lab run exported to TensorBoard reads back
 * unchanged); names no rule maps are kept under `other/<name>`. When two names map to one key, the
 * earlier rule wins and the other is kept under `other/`. Pure: no Node, no DOM.
 */
import { ESTIMATOR_CHOICES } from '../core/estimators';
import {
  AGENT_STATS,
  CLUSTER,
  FILTER_METRICS,
  GRAD_NORM,
  M,
  MCTS_KEYS,
  MODEL_STATS,
  SAME_BATCH_STATS,
  agentKey,
  evalAvgKey,
  evalPassKey,
  modelKey,
  otherKey,
} from '../core/metrics';
import type { AgentStat } from '../core/metrics';

/** wg_id → the lab names of the agents it trains. */
export type WgMap = Record<string, string[]>;

/** A Dr. MAS agent id ("Verifier Agent", "VerifierAgent") as a lab agent name ("verifier"). */
export function labAgentName(drmasAgent: string): string {
  const bare = drmasAgent.replace(/\s+/g, '').replace(/_?agent$/i, '');
  return (bare || drmasAgent)
    .replace(/[^A-Za-z0-9-]/g, '')
    .toLowerCase()
    .slice(0, 16);
}

/** The agents a wg_id names: its trailing `…Agent` parts (the model name comes first). */
export function inferAgents(wgId: string): string[] {
  const parts = wgId.split('_');
  const agents: string[] = [];
  for (let i = parts.length - 1; i > 0 && /agent$/i.test(parts[i]); i--)
    agents.unshift(labAgentName(parts[i]));
  return agents;
}

interface Context {
  agentsOf(wgId: string): string[];
}

/** A per-worker-group stat: the agent's key when the group trains one agent, else null. */
const ofAgent = (ctx: Context, wg: string, stat: AgentStat): string | null => {
  const agents = ctx.agentsOf(wg);
  return agents.length === 1 ? agentKey(agents[0], stat) : null;
};

type Rule = [RegExp, (m: RegExpExecArray, ctx: Context) => string | null];

/** In priority order: the first rule to claim a key keeps it. */
const RULES: Rule[] = [
  // verl's own name happens to match the lab's; the pattern spells verl's, the key the lab's.
  [/^actor\/([^/]+)\/grad_norm$/, (m, ctx) => ofAgent(ctx, m[1], GRAD_NORM) ?? modelKey(m[1], GRAD_NORM)],
  [/^actor\/([^/]+)\/pg_loss$/, (m, ctx) => ofAgent(ctx, m[1], 'pg_loss')],
  [/^actor\/([^/]+)\/pg_clipfrac$/, (m, ctx) => ofAgent(ctx, m[1], 'clipfrac')],
  [/^actor\/([^/]+)\/ppo_kl$/, (m, ctx) => ofAgent(ctx, m[1], 'kl')],
  [/^critic\/score\/mean$/, () => M.rewardMean],
  [/^critic\/rewards\/mean$/, () => M.rewardMean],
  [/^critic\/([^/]+)\/score\/mean$/, (m, ctx) => ofAgent(ctx, m[1], 'reward/mean')],
  [/^critic\/([^/]+)\/rewards\/mean$/, (m, ctx) => ofAgent(ctx, m[1], 'reward/mean')],
  [
    /^critic\/advantages\/(mean|min|max)$/,
    (m) => ({ mean: CLUSTER.advMean, min: CLUSTER.advMin, max: CLUSTER.advMax })[m[1] as 'mean'],
  ],
  [
    /^critic\/([^/]+)\/advantages\/(mean|min|max)$/,
    (m, ctx) => ofAgent(ctx, m[1], `adv/${m[2]}` as AgentStat),
  ],
  [/^response_length\/mean$/, () => CLUSTER.respLen],
  [/^val\/avg@(\d+)$/, (m) => evalAvgKey(Number(m[1]))],
  [/^val\/pass@(\d+)$/, (m) => evalPassKey(Number(m[1]))],
  [/^val\/(.+)$/, (m) => `eval/${m[1]}`],
  // Dr. MAS's diagnostic scripts: per-agent inflation factor (Lemma 4.2) and reward spread.
  [/^adv_diag\/([^/]+)\/inflation_factor(_mean)?$/, (m) => agentKey(labAgentName(m[1]), 'amplification')],
  [/^adv_diag\/([^/]+)\/inflation_factor_.+$/, (m) => agentKey(labAgentName(m[1]), 'amplification')],
  [/^adv_std\/([^/]+)\/(mean|std)$/, (m) => agentKey(labAgentName(m[1]), 'reward/std')],
  [/^adv_std\/([^/]+)\/.+$/, (m) => agentKey(labAgentName(m[1]), 'reward/std')],
];

const RUN_KEYS = new Set<string>(
  [M, CLUSTER, MCTS_KEYS, FILTER_METRICS].flatMap((keys) => Object.values(keys) as string[]),
);
/** `shadow/<estimator>/<stat>` under an agent: every estimator a run weighs its batch by, `custom` included. */
const SAME_BATCH_KEY = new RegExp(
  `^shadow/(${ESTIMATOR_CHOICES.join('|')})/(${SAME_BATCH_STATS.join('|')})$`,
);

/** Whether a name is already one of the lab's metric keys. */
function isLabKey(name: string): boolean {
  if (RUN_KEYS.has(name) || /^eval\/(avg|pass)@\d+$/.test(name)) return true;
  const a = /^agent\/[a-z][a-z0-9-]{0,15}\/(.+)$/.exec(name);
  if (a) return (AGENT_STATS as readonly string[]).includes(a[1]) || SAME_BATCH_KEY.test(a[1]);
  const m = /^model\/[^/]+\/(.+)$/.exec(name);
  return m !== null && (MODEL_STATS as readonly string[]).includes(m[1]);
}

interface NameMapping {
  /** source name → lab key (or `other/<name>`). */
  keys: Map<string, string>;
  /** The wg_id → agents mapping used (worker groups seen in the names only). */
  wgAgents: WgMap;
  /** The wg_ids whose agents were inferred from the id, not given. */
  inferred: string[];
}

/**
 * Maps a run's series names. `wgMap` (from `lab export drmas`'s wg_ids.json) says which agents
 * each worker group trains; without it they are inferred from the wg_ids.
 */
export function mapNames(names: Iterable<string>, wgMap?: WgMap): NameMapping {
  const wgAgents: WgMap = {};
  const inferred = new Set<string>();
  const ctx: Context = {
    agentsOf: (wg) => {
      if (!(wg in wgAgents)) {
        if (!wgMap?.[wg]) inferred.add(wg);
        wgAgents[wg] = wgMap?.[wg] ?? inferAgents(wg);
      }
      return wgAgents[wg];
    },
  };
  const claims: { name: string; key: string; rank: number }[] = [];
  const keys = new Map<string, string>();
  for (const name of names) {
    if (isLabKey(name)) {
      claims.push({ name, key: name, rank: -1 });
      continue;
    }
    let key: string | null = null;
    let rank = RULES.length;
    for (const [i, [pattern, to]] of RULES.entries()) {
      const m = pattern.exec(name);
      if (m && (key = to(m, ctx)) !== null) {
        rank = i;
        break;
      }
    }
    if (key === null) keys.set(name, otherKey(name));
    else claims.push({ name, key, rank });
  }
  claims.sort((a, b) => a.rank - b.rank || (a.name < b.name ? -1 : 1));
  const taken = new Set<string>();
  for (const c of claims) {
    keys.set(c.name, taken.has(c.key) ? otherKey(c.name) : c.key);
    taken.add(c.key);
  }
  for (const wg of Object.keys(wgAgents)) if (wgAgents[wg].length === 0) delete wgAgents[wg];
  return { keys, wgAgents, inferred: [...inferred].filter((wg) => wg in wgAgents) };
}
