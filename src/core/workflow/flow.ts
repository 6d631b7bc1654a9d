/**
 * A workflow's flow, compiled: its stages with their edges resolved to indices, the one way a
 * trajectory moves through them (a cursor), and the facts the checks need — which outputs exist
 * before each stage, and the most calls any trajectory can make. Stage kinds are stages.ts's.
 *
 * The cursor is plain data (it lives in a trajectory's state, which crosses to env workers): the
 * stage about to act, which member of a parallel stage, and how many times each loop has gone
 * back. A loop that goes back resets the loops inside it, so nested loops count per pass of the
 * outer one. Pure.
 */
import { parseTemplate, type Template } from './template';
import { stageKind, wordList, type Stage, type StageKind } from './stages';

/** The index that means "the trajectory is over". */
export const END = -1;

export interface FlowStage {
  index: number;
  /** Its id (`id`, or its agent's name where that agent acts in no other stage), or null. */
  id: string | null;
  kind: StageKind;
  /** The agent that acts, or a parallel stage's agents in order. */
  agents: readonly string[];
  prompt: Template;
  /** Where the flow goes after it (call, parallel, a loop that does not go back). */
  next: number;
  loop?: { back: number; words: readonly string[]; goesBackOn: 'match' | 'miss'; max: number };
  route?: { targets: ReadonlyMap<string, number>; otherwise: number };
}

/** Where a trajectory stands in its flow. */
export interface Cursor {
  /** The stage about to act, or END. */
  stage: number;
  /** A parallel stage's member about to act (0 elsewhere). */
  member: number;
  /** Per stage index, the times its loop went back (0 for other stages). */
  back: number[];
}

/** A refusal of the flow: the path into the workflow file and what is wrong there. */
export interface FlowIssue {
  path: (string | number)[];
  message: string;
}

/** Compiles the stages, resolving every id to an index; issues for what does not resolve or parse. */
export function compileStages(stages: readonly Stage[]): { stages: FlowStage[]; issues: FlowIssue[] } {
  const issues: FlowIssue[] = [];
  const agentUses = new Map<string, number>();
  for (const s of stages)
    for (const a of s.parallel ?? [s.agent!]) agentUses.set(a, (agentUses.get(a) ?? 0) + 1);
  const ids = stages.map((s) => s.id ?? (s.agent && agentUses.get(s.agent) === 1 ? s.agent : null));
  ids.forEach((id, i) => {
    const first = ids.indexOf(id);
    if (id !== null && first < i)
      issues.push({ path: ['flow', i, 'id'], message: `stage id '${id}' is stage ${first}'s too` });
  });
  const resolve = (name: string, path: (string | number)[]): number => {
    if (name === 'end') return END;
    const k = ids.indexOf(name);
    if (k >= 0) return k;
    const acts = stages.flatMap((s, i) => ((s.parallel ?? [s.agent]).includes(name) ? [i] : []));
    issues.push({
      path,
      message:
        acts.length > 1
          ? `'${name}' acts in stages ${acts.join(' and ')}: give those stages ids and name one`
          : `no stage '${name}' (stages: ${ids.filter((x) => x !== null).join(', ') || 'none with an id'}; or end)`,
    });
    return END;
  };
  const compiled = stages.map((s, i): FlowStage => {
    let prompt: Template;
    try {
      prompt = parseTemplate(s.prompt);
    } catch (e) {
      issues.push({ path: ['flow', i, 'prompt'], message: (e as Error).message });
      prompt = parseTemplate('');
    }
    const below = i + 1 < stages.length ? i + 1 : END;
    const stage: FlowStage = {
      index: i,
      id: ids[i],
      kind: stageKind(s),
      agents: s.parallel ?? [s.agent!],
      prompt,
      next: s.next === undefined ? below : resolve(s.next, ['flow', i, 'next']),
    };
    if (s.loop) {
      const unresolved = issues.length;
      const back = resolve(s.loop.back, ['flow', i, 'loop', 'back']);
      stage.loop = {
        back,
        words: wordList(s.loop.while ?? s.loop.until),
        goesBackOn: s.loop.while !== undefined ? 'match' : 'miss',
        max: s.loop.max,
      };
      // A name that resolves to no stage is said once, by resolve.
      if (issues.length === unresolved && (back === END || back > i))
        issues.push({
          path: ['flow', i, 'loop', 'back'],
          message: 'a loop goes back to this stage or an earlier one',
        });
    }
    if (s.route) {
      stage.route = {
        targets: new Map(Object.entries(s.route).map(([w, t]) => [w, resolve(t, ['flow', i, 'route', w])])),
        otherwise: s.otherwise === undefined ? END : resolve(s.otherwise, ['flow', i, 'otherwise']),
      };
    }
    // Forward only, outside loops: an edge back could cycle without a bound.
    for (const [to, path] of forwardEdges(stage))
      if (to !== END && to <= i)
        issues.push({
          path: ['flow', i, ...path],
          message: `goes back to stage ${to}${ids[to] ? ` ('${ids[to]}')` : ''}, which could cycle without a bound: go back only through a loop, which has a max`,
        });
    return stage;
  });
  return { stages: compiled, issues };
}

