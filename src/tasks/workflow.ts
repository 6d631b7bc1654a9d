/**
 * A workflow file as a task: the interpreter that runs a compiled workflow (src/core/workflow/)
 * behind the same Task contract as the built-in tasks, so every estimator, chart and export works
 * on it unchanged. A trajectory's state is plain data: the row, the flow's cursor, each agent's
 * latest output (as written, and as shown to others) and whether each call was right by its
 * agent's own rule. At the end the team's rule is judged, and each row gets
 *
 *   row reward = mix·own + (1 − mix)·team      (own: its call's rule, 1 or 0; team: 1 or 0)
 *
 * minus the invalid penalty where its output broke its agent's format. mix = 0 broadcasts the
 * team's reward, as Dr. MAS's tasks do; mix = 1 gives each row its own. Pure.
 */
import { compileWorkflow, type CompiledWorkflow, type DataShape } from '../core/workflow/compile';
import {
  describeIssues,
  hashSplit,
  inlineDataset,
  missingFields,
  rowKey,
  type Dataset,
} from '../core/workflow/file';
import { actingNow, END, moveOn, startCursor, type Cursor } from '../core/workflow/flow';
import type { JudgeContext } from '../core/workflow/rules';
import type { Workflow } from '../core/workflow/schema';
import { agentTokens, CHARSET } from '../core/vocab';
import type { Prng } from '../core/prng';
import { WORKFLOW_GENERATORS } from './workflow-generators';
import {
  expectTurn,
  finish,
  logged,
  MALFORMED_SHARE,
  sanitize,
  type AgentSpec,
  type BaseState,
  type NextCall,
  type Outcome,
  type StepResult,
  type Task,
} from './types';

/** One row of the workflow's data, as a task instance. */
export interface WorkflowInstance {
  fields: Readonly<Record<string, string>>;
  /** Its identity (the split and distinct validation questions read it). */
  key: string;
}

export interface WorkflowState extends BaseState {
  instance: WorkflowInstance;
  cursor: Cursor;
  /** Each agent's latest output as written, and as shown to the others (cut, in the character set). */
  written: Record<string, string>;
  shown: Record<string, string>;
  /** Each agent with a rule: whether its latest output was right by it. */
  right: Record<string, boolean>;
  /** Per call, in order: right by its agent's rule (null: the agent has none). */
  calls: (boolean | null)[];
}

/** A workflow that cannot be trained: the issues say where and why. */
export class WorkflowRefused extends Error {
  constructor(
    readonly issues: readonly { where: string; message: string }[],
    readonly workflow: string,
  ) {
    super(describeIssues(`workflow '${workflow}'`, issues));
  }
}

const where = (path: readonly (string | number)[]) => path.join('.');

/**
 * The task a workflow defines. `dataset` holds its rows where `data` names a file (the host read
 * it and checked its SHA-256); inline rows and generators need none. With `transitionsOnly`, the
 * data's shape, it is a task that only steps trajectories (an env worker's): it draws no rows.
 */
