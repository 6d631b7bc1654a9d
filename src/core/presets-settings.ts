/**
 * The presets that compare GRPO and Dr. MAS (with the step-level and AT-GRPO variants between
 * them) across the lab's tasks and reward settings: where theory says they agree (sync), where
 * the mechanism map found them part (sync-own scaled), and the settings in between. Each blurb
 * quotes what the shipped base models' rollouts measure. presets.ts lists them first. Pure: no
 * tfjs, no DOM.
 */
import { DEFAULT_EXPERIMENT } from './config';
import { presetConfig as make, type Preset } from './preset';

/** The step-level ablation's three runs: one baseline per trajectory, per row, per agent. */
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

export const SETTING_PRESETS: readonly Preset[] = [
  {
    id: 'drmas-vs-grpo',
    title: 'GRPO vs Dr. MAS (search)',
    lookFor:
      'The plain comparison on the search task, not tuned toward a winner. Look for: how little the two part. Over 200 steps, Dr. MAS’s advantages measured 0.93–1.05× GRPO’s scale, correlated 0.89–1.00. Each agent’s amplification has a median of 0.87–0.88, which is (G − 1)/G = 0.875: no amplification. An invalid answer’s own penalty means not every row carries its trajectory’s reward, so What differs says amplification does not apply (docs/estimators.md#on-the-default-experiment).',
    blurb:
      'Verifier routes to Search or Answer. Where Search rows gather in failures and Answer rows in ' +
      'successes, one global baseline mis-scales both; on the shipped base models they barely do: 61 % of ' +
      'every agent’s rows sit in failing trajectories, amplification 0.87–0.88 for every agent, GRPO–Dr. MAS ' +
      'advantage correlation 0.98–1.00 (npm run amplification).',
    config: DEFAULT_EXPERIMENT,
  },
  {
    id: 'step-vs-agent',
    title: 'Step-level vs agent-wise (which half of Dr. MAS matters)',
    lookFor:
      'Which of Dr. MAS’s two changes matters: counting rows instead of trajectories, or splitting by agent. Look for: where the Step-level run sits between GRPO and Dr. MAS.',
    blurb:
      'Separates the two changes Dr. MAS makes: counting steps instead of trajectories (global-step) ' +
      'and splitting statistics per agent (drmas).' +
      ' Base rollouts: amplification 0.87–0.88, amplification_rows 0.97–0.98 for every agent.',
    config: make({ runs: THREE_WAY }),
  },
  {
    id: 'sync',
    title: 'Synchronous control (identical by theory)',
    lookFor:
      'The control: each agent acts once on one shared reward, so GRPO and Dr. MAS compute the same advantages. Look for: the two runs’ curves on top of each other, step for step.',
    blurb:
      'Every agent acts once on one shared reward: the per-agent sets equal the trajectory sets, so ' +
      'Dr. MAS and GRPO must produce the same advantages, step for step.' +
      ' Base rollouts: amplification (G − 1)/G = 0.88 for both agents, correlation 1.',
    story:
      'Measured (docs/findings.md, 5 seeds × 200 steps): GRPO and Dr. MAS identical to the last digit on every seed.',
    config: make({ task: 'sync' }),
  },
  {
    id: 'sync-own-scaled',
    title: 'Where they part: own rewards, Alice’s ×8',
    lookFor:
      'Where the mechanism map found the estimators part: each agent rewarded for its own part, Alice’s ×8. Look for: Bob’s own success (agent/bob/own_success), higher under Dr. MAS than GRPO, and lower under Step-level.',
    blurb:
      'sync-own with reward.scale.alice=8 and per-agent models. GRPO’s trajectory score becomes mostly ' +
      'Alice’s outcome, so Bob’s rows inherit it; Dr. MAS normalizes each agent by its own statistics. ' +
      'On the standard scale map (200 steps, 5 seeds) Dr. MAS − GRPO in Bob’s own success is ' +
      '+0.078 ± 0.032 at ×8 and +0.020 ± 0.029 at ×1, within the spread ' +
      '(docs/findings.md#the-dial-studies-where-does-agent-wise-normalization-start-to-matter).',
    story:
      'Measured on the standard map (docs/findings.md, 5 seeds × 200 steps): Bob’s own success +0.078 ± 0.032 under Dr. MAS against GRPO at ×8, within the spread at ×1; held-out success does not part, both near 1.',
    config: make({
      task: 'sync-own',
      models: { ...DEFAULT_EXPERIMENT.models, assignment: 'per-agent' },
      reward: { ...DEFAULT_EXPERIMENT.reward, scale: { alice: 8 } },
      runs: THREE_WAY,
    }),
  },
  {
    id: 'math-loop',
    title: 'Solver ⇄ verifier loop (math, retries)',
    lookFor:
      'Solver retries pile solver rows into failing trajectories. Look for: the solver’s amplification well above 1 (about 2.5 at the start) and a correlation near 0.83.',
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
    lookFor:
      'Each agent is rewarded on its own scale. Look for: amplification near 2 for the answer and search agents and below 1 for the verifier.',
    blurb:
      'The search task with AT-GRPO’s role rewards, on different scales: answer 2·EM; search +1 if it ' +
      'retrieved every needed fact, −1 if a query was malformed, plus EM; verifier EM. GRPO normalizes each ' +
      'trajectory’s mean row reward; Dr. MAS normalizes each agent’s own rewards.' +
      ' Base rollouts: amplification answer 2.18, search 1.88, verifier 0.85 at batch success 0.39; correlation 0.97.',
    config: make({ task: 'search-roles', runs: THREE_WAY }),
  },
  {
    id: 'search-routing',
    title: 'Search routing: cautious and eager routers (search, 3-step cap)',
    lookFor:
      'A router that errs gathers search rows in failures and answer rows in successes. Look for: the answer agent’s amplification above 1, the others’ below.',
    blurb:
      'The search task capped at 3 env steps (−0.01 per invalid row; "no" at the last step fails), with a ' +
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
    lookFor:
      'Agents of different model sizes, each with its own optimizer. Look for: per-agent gradient norms that part while amplification stays near 0.88.',
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
    lookFor:
      'Coder and tester rewards on different scales. Look for: the coder’s amplification about 1.6 and the tester’s about 0.66: GRPO weighs the coder more.',
    blurb:
      'The coder earns up to 2, the tester up to 2 on another support: a global baseline sits between ' +
      'them and biases both agents’ advantages.' +
      ' Base rollouts: amplification coder 1.58, tester 0.66.',
    config: make({ task: 'coder-tester' }),
  },
  {
    id: 'credit',
    title: 'Credit × normalization (search)',
    lookFor:
      'Shared reward against counterfactual credit, under each estimator. Look for: with credit, the answer agent’s amplification jumps (about 2.65) while the others drop to about 0.62.',
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
    title: 'Long-horizon planning: GRPO, Dr. MAS, AT-GRPO',
    lookFor:
      'Long-horizon planning over up to 5 turns. Look for: GRPO and Dr. MAS close (correlation about 0.99), and AT-GRPO’s per-turn sets holding single rows.',
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
    title: 'AT-GRPO: tree vs parallel (planning)',
    lookFor:
      'AT-GRPO under tree against parallel sampling. Look for: the held-out eval (avg@8), not training success; the tree’s stays below parallel’s.',
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
  {
    id: 'sync-own',
    title: 'Own rewards, unscaled: where the dials start',
    blurb:
      'sync with each agent rewarded for its own part (Alice: echo the word; Bob: mirror what she said), so ' +
      'the agents’ rows carry their own rewards and agent/<a>/own_success says whose learning slowed. Scale one ' +
      'agent’s rewards (reward.scale.alice=4) or shift them (reward.offset.alice=0.5) and watch GRPO, Dr. MAS ' +
      'and global-step part (docs/estimator-algebra.md#reward-dials).',
    lookFor:
      'Tests: agents rewarded for their own parts. Look for: scale one agent (reward.scale.alice=4) and see whose own_success slows under GRPO, Dr. MAS and global-step.',
    config: make({ task: 'sync-own', runs: THREE_WAY }),
  },
  {
    id: 'agents-own',
    title: 'More agents, own rewards: six agents, each on its own part (parts)',
    blurb:
      'The parts workflow family (docs/workflows.md) with N = 6 agents, each answering its own part of a ' +
      'question and rewarded for it alone (mix = 1), per-agent models. GRPO’s trajectory score averages ' +
      'the six outcomes into every row, so each agent’s own signal thins as N grows; Dr. MAS normalizes ' +
      'each agent by its own statistics. The agents map’s sharpest cell, its confidence interval furthest from 0 ' +
      '(docs/findings.md#more-agents-shared-or-own-rewards-the-agents-map); set workflow.args.agents ' +
      '(2 to 8) or workflow.args.mix (0: the team reward on every row) to move along it.',
    lookFor:
      'Tests: does Dr. MAS’s lead grow with the number of agents when each is rewarded for its own part? Look for: held-out success (eval avg@k) and each agent’s own success (agent/<a>/own_success), higher under Dr. MAS than GRPO.',
    story:
      'Measured on the agents map (docs/findings.md, 5 seeds × 200 steps) at N = 6, own rewards: held-out success 0.168 under Dr. MAS against 0.093 under GRPO, +0.075 [0.026, 0.123]. Dr. MAS’s lead is within the spread at N = 2, then +0.060, +0.075, +0.075 and +0.091 at N = 3, 4, 6 and 8.',
    config: make({
      task: 'workflow',
      workflow: { family: 'parts', args: { agents: 6, mix: 1 } },
      models: { ...DEFAULT_EXPERIMENT.models, assignment: 'per-agent' },
      runs: THREE_WAY,
    }),
  },
];
