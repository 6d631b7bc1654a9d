/**
 * The experiment's checks across fields: what one field's schema cannot see, because it depends
 * on another (a run's sampling, the task, the estimator). Each refuses a setting that would be
 * ignored or could not run, naming the field to change; ExperimentSchema reports them with the
 * fields' own problems. Pure: no tfjs, no DOM.
 */
import { defOf, defProblems } from './advantage-sets';
import { MCTS_TASKS, TREE_SAMPLINGS } from './config-names';
import type { CreditName, SamplingName, TaskChoice } from './config-names';
import type { Run } from './config-run';
import type { AdvantageOptions } from './config-sections';

/** A problem with one field of an experiment, by its path. */
type Issue = { path: (string | number)[]; message: string };

/** What the checks read of an experiment. */
interface Checked {
  task: TaskChoice;
  workflow?: unknown;
  rollout: { sampling: SamplingName; arms?: string };
  reward: { credit: CreditName };
  advantage: AdvantageOptions;
  runs: Run[];
}

/** Every cross-field problem of `exp`, in one order: credit on trees, the estimator algebra, mcts, arms. */
export const experimentIssues = (exp: Checked): Issue[] => [
  ...workflowIssues(exp),
  ...treeCreditIssues(exp),
  ...algebraIssues(exp),
  ...mctsIssues(exp),
  ...armsIssues(exp),
];

/** `task=workflow` and the workflow come together: one without the other could not run. */
function workflowIssues(exp: Checked): Issue[] {
  if (exp.task === 'workflow' && exp.workflow === undefined)
    return [
      {
        path: ['workflow'],
        message:
          'task=workflow needs a workflow file (lab train --workflow F, or the page’s Workflow picker)',
      },
    ];
  if (exp.task !== 'workflow' && exp.workflow !== undefined)
    return [{ path: ['task'], message: `a workflow is given, so task is workflow, not ${exp.task}` }];
  return [];
}

/**
 * Credit replays a trajectory with an agent's outputs masked; a tree's branch k is no trajectory
 * (each level continues from the chosen sibling, src/tasks/tree.ts), so there is nothing to replay.
 */
function treeCreditIssues(exp: Checked): Issue[] {
  const bad = new Map<string, { path: (string | number)[]; credit: string }>();
  exp.runs.forEach((r, i) => {
    if (!TREE_SAMPLINGS.includes(r.rollout.sampling ?? exp.rollout.sampling)) return;
    const own = r.reward.credit !== undefined;
    const credit = r.reward.credit ?? exp.reward.credit;
    const path = own ? ['runs', i, 'reward', 'credit'] : ['reward', 'credit'];
    if (credit !== 'shared') bad.set(path.join('.'), { path, credit });
  });
  return [...bad.values()].map(({ path, credit }) => ({
    path,
    message: `'${credit}' credit replays trajectories, and tree sampling's branches are not trajectories: use rollout.sampling=parallel or credit shared`,
  }));
}

/**
 * A run's own advantage.unit/.meanOver/.stdOver define its estimator only under `custom`: under a
 * named one they would be ignored, so they are refused. A custom definition must make sense.
 */
function algebraIssues(exp: Checked): Issue[] {
  const unread = exp.runs.some((r) => r.estimator === 'custom')
    ? []
    : (['unit', 'meanOver', 'stdOver'] as const)
        .filter((f) => exp.advantage[f] !== undefined)
        .map((f) => ({
          path: ['advantage', f],
          message: 'only estimator custom reads it, and no run is custom',
        }));
  return [
    ...unread,
    ...exp.runs.flatMap((r, i) => {
      if (r.estimator !== 'custom') {
        const own = (['unit', 'meanOver', 'stdOver'] as const).filter((f) => r.advantage[f] !== undefined);
        return own.map((f) => ({
          path: ['runs', i, 'advantage', f],
          message: `only estimator custom reads it (this run's estimator is ${r.estimator})`,
        }));
      }
      let def;
      try {
        def = defOf({ ...exp.advantage, ...r.advantage });
      } catch {
        return []; // a set list the field's own check already refused
      }
      return defProblems(def).map(({ field, message }) => ({
        path: r.advantage[field] !== undefined ? ['runs', i, 'advantage', field] : ['advantage', field],
        message,
      }));
    }),
  ];
}

/** Runs that sample by mcts on a task without nodes: refused with the tasks that have them. */
function mctsIssues(exp: Checked): Issue[] {
  if ((MCTS_TASKS as readonly string[]).includes(exp.task)) return [];
  const message = `mcts needs a task whose answers are scored and refined node by node: ${MCTS_TASKS.join(', ')} (this one is ${exp.task})`;
  const own = exp.runs.flatMap((r, i) =>
    r.rollout.sampling === 'mcts' ? [{ path: ['runs', i, 'rollout', 'sampling'], message }] : [],
  );
  const shared = exp.rollout.sampling === 'mcts' && exp.runs.some((r) => r.rollout.sampling === undefined);
  return [...own, ...(shared ? [{ path: ['rollout', 'sampling'], message }] : [])];
}

/** rollout.arms given to a run that does not sample by mcts: refused, it would be ignored. */
function armsIssues(exp: Checked): Issue[] {
  const message = 'only rollout.sampling=mcts has arms';
  const own = exp.runs.flatMap((r, i) =>
    r.rollout.arms !== undefined && (r.rollout.sampling ?? exp.rollout.sampling) !== 'mcts'
      ? [{ path: ['runs', i, 'rollout', 'arms'], message }]
      : [],
  );
  const shared =
    exp.rollout.arms !== undefined &&
    exp.runs.some(
      (r) => r.rollout.arms === undefined && (r.rollout.sampling ?? exp.rollout.sampling) !== 'mcts',
    );
  return [...own, ...(shared ? [{ path: ['rollout', 'arms'], message }] : [])];
}
