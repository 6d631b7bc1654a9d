/**
 * The workflow file's languages and checks, pure: patterns, templates, the flow's moves and
 * bounds, and every refusal a user can meet, each naming its line, stage or field.
 */
import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/core/prng';
import { compilePattern } from '../../src/core/workflow/pattern';
import { parseTemplate } from '../../src/core/workflow/template';
import { readDataset, readWorkflow } from '../../src/core/workflow/file';
import { expandWorkflow } from '../../src/core/workflow/families';
import { DATA_LIMITS } from '../../src/core/workflow/schema';
import { defineWorkflow, getTask } from '../../src/tasks/registry';
import { WorkflowRefused } from '../../src/tasks/workflow';
import type { WorkflowState } from '../../src/tasks/workflow';

/** A small workflow as YAML text, with `patch` replacing a line. */
const RELAY = `name: tiny
agents:
  - { name: ann, maxResponse: 6, format: 'letter{1,6}' }
  - { name: ben, maxResponse: 6 }
data:
  rows:
    - { word: abc, answer: cba }
    - { word: dog, answer: god }
    - { word: tap, answer: pat, split: val }
flow:
  - agent: ann
    prompt: '{word}'
  - agent: ben
    prompt: '{ann}'
rewards:
  ann: { rule: exact, expect: '{word}' }
  ben: { rule: exact, expect: '{answer}' }
`;

const read = (text: string) => {
  const r = readWorkflow(text);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return expandWorkflow(r.value);
};
const issues = (text: string) => {
  const r = readWorkflow(text);
  return r.ok ? [] : r.issues.map((i) => `${i.where}: ${i.message}`);
};
const refusal = (text: string) => {
  try {
    defineWorkflow(read(text));
  } catch (e) {
    if (e instanceof WorkflowRefused) return e.message;
    throw e;
  }
  return 'accepted';
};

