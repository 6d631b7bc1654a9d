/**
 * "What differs", per agent and in plain words, read from one run's own same-batch diagnostics
 * (rl/same-batch.ts, rl/diagnostics.ts): how far GRPO's one baseline mis-scales the agent's advantages,
 * how closely GRPO's and Dr. MAS's advantages agree on the same rows, and what that does to the
 * agent's share of the gradient. Works at seeds = 1: both estimators weigh the same batches, so no
 * spread between seeds is needed to see how they differ. Pure: metric rows in, sentences out.
 */
import type { Experiment } from '../core/config';
import { ALGEBRA_FIELDS } from '../core/advantage-sets';
import { groupScores, resolveRun } from '../core/config-run';
import type { Run } from '../core/config-run';
import { ESTIMATORS, type EstimatorChoice, type EstimatorName } from '../core/estimators';
import { agentKey, agentSameBatchKey, GRAD_NORM, M, SAME_BATCH_STATS } from '../core/metrics';
import { listed } from '../core/config-words';

/** The two estimators the lab's question compares. */
const PAIR = ['grpo', 'drmas'] as const;

/** Batches the card summarizes by default: the run's last 20 steps. */
export const DIFFERS_WINDOW = 20;

export interface AgentDifference {
  agent: string;
  /** Mean over the batches of the agent's amplification (GRPO's E[A²] factor; NaN if never defined). */
  amplification: number;
  /** Mean over the batches of the share of its rows that carry their trajectory's score (NaN where not recorded). */
  carried: number;
  /** √(E[A²] under Dr. MAS / E[A²] under GRPO), pooled over the batches: Dr. MAS's advantage scale in GRPO's units. */
  scale: number;
  /** Each estimator's advantage scale, √E[A²] pooled over the batches: the card's paired bars. */
  rms: { grpo: number; drmas: number };
  /** Mean over the batches of the correlation of the two estimators' advantages on its rows (NaN when not measured). */
  corr: number;
  /** Dr. MAS's pre-clip gradient norm over GRPO's at the same weights (NaN without diagnostics.shadowGradNorm). */
  gradRatio: number;
  /** The estimators of the experiment's other runs, weighed on the same rows (OtherRun), each against GRPO. */
  others?: OtherScale[];
  sentence: string;
}

/** Another run's estimator on the card's rows: its scale in GRPO's units, and how it agrees with the run's own. */
export interface OtherScale {
  /** The other run's label. */
  run: string;
  estimator: EstimatorName;
  /** √(E[A²] under it / E[A²] under GRPO), pooled over the batches. */
  scale: number;
  /** Its advantage scale, √E[A²] pooled over the batches: a bar beside the pair's. */
  rms: number;
  /** Mean correlation of its advantages with the run's own estimator's (NaN where it is the run's own). */
  corr: number;
}

/**
 * An experiment's run other than the one the card reads: its label, its estimator, and the settings
 * it has of its own beside the estimator (resolved keys, `reward.credit`), which weighing one run's
 * batches cannot show.
 */
export interface OtherRun {
  label: string;
  estimator: EstimatorChoice;
  differs: string[];
}

/** What differs between the two estimators on one run's batches: the What differs card's content. */
export interface RunDifferences {
  /** First and last step summarized. */
  steps: [number, number];
  /** Every agent got exactly the same advantages from both estimators on every batch. */
  identical: boolean;
  /** The card's lead: which batches, and the identical case with why. */
  summary: string;
  /** What the agent's rewards are set against, in the batch's own nouns (trajectories, or a tree's nodes). */
  scores: string;
  /**
   * What the card says of the experiment's other runs (OtherRun): which estimators it weighs besides
   * the pair, and which runs differ in more than their estimator; '' where there is nothing to say
   * (absent in result files written before it).
   */
  runs?: string;
  agents: AgentDifference[];
}

const finite = (xs: number[]) => xs.filter(Number.isFinite);
const meanOf = (xs: number[]) => {
  const f = finite(xs);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};
const f2 = (x: number) => x.toFixed(2);

/** The direction the correlation leaves the agent's gradient in, in words. */
function direction(corr: number): string {
  if (!Number.isFinite(corr)) return '';
  if (corr >= 0.99) return ', in the same direction';
  if (corr >= 0.9) return ', in nearly the same direction';
  if (corr >= 0.5) return ', in a partly different direction';
  return ', in a different direction';
}

