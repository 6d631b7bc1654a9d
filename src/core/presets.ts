/**
 * Named experiments, one click each in the UI. Each is the default experiment with a few fields
 * changed, so its URL stays short. Pure: no tfjs, no DOM.
 */
import { DEFAULT_EXPERIMENT, ExperimentSchema } from './config';
import type { Experiment } from './config';

export interface Preset {
  id: string;
  title: string;
  /** What the preset shows, in one or two sentences. */
  blurb: string;
  config: Experiment;
}

const make = (patch: Record<string, unknown>): Experiment =>
  ExperimentSchema.parse({ ...structuredClone(DEFAULT_EXPERIMENT), ...patch });

/** The issue-81 ablation's three runs: one baseline per trajectory, per row, per agent. */
const THREE_WAY = [
  { label: 'GRPO', estimator: 'grpo' },
  { label: 'Step-level', estimator: 'global-step' },
  { label: 'Dr. MAS', estimator: 'drmas' },
];

/** Shared vs counterfactual credit (reward.credit), each under GRPO and Dr. MAS. */
const CREDIT_X_NORM = [
  { label: 'GRPO', estimator: 'grpo' },
  { label: 'Dr. MAS', estimator: 'drmas' },
  { label: 'GRPO + credit', estimator: 'grpo', reward: { credit: 'counterfactual' } },
  { label: 'Dr. MAS + credit', estimator: 'drmas', reward: { credit: 'counterfactual' } },
];

