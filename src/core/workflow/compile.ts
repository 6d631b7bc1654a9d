/**
 * A workflow checked and compiled, before anything trains: every refusal names the stage, agent or
 * field (as a path into the file) and says why. What it checks beyond the schema:
 *   - every agent acts somewhere, and every stage is reached;
 *   - no edge goes back but a loop's (so no cycle is without a bound, stages.ts);
 *   - every template reads a field the data has, or an output some stage has produced by then
 *     (on every path, or on some path inside a section `{#agent}…{/agent}`);
 *   - every rule parses, a verdict judges an agent with a rule of its own, and a mix needs a rule;
 *   - every prompt, with the longest row and the longest answers, fits the context.
 * The result is what the task interpreter (src/tasks/workflow.ts) runs. Pure.
 */
import { CHARSET, MAX_CONTEXT } from '../vocab';
import { compilePattern, type Pattern } from './pattern';
import { compileRule, type CompiledRule } from './rules';
import { checkFlow, END, flowReach, producedBefore, type FlowIssue, type FlowStage } from './flow';
import type { Workflow, WorkflowAgent } from './schema';
import type { Template } from './template';
import { parseTemplate } from './template';

/** What the checks need of the data: each field's longest value, and where that value is. */
export interface DataShape {
  /** Field name → its longest value's length (every row has every field listed). */
  longest: ReadonlyMap<string, number>;
  /** Field name → where its longest value is, for messages (`line 57`); absent for generators. */
  whereLongest?: ReadonlyMap<string, string>;
}

export interface CompiledAgent {
  spec: WorkflowAgent;
  format: Pattern | null;
  /** Its own rule, or null (then its rows carry the team's reward). */
  rule: CompiledRule | null;
  /** Row reward = mix·own + (1 − mix)·team. */
  mix: number;
  /** What its demonstrator answers, where its rule does not say. */
  demo: Template | null;
}

export interface CompiledWorkflow {
  workflow: Workflow;
  stages: FlowStage[];
  agents: ReadonlyMap<string, CompiledAgent>;
  /** The team's rule, and the agent whose last output it judges (null: the last to act). */
  team: { rule: CompiledRule; of: string | null } | null;
  /** The most calls one trajectory can make. */
  maxCalls: number;
}

export type CompileResult = { ok: true; compiled: CompiledWorkflow } | { ok: false; issues: FlowIssue[] };

/** The context a prompt may take: BOS, the prompt, its role token, the answer and EOS must fit. */
const promptRoom = (maxResponse: number) => MAX_CONTEXT - 3 - maxResponse;