export function workflowTask(
  wf: Workflow,
  name: string,
  dataset: Dataset | null,
  transitionsOnly?: DataShape,
): Task<WorkflowInstance, WorkflowState> & { shape: DataShape } {
  const generator = 'generator' in wf.data ? WORKFLOW_GENERATORS[wf.data.generator] : null;
  let data = dataset;
  if ('rows' in wf.data && !transitionsOnly) {
    const read = inlineDataset(wf.data.rows);
    if (!read.ok) throw new WorkflowRefused(read.issues, wf.name);
    data = read.value;
  }
  if (!generator && !data && !transitionsOnly)
    throw new WorkflowRefused([{ where: 'data.file', message: 'the dataset file was not given' }], wf.name);
  const shape =
    transitionsOnly ?? (generator ? { longest: new Map(Object.entries(generator.longest)) } : data!.shape);
  const result = compileWorkflow(wf, shape);
  if (!result.ok)
    throw new WorkflowRefused(
      result.issues.map((i) => ({ where: where(i.path), message: i.message })),
      wf.name,
    );
  const c = result.compiled;
  if (data) {
    const missing = missingFields(
      data,
      readFields(c, [...shape.longest.keys()]),
      'rows' in wf.data ? (i) => `data.rows.${i}` : undefined,
    );
    if (missing.length) throw new WorkflowRefused(missing, wf.name);
  }
  const tokens = agentTokens(wf.agents.map((a) => a.name));
  const agents: AgentSpec[] = wf.agents.map((a) => ({
    role: a.name,
    rolePrompt: a.prompt ?? '',
    maxResponse: a.maxResponse,
  }));
  const pool = data ? splitRows(wf, data) : undefined;
  const ownSuccess = [...c.agents.values()].some((a) => a.rule !== null);

  const valueOf = (state: WorkflowState) => (n: string) =>
    Object.hasOwn(state.instance.fields, n) ? state.instance.fields[n] : state.shown[n];

  const next = (state: WorkflowState): NextCall | null => {
    if (state.done) return null;
    const now = actingNow(c.stages, state.cursor);
    if (!now) return null;
    const spec = c.agents.get(now.agent)!.spec;
    return {
      agent: now.agent,
      prompt: now.stage.prompt.render(valueOf(state)) + (spec.prompt ?? '') + tokens.get(now.agent)!,
    };
  };

  const validate = (agent: string, response: string): string | null => {
    const a = c.agents.get(agent);
    if (!a) return `'${agent}' is not an agent of ${wf.name}`;
    return a.format && !a.format.matches(response) ? `does not match its format ${a.format.text}` : null;
  };

  const step = (state: WorkflowState, agent: string, response: string): StepResult<WorkflowState> => {
    expectTurn(next(state), agent);
    const a = c.agents.get(agent)!;
    const valid = validate(agent, response) === null;
    const written = { ...state.written, [agent]: response };
    const shown = { ...state.shown, [agent]: sanitize(response, a.spec.maxResponse) };
    let after: WorkflowState = { ...state, written, shown, log: logged(state, agent, valid) };
    let right: boolean | null = null;
    if (a.rule) {
      right = a.rule.judge(judgeContext(after, response));
      after = { ...after, right: { ...after.right, [agent]: right } };
    }
    after = { ...after, calls: [...state.calls, right], cursor: moveOn(c.stages, state.cursor, response) };
    return { state: after.cursor.stage === END ? finish(after, outcomeOf(after)) : after, valid };
  };

  const judgeContext = (state: WorkflowState, output: string): JudgeContext => ({
    output,
    valueOf: valueOf(state),
    rightOf: (agent) => state.right[agent],
  });

  /** The team's verdict, and each row's reward from it and its own (the module's header). */
  const outcomeOf = (state: WorkflowState): Outcome => {
    const last = state.log.at(-1)?.agent;
    let team: boolean;
    if (c.team) {
      const of = c.team.of ?? last;
      const output = of === undefined ? undefined : state.written[of];
      team = output !== undefined && c.team.rule.judge(judgeContext(state, output));
    } else {
      const judged = Object.keys(state.right);
      team = judged.length > 0 && judged.every((agent) => state.right[agent]);
    }
    const teamReward = team ? 1 : 0;
    const callRewards = state.log.map(({ agent }, i) => {
      const { mix } = c.agents.get(agent)!;
      const own = state.calls[i];
      return mix * (own === null ? teamReward : own ? 1 : 0) + (1 - mix) * teamReward;
    });
    const agentRewards: Record<string, number> = {};
    state.log.forEach(({ agent }, i) => (agentRewards[agent] = callRewards[i]));
    return { success: team, reward: teamReward, agentRewards, callRewards, agentSuccess: { ...state.right } };
  };

  const demonstrate = (state: WorkflowState, agent: string, rng: Prng, errorRate: number): string => {
    const a = c.agents.get(agent)!;
    const ctx = { valueOf: valueOf(state), rightOf: (x: string) => state.right[x] };
    const teamJudges = c.team && (c.team.of ?? c.stages.at(-1)!.agents.at(-1)) === agent;
    // The agent's own `demo` first: a user who wrote one means it (docs/workflows.md#agents).
    const target =
      a.demo?.render(ctx.valueOf) ??
      a.rule?.target(ctx, rng) ??
      (teamJudges ? c.team!.rule.target(ctx, rng) : null) ??
      a.format?.sample(rng) ??
      '';
    const mistake = rng.chance(errorRate);
    const malformed = mistake && a.format !== null && rng.chance(MALFORMED_SHARE);
    if (malformed) return `${target}?`.slice(-a.spec.maxResponse);
    return (mistake ? wrong(target, agent, rng) : target).slice(0, a.spec.maxResponse);
  };

  /** A wrong answer near the right one: the other verdict or route, or one character changed. */
  const wrong = (target: string, agent: string, rng: Prng): string => {
    const stage = c.stages.find((s) => s.agents.includes(agent) && (s.route || s.loop));
    const words = stage?.route ? [...stage.route.targets.keys()] : (stage?.loop?.words ?? []);
    const others = [...new Set([...words, 'yes', 'no'])].filter((w) => w !== target);
    if (words.includes(target) || target === 'yes' || target === 'no') return rng.pick(others);
    if (target === '') return 'x';
    const i = rng.int(target.length);
    const pool = /[0-9]/.test(target[i])
      ? '0123456789'
      : /[a-z]/.test(target[i])
        ? 'abcdefghijklmnopqrstuvwxyz'
        : CHARSET;
    const ch = rng.pick([...pool].filter((x) => x !== target[i]));
    return target.slice(0, i) + ch + target.slice(i + 1);
  };

  return {
    name,
    doc: wf.doc ?? `the workflow ${wf.name}`,
    shape,
    ...(generator ? { variantOf: generator.family } : {}),
    agents,
    invalidPenalty: wf.invalidPenalty,
    ownSuccess,
    maxCalls: c.maxCalls,
    generate: (rng) => {
      if (generator) {
        const instance = generator.generate(rng);
        return { fields: generator.fields(instance), key: generator.key(instance) };
      }
      if (!data) throw new Error(`${wf.name}: this copy of the workflow only steps trajectories`);
      const row = data.rows[rng.int(data.rows.length)];
      return { fields: row.fields, key: rowKey(row.fields) };
    },
    key: (i) => i.key,
    ...(pool ? { pool } : {}),
    init: (instance) => ({
      instance,
      cursor: startCursor(c.stages),
      written: {},
      shown: {},
      right: {},
      calls: [],
      log: [],
      done: false,
      outcome: null,
    }),
    next,
    validate,
    step,
    demonstrate,
    neutral: () => '',
  };
}