describe('patterns', () => {
  it('match whole outputs by classes, literals, counts and alternatives', () => {
    const p = compilePattern("'-'? digit{1,4}");
    expect(['7', '-12', '1234'].map((s) => p.matches(s))).toEqual([true, true, true]);
    expect(['', '12345', '1-2', '+3', ' 1'].map((s) => p.matches(s))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    const w = compilePattern("letter+ (' ' letter+)* | 'yes'");
    expect(['ab cd', 'yes', 'a', 'ab  cd', 'ab '].map((s) => w.matches(s))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('draw strings they match', () => {
    for (const text of ["'-'? digit{1,4}", "letter{2,5} ' ' digit", "'yes' | 'no'", 'any{0,3}']) {
      const p = compilePattern(text);
      for (let s = 0; s < 50; s++) expect(p.matches(p.sample(new Prng(s))), text).toBe(true);
    }
  });

  it('refuse what is not a pattern, saying where, and stay linear on a nested repeat', () => {
    expect(() => compilePattern('lettr{1,3}')).toThrow(
      "'lettr' is not a class (letter, digit, space, any); quote literal text: 'lettr'",
    );
    expect(() => compilePattern("'abc")).toThrow('unclosed quote at character 1');
    expect(() => compilePattern('digit{3,1}')).toThrow('{3,1} counts down');
    expect(() => compilePattern('digit{1,999}')).toThrow('a count is at most 128');
    expect(() => compilePattern('(any{100}){100}')).toThrow('the pattern is too large');
    const evil = compilePattern('(letter*)*');
    const t0 = performance.now();
    expect(evil.matches('a'.repeat(60) + '1')).toBe(false);
    expect(performance.now() - t0).toBeLessThan(100);
  });
});

describe('templates', () => {
  it('render fields, filters and sections, and say which names they need', () => {
    const t = parseTemplate('{question}{#solver}={solver|reverse} no{/solver}{^solver}?{/solver}');
    expect(t.names).toEqual(['question']);
    expect(t.guarded).toEqual(['solver']);
    const values: Record<string, string> = { question: '3+4' };
    expect(t.render((n) => values[n])).toBe('3+4?');
    values.solver = '21';
    expect(t.render((n) => values[n])).toBe('3+4=12 no');
    expect(t.longest((n) => (n === 'question' ? 5 : 4))).toBe(5 + 1 + 4 + 3 + 1);
  });

  it('refuse what is not a template', () => {
    expect(() => parseTemplate('{a')).toThrow("'{' without '}'");
    expect(() => parseTemplate('{#a}x')).toThrow('{#a} is never closed with {/a}');
    expect(() => parseTemplate('{a|upper}')).toThrow("'upper' is not a filter (first, last, reverse, trim)");
    expect(() => parseTemplate('Héllo')).toThrow("'H' is not in the lab's character set");
  });
});

describe('a workflow read and checked', () => {
  it('reads YAML and JSON alike', () => {
    const wf = read(RELAY);
    expect(read(JSON.stringify(wf))).toEqual(wf);
    expect(wf.invalidPenalty).toBe(0);
  });

  it('refuses a malformed file, an unknown key with a hint, and a newer version, by line', () => {
    expect(issues('name: x\nagents: [\n')[0]).toMatch(/^line \d+: /);
    expect(issues(RELAY.replace('maxResponse: 6 }', 'maxResponce: 6 }'))).toContain(
      'line 4, agents.1.maxResponce: unknown field; did you mean maxResponse?',
    );
    expect(
      issues(RELAY.replace("{ rule: exact, expect: '{answer}' }", '{ rule: exakt, expect: x }'))[0],
    ).toMatch(
      /^line 17, rewards\.ben\.rule: must be one of exact, contains, number, verdict, route, format, length, all$/,
    );
    expect(issues(`version: 2\n${RELAY}`)).toEqual([
      'version: version 2 is newer than this lab reads (1): update the lab',
    ]);
    // A line indented one step too far: YAML's grammar words, with what to check.
    const shifted = issues(
      RELAY.replace("  - agent: ben\n    prompt: '{ann}'", "  - agent: ben\n      prompt: '{ann}'"),
    );
    expect(shifted[0]).toMatch(
      /^line 1[34]: .+ \(YAML reads the structure from the indentation: check that this line and the next line up with their siblings, with spaces, not tabs\)$/,
    );
    expect(issues(RELAY.replace('word: abc, answer: cba', 'word: abc, answer: 12'))).toContain(
      "line 7, data.rows.0.answer: expected text, got the number 12: put it in quotes ('12')",
    );
  });

  it('refuses a character outside the set, naming the row and field', () => {
    expect(issues(RELAY.replace('word: dog', 'word: Dog'))[0]).toMatch(
      /data\.rows\.1\.word: uses a character outside the lab's set/,
    );
  });

  it('refuses a flow that could cycle without a bound, naming the stage', () => {
    expect(refusal(RELAY.replace("prompt: '{ann}'", "prompt: '{ann}'\n    next: ann"))).toContain(
      "flow.1.next: goes back to stage 0 ('ann'), which could cycle without a bound: go back only through a loop, which has a max",
    );
  });

  it('refuses unknown names, outputs read before they exist, and unreached stages', () => {
    expect(refusal(RELAY.replace("prompt: '{word}'", "prompt: '{wrod}'"))).toContain(
      'flow.0.prompt: {wrod} is neither a field nor an agent (fields: word, answer; agents: ann, ben)',
    );
    expect(refusal(RELAY.replace("prompt: '{word}'", "prompt: '{ben}'"))).toContain(
      'flow.0.prompt: {ben} has not answered yet here',
    );
    expect(refusal(RELAY.replace("prompt: '{word}'", "prompt: '{word}'\n    next: end"))).toContain(
      "flow.1: stage 1 ('ben') is never reached",
    );
    expect(refusal(RELAY.replace('{ name: ann, maxResponse: 6', '{ name: cal, maxResponse: 6'))).toContain(
      "flow.0.agent: no agent 'ann' (agents: cal, ben)",
    );
  });

  it('names every mistake a file has, not only the first: two in its schema, or two in its flow', () => {
    expect(
      issues(RELAY.replace('name: tiny', 'name: Tiny').replace('maxResponse: 6 }', "maxResponse: 'six' }")),
    ).toEqual([
      'line 1, name: lower-case letters, digits and -, at most 24',
      'line 4, agents.1.maxResponse: expected number',
    ]);
    const lines = (text: string) => refusal(text).split('\n').slice(1);
    // A rule for no agent and a prompt reading no one: the rule's refusal does not hide the prompt's.
    expect(
      lines(RELAY.replace("prompt: '{ann}'", "prompt: '{an}'").replace('ben: { rule', 'bem: { rule')),
    ).toEqual([
      "  rewards.bem: no agent 'bem' (agents: ann, ben)",
      '  flow.1.prompt: {an} is neither a field nor an agent (fields: word, answer; agents: ann, ben)',
    ]);
    // An edge to no stage is said once (not again as a loop that goes nowhere), beside the prompt's.
    expect(lines(RELAY.replace("prompt: '{word}'", "prompt: '{wrod}'\n    next: bne"))).toEqual([
      "  flow.0.next: no stage 'bne' (stages: ann, ben; or end)",
      '  flow.0.prompt: {wrod} is neither a field nor an agent (fields: word, answer; agents: ann, ben)',
    ]);
    const loop = RELAY.replace(
      "prompt: '{ann}'",
      "prompt: '{ann}'\n    loop: { back: an, until: x, max: 2 }",
    );
    expect(lines(loop)).toEqual(["  flow.1.loop.back: no stage 'an' (stages: ann, ben; or end)"]);
  });

  it("names the flow's mistakes beside the schema's where the flow itself parsed", () => {
    // A bad name (the schema's) no longer hides an edge to no stage and an edge back (the flow's).
    const text = RELAY.replace('name: tiny', 'name: Tiny')
      .replace("prompt: '{word}'", "prompt: '{word}'\n    next: bne")
      .replace("prompt: '{ann}'", "prompt: '{ann}'\n    next: ann");
    expect(issues(text)).toEqual([
      'line 1, name: lower-case letters, digits and -, at most 24',
      "line 13, flow.0.next: no stage 'bne' (stages: ann, ben; or end)",
      "line 16, flow.1.next: goes back to stage 0 ('ann'), which could cycle without a bound: go back only through a loop, which has a max",
    ]);
    // With the agents parsed, a stage naming no agent and an agent acting nowhere; a schema
    // refusal in the flow itself leaves the flow unchecked.
    expect(issues(RELAY.replace('name: tiny', 'name: Tiny').replace('agent: ben', 'agent: bem'))).toEqual([
      'line 1, name: lower-case letters, digits and -, at most 24',
      "line 13, flow.1.agent: no agent 'bem' (agents: ann, ben)",
      "line 4, agents.1: 'ben' acts in no stage of the flow",
    ]);
    expect(issues(RELAY.replace('name: tiny', 'name: Tiny').replace("prompt: '{ann}'", 'prompt: 7'))).toEqual(
      [
        'line 1, name: lower-case letters, digits and -, at most 24',
        "line 14, flow.1.prompt: expected text, got the number 7: put it in quotes ('7')",
      ],
    );
  });

  it('refuses a rule that names a field the data lacks, naming the row', () => {
    const text = RELAY.replace('- { word: dog, answer: god }', '- { word: dog }');
    expect(refusal(text)).toContain(
      "data.rows.1: no field 'answer', which the workflow reads (every row needs it)",
    );
    // Each field some rows lack, with how many and which.
    const bare = RELAY.replace('- { word: dog, answer: god }', '- { split: train }').replace(
      '- { word: tap, answer: pat, split: val }',
      '- { word: tap, split: val }',
    );
    expect(refusal(bare).split('\n').slice(1)).toEqual([
      "  data.rows.1: no field 'word', which the workflow reads (every row needs it)",
      "  data.rows.1: no field 'answer' in 2 of 3 rows (data.rows.1, data.rows.2), which the workflow reads (every row needs it)",
    ]);
  });

  it('refuses a prompt over the context, saying where the longest value is', () => {
    const text = RELAY.replace('word: dog', `word: ${'x'.repeat(120)}`);
    expect(refusal(text)).toContain(
      "flow.0.prompt: ann's prompt can reach 120 characters (the longest word is at data.rows.1): with its answer (6) it needs 129 of the context's 128 tokens",
    );
  });
});

describe('datasets', () => {
  it('read CSV with quoted fields and JSONL, naming a bad row by line and field', () => {
    const csv = readDataset('word,answer\n"a, b",x\nabc,cba\n', 'd.csv');
    expect(csv.ok && csv.value.rows.map((r) => [r.line, r.fields.word])).toEqual([
      [2, 'a, b'],
      [3, 'abc'],
    ]);
    expect(readDataset('word,answer\nabc\n', 'd.csv')).toEqual({
      ok: false,
      issues: [{ where: 'line 2', message: '1 cells; the header has 2' }],
    });
    expect(readDataset('{"word":"a"}\n{"word":7}\n', 'd.jsonl')).toEqual({
      ok: false,
      issues: [
        {
          where: 'line 2, field "word"',
          message: 'a number (7); write it as text, "7", so nothing is lost (0012 would read as 12)',
        },
      ],
    });
    expect(readDataset('word\nAbc\n', 'd.csv')).toMatchObject({
      ok: false,
      issues: [{ where: 'line 2, field "word"' }],
    });
    expect(readDataset('word,split\nabc,test\n', 'd.csv')).toMatchObject({
      ok: false,
      issues: [{ message: 'split is train or val, not "test"' }],
    });
  });

  it('refuse 50,001 rows and a file over 5 MB', () => {
    const rows = Array.from({ length: DATA_LIMITS.rows + 1 }, (_, i) => `w${i}`).join('\n');
    expect(readDataset(`word\n${rows}\n`, 'd.csv')).toMatchObject({
      ok: false,
      issues: [{ message: 'over 50000 rows, the limit' }],
    });
    const big = `word\n${'abcdefghij\n'.repeat(600_000)}`;
    expect(readDataset(big, 'd.csv')).toEqual({
      ok: false,
      issues: [{ where: 'the file', message: 'over 5 MB, the limit' }],
    });
    expect(readWorkflow(`# ${'x'.repeat(6 * 1024 * 1024)}`)).toEqual({
      ok: false,
      issues: [{ where: 'the file', message: 'over 5 MB, the limit' }],
    });
  });
});

describe('the flow, run', () => {
  const play = (text: string, answers: Record<string, string[]>, row = 0) => {
    const task = getTask(defineWorkflow(read(text)));
    const instance = task.pool!.train[row] ?? task.pool!.val[0];
    let state = task.init(instance) as WorkflowState;
    const said: string[] = [];
    const count: Record<string, number> = {};
    for (let call = task.next(state); call; call = task.next(state)) {
      const k = (count[call.agent] = (count[call.agent] ?? 0) + 1) - 1;
      said.push(`${call.agent}:${call.prompt.slice(0, -1)}`);
      state = task.step(state, call.agent, answers[call.agent][k]).state as WorkflowState;
    }
    return { said, outcome: state.outcome! };
  };

  it('routes by the answer, runs parallel agents on one prompt, and loops at most max times', () => {
    const routed = `name: r
agents: [{ name: hub, maxResponse: 1 }, { name: a, maxResponse: 2 }, { name: b, maxResponse: 2 }]
data: { rows: [{ q: xy }, { q: zz, split: val }] }
flow:
  - { agent: hub, prompt: '{q}', route: { a: a, b: b } }
  - { agent: a, prompt: 'a{q}', next: end }
  - { agent: b, prompt: 'b{q}' }
team: { rule: exact, expect: ok }
`;
    expect(play(routed, { hub: ['b'], a: [], b: ['ok'] }).said).toEqual(['hub:xy', 'b:bxy']);
    expect(play(routed, { hub: ['a'], a: ['no'], b: [] }).said).toEqual(['hub:xy', 'a:axy']);
    expect(play(routed, { hub: ['?'], a: [], b: [] }).said).toEqual(['hub:xy']);
    const loop = `name: l
agents: [{ name: s, maxResponse: 2 }, { name: v, maxResponse: 3 }, { name: p, maxResponse: 2 }, { name: q, maxResponse: 2 }]
data: { rows: [{ x: ab }, { x: cd, split: val }] }
flow:
  - { parallel: [p, q], prompt: '{x}' }
  - { agent: s, prompt: '{p}{q}{#s}/{s}{/s}' }
  - { agent: v, prompt: '{s}', loop: { back: s, until: yes, max: 3 } }
team: { rule: exact, expect: '{x}', agent: s }
`;
    const r = play(loop, { p: ['1'], q: ['2'], s: ['a', 'b', 'ab'], v: ['no', 'hm'] });
    expect(r.said).toEqual(['p:ab', 'q:ab', 's:12', 'v:a', 's:12/a', 'v:b', 's:12/b']);
    expect(r.outcome).toMatchObject({ success: true, reward: 1 });
  });

  it('mix = 0 gives every row the team reward exactly; mix = 1 each its own', () => {
    const text = (mix: number) =>
      `${RELAY}mix: ${mix}\nteam: { rule: exact, expect: '{answer}', agent: ben }\n`;
    // ann right, ben wrong: own rewards 1 and 0, the team's 0.
    expect(play(text(0), { ann: ['abc'], ben: ['abc'] }).outcome.callRewards).toEqual([0, 0]);
    expect(play(text(1), { ann: ['abc'], ben: ['abc'] }).outcome.callRewards).toEqual([1, 0]);
    expect(play(text(0.5), { ann: ['abc'], ben: ['abc'] }).outcome.callRewards).toEqual([0.5, 0]);
    expect(play(text(0), { ann: ['xyz'], ben: ['cba'] }).outcome).toMatchObject({
      success: true,
      callRewards: [1, 1],
      agentSuccess: { ann: false, ben: true },
    });
  });
});