export function compileWorkflow(wf: Workflow, data: DataShape): CompileResult {
  const issues: FlowIssue[] = [];
  const names = wf.agents.map((a) => a.name);

  // ---- agents: unique names, none shadowing a field, formats that parse
  const agents = new Map<string, CompiledAgent>();
  wf.agents.forEach((a, i) => {
    if (names.indexOf(a.name) < i)
      issues.push({
        path: ['agents', i, 'name'],
        message: `'${a.name}' is agent ${names.indexOf(a.name)}'s name too`,
      });
    if (data.longest.has(a.name))
      issues.push({
        path: ['agents', i, 'name'],
        message: `'${a.name}' is also a data field: {${a.name}} would be ambiguous; rename the agent`,
      });
    const format = attempt(issues, ['agents', i, 'format'], () =>
      a.format ? compilePattern(a.format) : null,
    );
    const demo = attempt(issues, ['agents', i, 'demo'], () => (a.demo ? parseTemplate(a.demo) : null));
    const written = wf.rewards[a.name];
    const rule = written ? attempt(issues, ['rewards', a.name], () => compileRule(written)) : null;
    const mix = written?.mix ?? (written ? (wf.mix ?? 1) : 0);
    agents.set(a.name, { spec: a, format: format ?? null, rule: rule ?? null, mix, demo: demo ?? null });
  });
  for (const key of Object.keys(wf.rewards))
    if (!names.includes(key))
      issues.push({ path: ['rewards', key], message: `no agent '${key}' (agents: ${names.join(', ')})` });
  const team = wf.team ? attempt(issues, ['team'], () => compileRule(wf.team!)) : null;
  if (!wf.team && Object.keys(wf.rewards).length === 0)
    issues.push({
      path: ['rewards'],
      message: 'no reward: give an agent a rule under rewards, or the team one under team',
    });
  if (wf.team?.agent !== undefined && !names.includes(wf.team.agent))
    issues.push({
      path: ['team', 'agent'],
      message: `no agent '${wf.team.agent}' (agents: ${names.join(', ')})`,
    });

  // ---- the flow: edges, agents, reach and bound
  const { stages, issues: stageIssues } = checkFlow(wf.flow, names);
  issues.push(...stageIssues);

  // ---- which stages are reached, and what has answered before each: only on a sound flow (every
  // edge resolved and forward, every agent known); the checks that need neither go on regardless,
  // so that one refusal lists every mistake it can see.
  const sound = issues.length === 0;
  const reach = sound ? flowReach(stages) : null;
  if (sound && !reach)
    return {
      ok: false,
      issues: [
        { path: ['flow'], message: 'the flow has too many paths to check; use fewer or smaller loops' },
      ],
    };
  stages.forEach((s) => {
    if (reach && !reach.reached.has(s.index))
      issues.push({
        path: ['flow', s.index],
        message: `stage ${s.index}${s.id ? ` ('${s.id}')` : ''} is never reached`,
      });
  });

  // ---- what each template and rule reads exists by then
  const { must, may } = sound
    ? producedBefore(stages)
    : { must: new Map<number, Set<string>>(), may: new Map<number, Set<string>>() };
  const fieldsOrAgents = `fields: ${[...data.longest.keys()].join(', ') || 'none'}; agents: ${names.join(', ')}`;
  const reads = (t: Template, at: number, path: (string | number)[], also: readonly string[] = []) => {
    for (const n of t.names) {
      if (data.longest.has(n)) continue;
      if (!names.includes(n))
        issues.push({ path, message: `{${n}} is neither a field nor an agent (${fieldsOrAgents})` });
      else if (!sound) continue;
      else if (!must.get(at)!.has(n) && !also.includes(n))
        issues.push({
          path,
          message: may.get(at)!.has(n)
            ? `{${n}} may not have answered yet here: read it inside {#${n}}…{/${n}}`
            : `{${n}} has not answered yet here`,
        });
    }
    for (const n of t.guarded) {
      if (data.longest.has(n)) continue;
      if (!names.includes(n))
        issues.push({ path, message: `{#${n}} is neither a field nor an agent (${fieldsOrAgents})` });
      else if (sound && !may.get(at)!.has(n) && !also.includes(n))
        issues.push({ path, message: `{#${n}} never has an answer here` });
    }
  };
  stages.forEach((s) => reads(s.prompt, s.index, ['flow', s.index, 'prompt']));
  for (const [name, a] of agents) {
    const where = stages.filter((s) => s.agents.includes(name));
    if (a.rule)
      for (const s of where) {
        for (const t of a.rule.templates) reads(t, s.index, ['rewards', name], [name]);
        for (const j of a.rule.judges) {
          if (!agents.get(j)?.rule)
            issues.push({
              path: ['rewards', name, 'judges'],
              message: `'${j}' has no rule of its own to be right by`,
            });
          else if (sound && !must.get(s.index)!.has(j))
            issues.push({
              path: ['rewards', name, 'judges'],
              message: `'${j}' has not always answered when ${name} acts in stage ${s.index}`,
            });
        }
      }
    if (a.demo)
      for (const s of where) reads(a.demo, s.index, ['agents', names.indexOf(name), 'demo'], [name]);
  }
  if (team) {
    for (const t of team.templates) reads(t, END, ['team']);
    for (const j of team.judges)
      if (!agents.get(j)?.rule)
        issues.push({ path: ['team', 'judges'], message: `'${j}' has no rule of its own to be right by` });
  }

  // ---- every prompt fits the context, with the longest values
  const lengthOf = (n: string) => data.longest.get(n) ?? agents.get(n)?.spec.maxResponse ?? 0;
  stages.forEach((s) =>
    s.agents.forEach((name) => {
      const a = agents.get(name)?.spec;
      if (!a) return; // no such agent: said above
      const longest = s.prompt.longest(lengthOf) + (a.prompt?.length ?? 0);
      if (longest > promptRoom(a.maxResponse)) {
        const field = s.prompt.names.find((n) => data.whereLongest?.has(n));
        issues.push({
          path: ['flow', s.index, 'prompt'],
          message: `${name}'s prompt can reach ${longest} characters${field ? ` (the longest ${field} is at ${data.whereLongest!.get(field)})` : ''}: with its answer (${a.maxResponse}) it needs ${longest + a.maxResponse + 3} of the context's ${MAX_CONTEXT} tokens`,
        });
      }
    }),
  );
  for (const a of wf.agents)
    if (a.prompt !== undefined && ![...a.prompt].every((ch) => CHARSET.includes(ch)))
      issues.push({
        path: ['agents', names.indexOf(a.name), 'prompt'],
        message: "uses a character outside the lab's set",
      });

  if (issues.length || !reach) return { ok: false, issues };
  return {
    ok: true,
    compiled: {
      workflow: wf,
      stages,
      agents,
      team: team ? { rule: team, of: wf.team!.agent ?? null } : null,
      maxCalls: reach.maxCalls,
    },
  };
}

/** `make()`, or undefined with its error recorded at `path`. */
function attempt<T>(issues: FlowIssue[], path: (string | number)[], make: () => T): T | undefined {
  try {
    return make();
  } catch (e) {
    issues.push({ path, message: (e as Error).message });
    return undefined;
  }
}
