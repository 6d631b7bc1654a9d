/**
 * The rollout samplings, one registry keyed by the names of `rollout.sampling` (core/config): how
 * the G rollouts of one instance are drawn. Each entry's doc labels its option in the UI. Pure.
 */
import type { SamplingName } from '../core/config-names';
import { lookup } from '../core/registry';
import { rollout, type RolloutOptions, type RolloutResult } from './orchestrator';
import { mctsRollout } from './mcts';
import { treeRollout } from './tree';

interface SamplingSpec {
  doc: string;
  rollout: <X extends object>(opts: RolloutOptions<X>) => Promise<RolloutResult<X>>;
}

export const SAMPLINGS = {
  parallel: {
    doc:
      'G independent rollouts per instance, each from its own sampled history (Dr. MAS, verl). ' +
      "Rows of one (instance, turn, agent) come from different states from the agent's second call on.",
    rollout,
  },
  tree: {
    doc:
      'AT-GRPO tree (PettingLLMs greedy mode): at every turn the acting agent samples G candidates from one ' +
      "shared state; each is scored by the task's turnReward (else a greedy completion's outcome), and the " +
      'best state is copied into all G branches. Each (instance, turn, agent) set holds exactly G siblings.',
    rollout: treeRollout,
  },
  'tree-random': {
    doc:
      'Ablation of tree: the same G siblings per turn from one shared state, each scored the same way, but a ' +
      'uniformly drawn sibling (not the best) is copied forward, so the path follows the policy as a parallel ' +
      'trajectory does. Separates exact sibling sets from training only on best-of-G paths.',
    rollout: (opts) => treeRollout(opts, { keep: 'random', score: 'turn' }),
  },
  'tree-outcome': {
    doc:
      'Ablation of tree: the best sibling is copied forward as in tree, but every candidate is scored by the outcome ' +
      'of a greedy completion from it, even where the task has a per-turn reward, so rows carry outcomes as parallel rows do.',
    rollout: (opts) => treeRollout(opts, { keep: 'best', score: 'outcome' }),
  },
  mcts: {
    doc:
      "MARS2's tree search (AB-MCTS-A): one tree of rollout.nodes answers per instance, the group. Each step Thompson " +
      'sampling on Beta posteriors of node scores either widens (a new child by a chosen agent) or goes deeper; a root ' +
      "child is a fresh answer, a deeper one refines its parent from the parent's feedback. coder-tester and math only.",
    rollout: mctsRollout,
  },
} as const satisfies Record<SamplingName, SamplingSpec>;

/** The sampling called `name`; an unknown name throws with the valid list. */
export const getSampling = (name: string): SamplingSpec => lookup(SAMPLINGS, 'rollout sampling', name);