/**
 * The stages compiled (compileStages), with every mistake the flow shows without the data: an id
 * or edge that does not resolve, an edge back outside a loop, a prompt that does not parse; and,
 * given the agents' names (null where they are not known), a stage naming no agent and an agent
 * acting in no stage. compileWorkflow checks the rest; a file the schema refuses is still checked
 * this far where its flow parsed (readWorkflow), so one refusal names these mistakes too.
 */
export function checkFlow(
  flow: readonly Stage[],
  names: readonly string[] | null,
): { stages: FlowStage[]; issues: FlowIssue[] } {
  const { stages, issues } = compileStages(flow);
  if (!names) return { stages, issues };
  stages.forEach((s) =>
    s.agents.forEach((a, k) => {
      if (!names.includes(a))
        issues.push({
          path: [
            'flow',
            s.index,
            s.kind === 'parallel' ? 'parallel' : 'agent',
            ...(s.kind === 'parallel' ? [k] : []),
          ],
          message: `no agent '${a}' (agents: ${names.join(', ')})`,
        });
    }),
  );
  const acting = new Set(stages.flatMap((s) => s.agents));
  names.forEach((name, i) => {
    if (!acting.has(name))
      issues.push({ path: ['agents', i], message: `'${name}' acts in no stage of the flow` });
  });
  return { stages, issues };
}

/** A stage's edges that must point forward, with the path of the key that made each. */
function forwardEdges(s: FlowStage): [number, string[]][] {
  if (s.route)
    return [
      ...[...s.route.targets].map(([w, t]): [number, string[]] => [t, ['route', w]]),
      [s.route.otherwise, ['otherwise']],
    ];
  return [[s.next, ['next']]];
}

// ---- the one way a trajectory moves ----

/** A loop stage with no pass left is skipped: its answer could no longer send the flow back. */
function settle(stages: readonly FlowStage[], c: Cursor): Cursor {
  let stage = c.stage;
  while (stage !== END) {
    const loop = stages[stage].loop;
    if (!loop || c.back[stage] + 1 < loop.max) break;
    stage = stages[stage].next;
  }
  return stage === c.stage ? c : { ...c, stage, member: 0 };
}

/** The cursor of a fresh trajectory. */
export function startCursor(stages: readonly FlowStage[]): Cursor {
  return settle(stages, { stage: 0, member: 0, back: stages.map(() => 0) });
}

/** The stage and agent about to act, or null when the trajectory is over. */
export function actingNow(
  stages: readonly FlowStage[],
  c: Cursor,
): { stage: FlowStage; agent: string } | null {
  if (c.stage === END) return null;
  const stage = stages[c.stage];
  return { stage, agent: stage.agents[c.member] };
}

/** Where the flow goes once the acting agent answered `output`. */
export function moveOn(stages: readonly FlowStage[], c: Cursor, output: string): Cursor {
  const s = stages[c.stage];
  if (s.kind === 'parallel' && c.member + 1 < s.agents.length) return { ...c, member: c.member + 1 };
  if (s.loop) {
    const matched = s.loop.words.includes(output);
    if (matched === (s.loop.goesBackOn === 'match')) {
      const back = c.back.map((n, t) => (t >= s.loop!.back && t < s.index ? 0 : n));
      back[s.index] = c.back[s.index] + 1;
      return settle(stages, { stage: s.loop.back, member: 0, back });
    }
  }
  const to = s.route ? (s.route.targets.get(output) ?? s.route.otherwise) : s.next;
  return settle(stages, { ...c, stage: to, member: 0 });
}