/**
 * The card's nouns for the run's batches: a group of parallel or tree sampling holds trajectories
 * with their scores; under rollout.sampling=mcts a group is one search tree of nodes, and no row
 * belongs to a trajectory of G rollouts.
 */
const DIFFERS_WORDS = {
  trajectories: {
    scores: 'its groups’ trajectory scores',
    tied: 'its groups’ rollouts tied',
    carry: 'the trajectory scores',
    one: 'trajectory',
    its: 'its trajectory’s',
  },
  nodes: {
    scores: 'the node scores of its trees',
    tied: 'the nodes of its trees tied',
    carry: 'their nodes’ scores',
    one: 'node',
    its: 'its node’s',
  },
} as const;
type Words = (typeof DIFFERS_WORDS)[keyof typeof DIFFERS_WORDS];

/** Every row, up to the rounding of a mean over batches: below this, amplification does not apply. */
const CARRIED = 1 - 1e-9;

const AGREE = (corr: number) =>
  corr >= 0.99 ? 'almost exactly' : corr >= 0.9 ? 'closely' : corr >= 0.5 ? 'partly' : 'little';

/**
 * Amplification in words, after the measured scale. It predicts GRPO's E[A²] for the agent only
 * where every one of its rows carries its trajectory's reward (docs/estimators.md#the-amplification-factor):
 * there it is said against the level of rewards that sit where the scores do; elsewhere (own
 * rewards, a dial, a per-row penalty) one clause says why it does not apply, and the number, which
 * would contradict the measured scale, is left to its chart. Rows that carry exactly the scores
 * score (G − 1)/G, not 1 (the std is the unbiased one), so that is the level when the group's size
 * G is known: 0.75 at G = 4 is "where the scores are", not "narrower".
 */
function amplificationWords(amp: number, carried: number, w: Words, groupSize?: number): string {
  if (!Number.isFinite(amp)) return 'Its amplification is undefined: none of its groups had spread rewards.';
  if (carried < CARRIED)
    return `Amplification does not apply to it: ${carried === 0 ? 'none' : `only ${Math.round(carried * 100)} %`} of its rows carry their ${w.one}’s reward, and GRPO weighs each row by ${w.its} score, not by the row’s own reward.`;
  const level = groupSize && groupSize > 1 ? (groupSize - 1) / groupSize : 1;
  const sitting = `rewards that sit where ${w.scores} do`;
  const where =
    amp > 1.25 * level
      ? `above the ${f2(level)} of ${sitting}: its own sit off-centre from them, or spread wider`
      : amp < 0.8 * level
        ? `below the ${f2(level)} of ${sitting}: its own spread narrower`
        : `the value for ${sitting}`;
  // Runs recorded before traj_reward_share existed (or imported) do not say whether rows carried it.
  const when = Number.isFinite(carried)
    ? `All its rows carry their ${w.one}’s reward, so this is its E[A²] under GRPO.`
    : `It is its E[A²] under GRPO only if its rows carry their ${w.one}’s reward, which this run did not record.`;
  return `Its amplification is ${f2(amp)}, ${where}. ${when}`;
}

function describeAgent(
  d: Omit<AgentDifference, 'sentence'> & { tied: boolean },
  own: EstimatorChoice,
  w: Words,
  groupSize?: number,
  /** The card's lead already says amplification applies to no agent: no clause per agent. */
  ampSaid = false,
): string {
  const amp = ampSaid ? '' : ` ${amplificationWords(d.amplification, d.carried, w, groupSize)}`;
  const others = (d.others ?? []).map((o) => ` ${otherWords(o, own)}`).join('');
  if (!Number.isFinite(d.scale))
    return d.tied
      ? `Every advantage the ${d.agent} agent got on these batches is 0 under both estimators: ${w.tied}, so there is nothing to weigh.`
      : `The ${d.agent} agent has no rows on these batches.`;
  const agree = Number.isFinite(d.corr)
    ? `the two agree ${AGREE(d.corr)} on its rows (correlation ${f2(d.corr)})`
    : `their agreement is measured only against this run’s own estimator (${own})`;
  const grad = Number.isFinite(d.gradRatio)
    ? `Measured at the same weights, Dr. MAS’s gradient for it is ${f2(d.gradRatio)}× GRPO’s`
    : `Its rows pull on the gradient about ${f2(d.scale)}× as hard under Dr. MAS${direction(d.corr)}`;
  return `Dr. MAS gives the ${d.agent} agent ${f2(d.scale)}× GRPO’s advantage scale, and ${agree}. ${grad}.${others}${amp}`;
}

