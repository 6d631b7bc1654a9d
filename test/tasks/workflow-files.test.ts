/**
 * Workflow files as the page is given them (src/tasks/workflow-files.ts, run in the page's reader
 * worker): the examples read with their datasets, and each way a pair of files can be wrong refused
 * naming the file and its line, stage or field.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/sha256';
import { expandWorkflow } from '../../src/core/workflow/families';
import { defineTransitions, getTask, workflowRef } from '../../src/tasks/registry';
import { readWorkflowFiles, type GivenFile } from '../../src/tasks/workflow-files';

const file = (name: string, text?: string): GivenFile => {
  const bytes = text === undefined ? readFileSync(`examples/workflows/${name}`) : Buffer.from(text);
  return { name, bytes: new Uint8Array(bytes).buffer };
};
const issuesOf = (r: ReturnType<typeof readWorkflowFiles>) =>
  r.ok ? [] : r.issues.map((i) => `${i.file} ${i.where}: ${i.message}`);

describe('workflow files read as the page reads them', () => {
  it('reads the relay and its dataset, naming the data by its SHA-256, and its shape defines the task', () => {
    const r = readWorkflowFiles({ workflow: file('relay.yaml'), data: file('relay.csv') });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.rows).toBe(600);
    const wf = expandWorkflow(r.workflow);
    expect(wf.data).toEqual({
      file: 'relay.csv',
      sha256: sha256Hex(new Uint8Array(readFileSync('examples/workflows/relay.csv'))),
    });
    expect(r.longest.map(([f]) => f)).toEqual(['word']);
    // What the page does with the answer: the task, without its rows, names the agents.
    const ref = workflowRef(wf);
    defineTransitions({ ref, workflow: wf, longest: r.longest });
    expect(getTask(ref).agents.map((a) => a.role)).toEqual(['ann', 'ben', 'cal']);
    // A generator's workflow needs no file.
    const math = readWorkflowFiles({ workflow: file('math.yaml'), data: null });
    expect(math.ok && math.rows).toBe(null);
  });

  it('refuses, naming the file and the place: a bad workflow, a missing or wrong dataset, a bad row', () => {
    const relay = readFileSync('examples/workflows/relay.yaml', 'utf8');
    expect(issuesOf(readWorkflowFiles({ workflow: file('relay.yaml'), data: null }))).toEqual([
      'relay.yaml data.file: reads relay.csv: give that file too (pick or drop both)',
    ]);
    expect(
      issuesOf(
        readWorkflowFiles({
          workflow: file('relay.yaml', relay.replace('mix: 0.5', 'mixx: 0.5')),
          data: null,
        }),
      ),
    ).toEqual(['relay.yaml line 27, mixx: unknown field; did you mean mix?']);
    expect(
      issuesOf(
        readWorkflowFiles({
          workflow: file('relay.yaml'),
          data: file('relay.csv', 'word,split\nhona,val\nPUG,train\n'),
        }),
      ),
    ).toEqual([
      `relay.csv line 3, field "word": "P" is outside the lab's character set (a–z, 0–9, space and .,:;?!=+-*/%()[]<>_|#'")`,
    ]);
    // A rule that reads a field the rows lack, named at the first row without it.
    expect(
      issuesOf(
        readWorkflowFiles({
          workflow: file('relay.yaml', relay.replace('file: relay.csv', 'file: relay.jsonl')),
          data: file('relay.jsonl', '{"word":"hona"}\n{"wrd":"pug"}\n'),
        }),
      ),
    ).toEqual([`relay.jsonl line 2: no field 'word', which the workflow reads (every row needs it)`]);
    // Rows lacking it here and there: how many, the first five by line, at the first.
    const rows = Array.from({ length: 20 }, (_, i) => ([3, 6, 7, 10, 14, 15, 19].includes(i) ? 'x' : 'pug'));
    expect(
      issuesOf(
        readWorkflowFiles({
          workflow: file('relay.yaml', relay.replace('file: relay.csv', 'file: relay.jsonl')),
          data: file(
            'relay.jsonl',
            rows.map((r) => (r === 'x' ? '{"wrd":"pug"}' : '{"word":"pug"}')).join('\n'),
          ),
        }),
      ),
    ).toEqual([
      `relay.jsonl line 4: no field 'word' in 7 of 20 rows (line 4, line 7, line 8, line 11, line 15 and 2 more), which the workflow reads (every row needs it)`,
    ]);
    // A workflow that names its dataset's SHA-256 takes only that file.
    const named = relay.replace('file: relay.csv', `file: relay.csv\n  sha256: ${'f'.repeat(64)}`);
    expect(
      issuesOf(readWorkflowFiles({ workflow: file('relay.yaml', named), data: file('relay.csv') })),
    ).toEqual([
      `relay.csv the file: is not the dataset relay.yaml names: its SHA-256 is ${sha256Hex(new Uint8Array(readFileSync('examples/workflows/relay.csv'))).slice(0, 16)}…, the workflow's relay.csv is ffffffffffffffff…`,
    ]);
    expect(issuesOf(readWorkflowFiles({ workflow: file('math.yaml'), data: file('relay.csv') }))).toEqual([
      'relay.csv the file: math.yaml reads no dataset file (its data is the math generator)',
    ]);
    // A flow that cannot train is refused before anything trains, naming the stage and its line.
    const unreached = relay.replace("prompt: '{ann}<'", "prompt: '{cal}<'");
    expect(
      issuesOf(readWorkflowFiles({ workflow: file('relay.yaml', unreached), data: file('relay.csv') })),
    ).toEqual(['relay.yaml line 19, flow.1.prompt: {cal} has not answered yet here']);
    // A rule that reads a field the data lacks: by the rule, and its line.
    const unread = relay.replace(
      "ben: { rule: exact, expect: '{ann|reverse}' }",
      "ben: { rule: exact, expect: '{wrd}' }",
    );
    expect(
      issuesOf(readWorkflowFiles({ workflow: file('relay.yaml', unread), data: file('relay.csv') })),
    ).toEqual([
      'relay.yaml line 24, rewards.ben: {wrd} is neither a field nor an agent (fields: word; agents: ann, ben, cal)',
    ]);
  });
});