// ---- what the checks need ----

/** Every cursor a trajectory can reach, with the cursors each can move to (answers unknown). */
function successors(stages: readonly FlowStage[], c: Cursor): Cursor[] {
  const s = stages[c.stage];
  const answers = new Set<string>(['\u0000']); // an answer no stage names: the default way
  if (s.loop) for (const w of s.loop.words) answers.add(w);
  if (s.route) for (const w of s.route.targets.keys()) answers.add(w);
  const out = new Map<string, Cursor>();
  for (const a of answers) {
    const n = moveOn(stages, c, a);
    out.set(JSON.stringify(n), n);
  }
  return [...out.values()];
}

/** The bound on the states explored (a flow with more is refused as too large to check). */
const MAX_CURSORS = 50_000;

/**
 * The most calls a trajectory can make, and the stages it can reach; null if the flow has more
 * reachable cursors than MAX_CURSORS.
 */
export function flowReach(stages: readonly FlowStage[]): { maxCalls: number; reached: Set<number> } | null {
  const longest = new Map<string, number>();
  const reached = new Set<number>();
  let explored = 0;
  const visit = (c: Cursor): number => {
    if (c.stage === END) return 0;
    const key = JSON.stringify(c);
    const known = longest.get(key);
    if (known !== undefined) return known;
    if (++explored > MAX_CURSORS) throw new RangeError('too many states');
    reached.add(c.stage);
    // Every loop bound is finite and every other edge goes forward, so this recursion ends.
    const n = 1 + Math.max(...successors(stages, c).map(visit));
    longest.set(key, n);
    return n;
  };
  try {
    return { maxCalls: visit(startCursor(stages)), reached };
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
}

/**
 * Which agents have answered before each stage acts: on every path (`must`: an unguarded `{agent}`
 * needs it) and on some path (`may`: a section `{#agent}` needs it). Index END is the trajectory's
 * end, where the team's rule is judged. A forward dataflow over the stage graph, where a loop
 * stage also has the edge of its skip (it produces nothing then).
 */
export function producedBefore(stages: readonly FlowStage[]): {
  must: Map<number, Set<string>>;
  may: Map<number, Set<string>>;
} {
  const nodes = [...stages.map((s) => s.index), END];
  const all = new Set(stages.flatMap((s) => s.agents));
  const edges: [number, number, readonly string[]][] = stages.flatMap((s) => {
    const made = s.agents;
    const to = s.route ? [...s.route.targets.values(), s.route.otherwise] : [s.next];
    const out: [number, number, readonly string[]][] = to.map((t) => [s.index, t, made]);
    if (s.loop) out.push([s.index, s.loop.back, made], [s.index, s.next, []]);
    return out;
  });
  const must = new Map(nodes.map((n): [number, Set<string>] => [n, n === 0 ? new Set() : new Set(all)]));
  const may = new Map(nodes.map((n): [number, Set<string>] => [n, new Set()]));
  for (let changed = true; changed;) {
    changed = false;
    for (const n of nodes) {
      const incoming = edges.filter(([, to]) => to === n);
      const mustIn = incoming.map(([from, , made]) => new Set([...must.get(from)!, ...made]));
      if (n === 0) mustIn.push(new Set()); // the trajectory's start, where nobody has answered
      const nextMust = mustIn.length
        ? mustIn.reduce((a, b) => new Set([...a].filter((x) => b.has(x))))
        : new Set<string>();
      const nextMay = new Set(incoming.flatMap(([from, , made]) => [...may.get(from)!, ...made]));
      if (nextMust.size !== must.get(n)!.size || nextMay.size !== may.get(n)!.size) changed = true;
      must.set(n, nextMust);
      may.set(n, nextMay);
    }
  }
  return { must, may };
}