/** An estimator by its label. */
const nameOf = (o: { estimator: EstimatorName }) => ESTIMATORS[o.estimator].label;

/** Another run's estimator on the agent's rows, in one sentence. */
function otherWords(o: OtherScale, own: EstimatorChoice): string {
  if (!Number.isFinite(o.scale)) return `${nameOf(o)} gives it no advantage scale on these rows.`;
  const agree = Number.isFinite(o.corr)
    ? ` and agrees ${AGREE(o.corr)} with ${own === 'custom' ? 'this run’s own' : ESTIMATORS[own].label} on its rows (correlation ${f2(o.corr)})`
    : '';
  return `${nameOf(o)} gives it ${f2(o.scale)}× GRPO’s advantage scale${agree}.`;
}

/**
 * The experiment's other runs in the card's words: the estimators it weighs besides the pair
 * (`weighed`), the runs with settings of their own beside the estimator, and the custom ones (whose
 * definition only their own run's batches are weighed by).
 */
function runsWords(others: readonly OtherRun[], weighed: readonly OtherScale[], whose: string): string {
  const said: string[] = [];
  if (weighed.length) {
    const trains = weighed.filter((o) => o.run !== ESTIMATORS[o.estimator].label);
    said.push(
      `Each agent’s line also gives ${listed(weighed.map((o) => `${nameOf(o)}’s`))} advantage scale in GRPO’s units${trains.length ? ` (${trains.map((o) => `${o.run} trains ${nameOf(o)}`).join('; ')})` : ''}.`,
    );
  }
  // Runs with the same settings of their own are named together.
  const bySettings = new Map<string, string[]>();
  for (const o of others.filter((x) => x.differs.length > 0))
    bySettings.set(o.differs.join(', '), [...(bySettings.get(o.differs.join(', ')) ?? []), o.label]);
  for (const [keys, labels] of bySettings)
    said.push(
      `${listed(labels)} ${labels.length === 1 ? 'differs' : 'differ'} from ${whose.replace(/’s$/, '')} in ${keys}: the card cannot show what that changes (one run’s batches hold one setting), ${labels.length === 1 ? 'its' : 'their'} curves and Findings do.`,
    );
  const custom = others.filter((o) => o.estimator === 'custom' && o.differs.length === 0).map((o) => o.label);
  if (custom.length)
    said.push(
      `${listed(custom)} ${custom.length === 1 ? 'trains' : 'train'} a custom estimator, weighed only on ${custom.length === 1 ? 'its' : 'their'} own batches: see “Same batch, every estimator”.`,
    );
  return said.join(' ');
}

/**
 * The card for one run: `history` holds its frames (oldest first) with at least `step` and the
 * agents' amplification and same-batch keys; the last `window` batches are summarized. `trajectories`
 * (B·G) lets the identical case say that every agent acted once per trajectory; `groupSize` (G, or
 * nodes per tree) sets the level amplification is worded against; `run` names the
 * run in the lead; `trees` (rollout.sampling=mcts) words it for trees of nodes. Null before the run's first batch.
 */