/** The fields a compiled workflow reads anywhere (prompts, rules, demos), among `fields`. */
function readFields(c: CompiledWorkflow, fields: readonly string[]): string[] {
  const templates = [
    ...c.stages.map((s) => s.prompt),
    ...[...c.agents.values()].flatMap((a) => [...(a.rule?.templates ?? []), ...(a.demo ? [a.demo] : [])]),
    ...(c.team?.rule.templates ?? []),
  ];
  const read = new Set(templates.flatMap((t) => [...t.names, ...t.guarded]));
  return fields.filter((f) => read.has(f));
}

/** The rows of each split: a row's own `split`, else the seeded hash of the workflow and the row. */
function splitRows(wf: Workflow, data: Dataset): { train: WorkflowInstance[]; val: WorkflowInstance[] } {
  const pool = { train: [] as WorkflowInstance[], val: [] as WorkflowInstance[] };
  for (const row of data.rows) {
    const key = rowKey(row.fields);
    pool[row.split ?? hashSplit(wf.name, key, wf.valPercent)].push({ fields: row.fields, key });
  }
  for (const split of ['train', 'val'] as const)
    if (pool[split].length === 0)
      throw new WorkflowRefused(
        [
          {
            where: 'data',
            message: `no ${split === 'val' ? 'validation' : 'training'} rows: ${data.rows.length} rows, ${pool.train.length} train and ${pool.val.length} val (mark rows with split: ${split}, or change valPercent)`,
          },
        ],
        wf.name,
      );
  return pool;
}
