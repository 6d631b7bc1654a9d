/**
 * What one node of a MARS2 search tree is on each task that runs it (`rollout.sampling=mcts`,
 * src/tasks/mcts.ts; docs/tree-sampling.md#mcts-sampling-mars2): the prompt of a fresh answer
 * at the root, the prompt of a refinement (the parent's answer and its feedback), and how an
 * answer is scored. Every agent of the task is an arm and answers the same prompt, the task's
 * answer role's, with its own model: the arms differ by their weights, as MARS2's agents do.
 * Pure: no tfjs, no DOM.
 */
import type { MctsTask } from '../core/config-names';
import type { Role } from '../core/vocab';
import {
  coderTesterTask,
  formatList,
  formatPair,
  sameList,
  type CoderTesterInstance,
  type IOPair,
} from './coder-tester';
import { parseProgram, runProgram } from './listdsl';
import { mathTask, parseNumber, problemText, solution, type MathInstance } from './math';
import { MAX_CONTEXT } from '../core/vocab';
import { agentSpec, promptFor, sanitize, type AnyTask } from './types';

/** An answer's score in [0, 1] and the feedback a refinement of it reads. */
interface Judged {
  score: number;
  feedback: string;
}

/** One task's nodes. */
export interface NodeSpec {
  /** The role whose prompt every arm answers (its rolePrompt and role token end each prompt). */
  answerRole: Role;
  /** Longest answer (characters, EOS excluded). */
  maxResponse: number;
  /** The problem as every prompt opens with it: never shortened. */
  problem: (instance: unknown) => string;
  /** What follows the parent's answer and feedback: the role prompt and role token. */
  suffix: string;
  /** Written between the problem and the parent's answer, as the task's workflow writes it. */
  before: string;
  judge: (instance: unknown, answer: string) => Judged;
}

/**
 * A refinement's prompt: problem, parent answer, feedback, suffix, within MAX_CONTEXT (BOS,
 * the longest answer and EOS included). When it would not fit, the feedback is cut from its end
 * first, then the parent's answer: the problem and the suffix are never cut, so the prompt
 * always ends as the answer role's does. Throws if even those two do not fit (a task bug).
 */
export function refinePrompt(spec: NodeSpec, instance: unknown, parent: string, feedback: string): string {
  const head = spec.problem(instance);
  const budget = MAX_CONTEXT - 2 - spec.maxResponse - head.length - spec.suffix.length;
  if (budget < 0) throw new Error(`problem '${head}' leaves no room for an answer`);
  // `before` ahead of the answer and a space ahead of the feedback, each dropped with what it precedes.
  let answer = parent.length > 0 ? spec.before + parent : '';
  let said = feedback.length > 0 ? ' ' + feedback : '';
  const over = answer.length + said.length - budget;
  if (over > 0) {
    const cutSaid = Math.min(over, said.length);
    said = said.slice(0, said.length - cutSaid);
    answer = answer.slice(0, answer.length - (over - cutSaid));
    if (said === ' ') said = '';
    if (answer === spec.before) answer = '';
  }
  return head + answer + said + spec.suffix;
}

/** A fresh answer's prompt: the problem and the suffix, as the answer role's first prompt. */
export const rootPrompt = (spec: NodeSpec, instance: unknown): string => spec.problem(instance) + spec.suffix;

/**
 * coder-tester: the coder's prompt without the tester's tests (the example alone). Score: the
 * share of the hidden tests the program passes. Feedback: `passed/total`, then the first failing
 * test as `input>expected` and what the program gave (`=output`, or `!` if it did not run).
 */
function judgeProgram(instance: CoderTesterInstance, program: string): Judged {
  const total = instance.hidden.length;
  const parsed = parseProgram(program);
  // One pass: each hidden test runs once; passShare's rule (parse failure fails every test, sameList).
  let passed = 0;
  let failing: { pair: IOPair; gave: string } | null = null;
  for (const t of instance.hidden) {
    const r = parsed.ok ? runProgram(parsed.program, t.input) : null;
    if (r?.ok && sameList(r.output, t.output)) passed++;
    else failing ??= { pair: t, gave: r?.ok ? '=' + formatList(r.output) : '!' };
  }
  const feedback = `${passed}/${total}` + (failing ? ` ${formatPair(failing.pair)}${failing.gave}` : '');
  return { score: passed / total, feedback };
}

/**
 * math: the solver's prompt. Score: 1 if the answer is right, else 0. Feedback: the verdict
 * `yes` or `no`, written where the math workflow writes its verifier's, so a refinement reads
 * as the loop's second attempt (`37+48=85 no=`). Here the verdict is the task's own check.
 */
function judgeAnswer(instance: MathInstance, answer: string): Judged {
  const right = parseNumber(answer) === solution(instance);
  return { score: right ? 1 : 0, feedback: right ? 'yes' : 'no' };
}

/** A spec whose answer role, response limit and suffix are the task's own agent's. */
function specOf(
  task: AnyTask,
  answerRole: Role,
  spec: Pick<NodeSpec, 'problem' | 'before' | 'judge'>,
): NodeSpec {
  const agent = agentSpec(task.agents, answerRole);
  return { answerRole, maxResponse: agent.maxResponse, suffix: promptFor('', agent), ...spec };
}

/** Every task that runs mcts, typed against MCTS_TASKS (core/config): the compiler wants each. */
export const NODE_SPECS: Record<MctsTask, NodeSpec> = {
  'coder-tester': specOf(coderTesterTask as unknown as AnyTask, 'coder', {
    problem: (i) => formatPair((i as CoderTesterInstance).example),
    before: ' ',
    judge: (i, a) => judgeProgram(i as CoderTesterInstance, a),
  }),
  // `37+48=84 no=`: the answer after '=', as the math workflow writes the solver's.
  math: specOf(mathTask as unknown as AnyTask, 'solver', {
    problem: (i) => problemText(i as MathInstance),
    before: '=',
    judge: (i, a) => judgeAnswer(i as MathInstance, a),
  }),
};

/** The answer as a child's prompt shows it: only lab characters, at most the answer length. */
export const shownAnswer = (spec: NodeSpec, answer: string): string => sanitize(answer, spec.maxResponse);
