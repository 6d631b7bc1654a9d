/**
 * Fuzzed workflow files and datasets (docs/fuzz.md#workflows-and-datasets): readWorkflow and the
 * flow check on the example workflows edited as JSON (hostile values at real paths, prototype
 * keys), as YAML text (characters inserted and cut), YAML's own hazards (aliases, deep nesting,
 * tags) and random text; readDataset on CSV and JSONL files mutated and random. Every case is
 * accepted or refused with a message naming where; nothing else escapes, and none takes 100 ms.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDataset, readWorkflow } from '../../src/core/workflow/file';
import { expandWorkflow } from '../../src/core/workflow/families';
import { defineWorkflow } from '../../src/tasks/registry';
import { exampleWorkflow } from '../tasks/workflow-examples';
import { fuzz, jsonEdit, NASTY_STRINGS, outcomeOf, RUNS } from './harness';

const EXAMPLES = ['sync-own', 'math', 'relay', 'router', 'judge', 'chain'];
const texts = EXAMPLES.map((n) => readFileSync(`examples/workflows/${n}.yaml`, 'utf8'));
const docs = EXAMPLES.map((n) => exampleWorkflow(n)); // (registers the example datasets)
const FILE_SHA = new Map(docs.flatMap((d) => ('file' in d.data ? [[d.data.file, d.data.sha256]] : [])));

/** Text with up to three edits: characters inserted, cut or replaced. */
const edited = (text: string) =>
  fc
    .array(fc.tuple(fc.nat(text.length), fc.string({ maxLength: 6 }), fc.nat(6)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((edits) =>
      edits.reduce(
        (t, [at, ins, cut]) => t.slice(0, at % (t.length + 1)) + ins + t.slice((at % (t.length + 1)) + cut),
        text,
      ),
    );

const yamlHazards = fc.constantFrom(
  // a billion laughs, a deep nest, a tag, a merge key, a prototype key, a duplicate key
  `a: &a [x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c]`,
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `name: !!js/function "function(){}"`,
  `<<: { name: x }\nagents: []`,
  `__proto__: { polluted: 1 }\nname: x`,
  `name: x\nname: y`,
  `constructor: { prototype: { polluted: 1 } }`,
);

/** Reads a workflow and, if it reads, compiles and checks its flow as training would. */
function readAndCheck(text: string): string {
  let result;
  try {
    result = readWorkflow(text);
  } catch (e) {
    return `readWorkflow threw: ${(e as Error).message}`;
  }
  if (!result.ok) {
    if (result.issues.length === 0 || result.issues.some((i) => !i.where || !i.message))
      return 'a refusal without where or why';
    return 'refused';
  }
  // A data file is named by the hash the example's own read registered, as the CLI fills it in.
  const wf = expandWorkflow(result.value);
  const data =
    'file' in wf.data && !wf.data.sha256 ? { ...wf.data, sha256: FILE_SHA.get(wf.data.file) } : wf.data;
  return outcomeOf(() => defineWorkflow({ ...wf, data } as typeof wf));
}

describe('fuzzed workflow files', () => {
  it(`accepts or refuses each of ${RUNS} workflows, naming where, never crashing`, () => {
    for (const text of texts) expect(readAndCheck(text)).toBe('accepted');
    const workflow = fc.oneof(
      fc.constantFrom(...docs).chain((d) => jsonEdit(d)),
      fc.constantFrom(...texts).chain(edited),
      yamlHazards,
      fc.string({ maxLength: 200 }),
      fc.constantFrom(...NASTY_STRINGS),
    );
    fuzz('workflows', workflow, readAndCheck, (t) => JSON.stringify(t));
  });
});

describe('fuzzed datasets', () => {
  it(`reads or refuses each of ${RUNS} CSV and JSONL files, never throwing`, () => {
    const csv = readFileSync('examples/workflows/router.csv', 'utf8').split('\n').slice(0, 40).join('\n');
    const jsonl = csv
      .split('\n')
      .slice(1)
      .map((l) =>
        JSON.stringify(
          Object.fromEntries(l.split(',').map((v, i) => [['question', 'topic', 'answer'][i], v])),
        ),
      )
      .join('\n');
    const dataset = fc.oneof(
      edited(csv).map((t) => [t, 'd.csv'] as const),
      edited(jsonl).map((t) => [t, 'd.jsonl'] as const),
      fc.tuple(fc.string({ maxLength: 200 }), fc.constantFrom('d.csv', 'd.jsonl', 'd.txt')),
      fc.constantFrom(...NASTY_STRINGS).map((t) => [`word\n${t}\n`, 'd.csv'] as const),
      fc
        .constantFrom('{"__proto__":{"polluted":1},"a":"x"}', '{"constructor":"x"}', '[1,2]', 'null')
        .map((t) => [t, 'd.jsonl'] as const),
    );
    fuzz('datasets', dataset, ([text, name]) => {
      let r;
      try {
        r = readDataset(text, name);
      } catch (e) {
        return `readDataset threw: ${(e as Error).message}`;
      }
      if (r.ok)
        return r.value.rows.every((row) => Object.values(row.fields).every((v) => typeof v === 'string'))
          ? 'accepted'
          : 'a non-text value';
      return r.issues.length > 0 && r.issues.every((i) => i.where && i.message)
        ? 'refused'
        : 'a refusal without where or why';
    });
  });
});