export function whatDiffers(
  history: readonly Record<string, number>[],
  agents: readonly string[],
  own: EstimatorChoice,
  o: {
    window?: number;
    trajectories?: number;
    groupSize?: number;
    run?: string;
    trees?: boolean;
    /** The experiment's other runs (differsPick): their estimators are weighed on these rows too. */
    others?: readonly OtherRun[];
  } = {},
): RunDifferences | null {
  const w = o.trees ? DIFFERS_WORDS.nodes : DIFFERS_WORDS.trajectories;
  const rows = history.filter((h) => Number.isFinite(h[M.step])).slice(-(o.window ?? DIFFERS_WINDOW));
  if (rows.length === 0) return null;
  const steps: [number, number] = [rows[0][M.step], rows[rows.length - 1][M.step]];
  const col = (key: string) => rows.map((h) => h[key] ?? NaN);
  // The other estimator's correlation with the run's own is the pair's correlation.
  const other = own === 'grpo' ? 'drmas' : own === 'drmas' ? 'grpo' : null;

  let identical = true;
  // Where no agent's rows carry their trajectory's reward (every agent rewarded for its own part),
  // amplification applies to none: the lead says so once, not one clause per agent.
  const shares = agents.map((a) => meanOf(col(agentKey(a, 'traj_reward_share'))));
  const noneCarry = agents.length > 1 && shares.every((c) => Number.isFinite(c) && c < CARRIED);
  // The other runs' named estimators beyond the pair, each once (its rows' numbers are the same whichever run).
  const extra = (o.others ?? []).filter(
    (x, i, all): x is OtherRun & { estimator: EstimatorName } =>
      x.estimator !== 'custom' &&
      !(PAIR as readonly string[]).includes(x.estimator) &&
      all.findIndex((y) => y.estimator === x.estimator) === i,
  );
  const out = agents.map((agent, i): AgentDifference => {
    const [g, d] = PAIR.map((e) => col(agentSameBatchKey(agent, e, 'sq_mean')));
    const [gMean, dMean] = PAIR.map((e) => col(agentSameBatchKey(agent, e, 'mean')));
    const corrs = other ? col(agentSameBatchKey(agent, other, 'corr')) : [];
    // Identical on a batch: the same mean and E[A²], and exactly correlated (pearson gives 1 on
    // equal inputs), or all zero (a group whose rollouts tied: no correlation is defined).
    const same = g.every(
      (x, i) => Number.isFinite(x) && x === d[i] && gMean[i] === dMean[i] && (x === 0 || corrs[i] === 1),
    );
    if (!same || !other) identical = false;
    const [gm, dm] = [meanOf(g), meanOf(d)];
    const [gg, dg] = PAIR.map((e) => meanOf(col(agentSameBatchKey(agent, e, GRAD_NORM))));
    const diff = {
      agent,
      amplification: meanOf(col(agentKey(agent, 'amplification'))),
      carried: shares[i],
      scale: gm > 0 ? Math.sqrt(dm / gm) : NaN,
      rms: { grpo: Math.sqrt(gm), drmas: Math.sqrt(dm) },
      corr: meanOf(corrs),
      gradRatio: gg > 0 ? dg / gg : NaN,
      ...(extra.length
        ? {
            others: extra.map((x): OtherScale => {
              const em = meanOf(col(agentSameBatchKey(agent, x.estimator, 'sq_mean')));
              return {
                run: x.label,
                estimator: x.estimator,
                scale: gm > 0 ? Math.sqrt(em / gm) : NaN,
                rms: Math.sqrt(em),
                corr: x.estimator === own ? NaN : meanOf(col(agentSameBatchKey(agent, x.estimator, 'corr'))),
              };
            }),
          }
        : {}),
    };
    const tied = gm === 0 && dm === 0;
    return { ...diff, sentence: describeAgent({ ...diff, tied }, own, w, o.groupSize, noneCarry) };
  });

  const batches = `${rows.length === 1 ? 'batch' : `${rows.length} batches`} (step${rows.length === 1 ? '' : 's'} ${steps[0] === steps[1] ? steps[0] : `${steps[0]}–${steps[1]}`})`;
  const whose = o.run === undefined ? 'this run’s' : `the ${o.run} run’s`;
  const once =
    o.trajectories !== undefined &&
    agents.every((a) => col(agentKey(a, 'calls')).every((n) => n === o.trajectories));
  // The shared-reward reading needs the rows to have carried it (traj_reward_share 1 on every
  // batch): with own rewards (a workflow's mix above 0) the two can also agree because every group
  // tied, which says nothing of sharing.
  const shared = agents.every((a) => col(agentKey(a, 'traj_reward_share')).every((v) => v >= CARRIED));
  const tied = out.every((a) => a.rms.grpo === 0 && a.rms.drmas === 0);
  const same = `On ${whose} last ${batches}, GRPO and Dr. MAS give every row exactly the same advantage`;
  const most = Math.round(100 * Math.max(...shares));
  const noAmp = noneCarry
    ? ` Amplification applies to none of its agents: it needs every row of an agent to carry its ${w.one}’s reward, and ${most === 0 ? 'none' : `at most ${most} %`} do; GRPO weighs each row by ${w.its} score, not by the row’s own reward.`
    : '';
  const weighers = extra.length
    ? listed([...PAIR.map((e) => ESTIMATORS[e].label), ...extra.map((x) => ESTIMATORS[x.estimator].label)])
    : 'both estimators';
  const summary = !identical
    ? `On ${whose} last ${batches}, ${weighers} weighed the same rows.${noAmp}`
    : tied
      ? `${same}: 0, since ${w.tied.replace('its ', 'all ')}. Neither estimator had a spread to normalize, so this says nothing of how they differ once rewards spread.`
      : `${same}. ` +
        (once && shared
          ? 'Every agent acted once in every trajectory, on the trajectory’s shared reward, so '
          : 'Here ') +
        `each agent’s rows carry exactly ${w.carry}: both estimators normalize the same numbers by the same mean and standard deviation.`;
  const runs = runsWords(o.others ?? [], out[0]?.others ?? [], whose);
  return { steps, identical, summary, scores: w.scores, runs, agents: out };
}