export const PRESETS: readonly Preset[] = [
  {
    id: 'drmas-vs-grpo',
    title: 'Dr. MAS vs GRPO (search)',
    blurb:
      'Verifier routes to Search or Answer. Where Search rows gather in failures and Answer rows in ' +
      'successes, one global baseline mis-scales both; on the shipped base models they barely do: 61 % of ' +
      'every agent’s rows sit in failing trajectories, amplification 0.87–0.88 for every agent, GRPO–Dr. MAS ' +
      'advantage correlation 0.98–1.00 (npm run amplification).',
    config: DEFAULT_EXPERIMENT,
  },
  {
    id: 'issue81',
    title: 'Step-level vs agent-wise (the issue-81 ablation)',
    blurb:
      'Separates the two changes Dr. MAS makes: counting steps instead of trajectories (global-step) ' +
      'and splitting statistics per agent (drmas).' +
      ' Base rollouts: amplification 0.87–0.88, amplification_rows 0.97–0.98 for every agent.',
    config: make({ runs: THREE_WAY }),
  },
  {
    id: 'sync',
    title: 'Synchronous control (identical by theory)',
    blurb:
      'Every agent acts once on one shared reward: the per-agent sets equal the trajectory sets, so ' +
      'Dr. MAS and GRPO must produce the same advantages, step for step.' +
      ' Base rollouts: amplification (G − 1)/G = 0.88 for both agents, correlation 1.',
    config: make({ task: 'sync' }),
  },
  {
    id: 'math-loop',
    title: 'Solver ⇄ verifier loop (math, retries)',
    blurb:
      'Dr. MAS’s math workflow: the solver answers, the verifier approves or rejects (back to the solver, at ' +
      'most 2 attempts; −0.1 per invalid row). The shipped verifier rejects some first answers, right ones ' +
      'and wrong ones, so solver rows pile up in retried, mostly failing trajectories.' +
      ' Base rollouts: 1.56 solver calls per trajectory, 56 % of first answers rejected, solver amplification 2.45 at batch success 0.18, correlation 0.83. Trained, all estimators soon teach the verifier to approve everything.',
    config: make({ task: 'math', runs: THREE_WAY }),
  },
  {
    id: 'search-roles',
    title: 'Per-agent rewards on different scales (search)',
    blurb:
      'The search workflow with AT-GRPO’s role rewards, on different scales: answer 2·EM; search +1 if it ' +
      'retrieved every needed fact, −1 if a query was malformed, plus EM; verifier EM. GRPO normalizes each ' +
      'trajectory’s mean row reward; Dr. MAS normalizes each agent’s own rewards.' +
      ' Base rollouts: amplification answer 2.18, search 1.88, verifier 0.85 at batch success 0.39; correlation 0.97.',
    config: make({ task: 'search-roles', runs: THREE_WAY }),
  },
  {
    id: 'search-routing',
    title: 'Search routing: cautious and eager routers (search, 3-step cap)',
    blurb:
      'The search workflow capped at 3 env steps (−0.01 per invalid row; "no" at the last step fails), with a ' +
      'router that errs: a cautious "no" when every fact is in times out on a 2-hop question, an eager "yes" ' +
      'after a search that missed sends the answer agent to guess. Timeouts hold search rows and no answer ' +
      'row, so search rows gather in failures and answer rows in successes.' +
      ' Base rollouts: batch success 0.27; timeouts 25 %, an eager "yes" in 7 % of trajectories; rows in ' +
      'failures search 0.76, answer 0.65 (μ_S 0.24 < μ 0.27 < μ_A 0.35); amplification answer 1.09, search and ' +
      'verifier 0.86; GRPO–Dr. MAS correlation 0.94–0.98. Trained, every estimator teaches the router to stop ' +
      'timing out within 10–20 steps.',
    config: make({ task: 'search-routing', runs: THREE_WAY }),
  },
  {
    id: 'heterogeneous',
    title: 'Heterogeneous model sizes',
    blurb:
      'A nano verifier, a small searcher and a small answerer, each with its own optimizer, all from shipped ' +
      'checkpoints (the small ones warm-started to base success 0.30). A base-size (1.6M) checkpoint would not ' +
      'fit the 8 MB budget per task, so no agent is base here. Base rollouts: batch success 0.35, amplification ' +
      '0.87–0.88 for every agent, GRPO–Dr. MAS correlation 0.95–0.98.',
    config: make({ models: { perAgent: { verifier: 'nano', search: 'small', answer: 'small' } } }),
  },
  {
    id: 'coder-tester',
    title: 'Rewards on different scales (coder/tester)',
    blurb:
      'The coder earns up to 2, the tester up to 2 on another support: a global baseline sits between ' +
      'them and biases both agents’ advantages.' +
      ' Base rollouts: amplification coder 1.58, tester 0.66.',
    config: make({ task: 'coder-tester' }),
  },
  {
    id: 'credit',
    title: 'Credit × normalization (search)',
    blurb:
      'Shared outcome vs SHARP-style counterfactual credit (each row + λ × (outcome − outcome with its agent ' +
      'replaced by a no-op), λ = 1), each under GRPO and Dr. MAS. Credit gives each agent its own reward ' +
      'distribution, which agent-wise normalization is built for. Base rollouts: with credit the answer ' +
      'agent’s mean row reward doubles (0.39 → 0.78) and its amplification goes 0.87 → 2.65, while verifier and ' +
      'search earn credit 0 (with the others’ outputs held fixed only the answer decides the outcome) and drop to ' +
      '0.62; GRPO–Dr. MAS correlation stays 0.98–1.00 (npm run amplification -- --presets credit --credit counterfactual).',
    config: make({ runs: CREDIT_X_NORM }),
  },
  {
    id: 'plan',
    title: 'Long-horizon planning (plan): GRPO, Dr. MAS, AT-GRPO',
    blurb:
      'PettingLLMs’ Plan-Path on 5×5/6×6 grids with walls: the planner proposes up to 3 moves, the executor ' +
      'issues them, at most 5 turns, shaped reward. Trajectories end at different turns, so under parallel ' +
      'sampling AT-GRPO’s (instance, agent, turn) sets thin out at late turns and some hold one row (the ' +
      'failure tree sampling removes).' +
      ' Base rollouts: batch success 0.50; the agents alternate on one reward, so as on sync amplification is ' +
      '0.87 for both and GRPO and Dr. MAS agree (0.99); 1.9 % of AT-GRPO’s sets are singletons.',
    config: make({
      task: 'plan',
      runs: [
        { label: 'GRPO', estimator: 'grpo' },
        { label: 'Dr. MAS', estimator: 'drmas' },
        { label: 'AT-GRPO', estimator: 'atgrpo' },
      ],
    }),
  },
  {
    id: 'atgrpo-tree',
    title: 'AT-GRPO: tree vs parallel (plan)',
    blurb:
      'The same AT-GRPO estimator on plan, sampled two ways: G parallel rollouts, whose (instance, agent, turn) ' +
      'sets mix states from turn 1 on and leave singletons, or a tree (rollout.sampling=tree): at every turn G ' +
      'siblings from one shared state, scored by plan’s turn reward, the best copied forward, so every set holds ' +
      'G siblings of one state. Training success under tree is that of the chosen path (a search); compare eval:' +
      ' over 200 steps × 3 seeds the tree’s held-out avg@8 stayed below parallel’s on every seed (0.35 vs 0.57 at step 200; README),' +
      ' and a tree that copies a random sibling forward (tree-random) does as badly; without the std normalization' +
      ' (advantage.normalizeStd=false) the tree is level with parallel: dividing near-tie sibling sets by their small σ is why.',
    config: make({
      task: 'plan',
      runs: [
        { label: 'AT-GRPO parallel', estimator: 'atgrpo' },
        { label: 'AT-GRPO tree', estimator: 'atgrpo', rollout: { sampling: 'tree' } },
      ],
    }),
  },
];

export function presetById(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}