/**
 * The keys the card reads of a run with these agents, the other runs' named estimators weighed
 * beside the pair (a reader may decode only these).
 */
export const differsKeys = (agents: readonly string[], others: readonly OtherRun[] = []): string[] => {
  const estimators = [
    ...new Set<EstimatorName>([
      ...PAIR,
      ...others.flatMap((o) => (o.estimator === 'custom' ? [] : [o.estimator])),
    ]),
  ];
  return [
    M.step,
    ...agents.flatMap((a) => [
      agentKey(a, 'amplification'),
      agentKey(a, 'traj_reward_share'),
      agentKey(a, 'calls'),
      ...estimators.flatMap((e) => SAME_BATCH_STATS.map((s) => agentSameBatchKey(a, e, s))),
    ]),
  ];
};

/** The leaf keys (`reward.credit`) where two plain settings objects differ, in `a`'s order then `b`'s. */
function differingKeys(a: unknown, b: unknown, at = ''): string[] {
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isObject(a) || !isObject(b)) return JSON.stringify(a) === JSON.stringify(b) ? [] : [at];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((k) => differingKeys(a[k], b[k], at ? `${at}.${k}` : k));
}

/**
 * The run the card reads among an experiment's repeats (each with its index into `config.runs`):
 * the first whose own estimator is GRPO or Dr. MAS, so the pair's correlation was measured, else
 * the first; with its estimator, what its batches hold (B·G trajectories, or an mcts tree's
 * nodes) and the experiment's other runs (OtherRun). Null without repeats. The page's card and a
 * result file pick alike.
 */
export function differsPick<R extends { runIndex: number }>(config: Experiment, repeats: readonly R[]) {
  const withRun = repeats.map((r) => ({ r, run: config.runs[r.runIndex] as Run | undefined }));
  const chosen =
    withRun.find((x) => x.run?.estimator === 'grpo' || x.run?.estimator === 'drmas') ??
    withRun.find((x) => x.run);
  if (!chosen?.run) return null;
  const mine = resolveRun(config, chosen.run);
  const { rollout } = mine;
  // An mcts tree's rows are nodes, as many as the search grows: no B·G trajectories to count.
  const trees = rollout.sampling === 'mcts';
  const others = config.runs
    .filter((run) => run !== chosen.run)
    .map((run): OtherRun => ({
      label: run.label,
      estimator: run.estimator,
      // A custom estimator's definition is its advantage's algebra fields: its estimator, not a setting of its own.
      differs: differingKeys(resolveRun(config, run), mine).filter(
        (k) => !(run.estimator === 'custom' && k.startsWith('advantage.') && k.slice(10) in ALGEBRA_FIELDS),
      ),
    }));
  return {
    r: chosen.r,
    estimator: chosen.run.estimator,
    trees,
    trajectories: trees ? undefined : rollout.batchSize * rollout.groupSize,
    groupSize: groupScores(config, chosen.run),
    others,
  };
}
