/**
 * Reading a workflow file and its dataset from text, in the page and the CLI alike, with every
 * refusal naming its line. A workflow is JSON or YAML, read by the `yaml` package (JSON is YAML
 * 1.2, so one reader gives both their line numbers); a dataset is CSV with a header row (papaparse)
 * or JSONL. Nothing in either is evaluated: values are strings, numbers and booleans, and the zod
 * schema decides what they mean. Limits are checked before anything else (docs/workflows.md#data).
 * Pure.
 */
import Papa from 'papaparse';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { nearest } from '../config-suggest';
import { hashString } from '../prng';
import { CHARSET } from '../vocab';
import type { DataShape } from './compile';
import { DATA_LIMITS, WorkflowSchema, WORKFLOW_VERSION } from './schema';
import { FamilyRefSchema, type WorkflowSpec } from './families';
import { checkFlow } from './flow';

/** One refusal: where (a line, a path into the file) and why. */
export interface FileIssue {
  /** `line 12`, `line 12, field answer`, or the path where no line is known. */
  where: string;
  message: string;
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; issues: FileIssue[] };

/** The longest workflow file read (inline rows included): the data's limit. */
export const MAX_WORKFLOW_BYTES = DATA_LIMITS.bytes;

/** Issues as one message, at most `max` of them listed. */
export function describeIssues(file: string, issues: readonly FileIssue[], max = 8): string {
  const shown = issues.slice(0, max).map((i) => `  ${i.where}: ${i.message}`);
  const more = issues.length > max ? [`  … and ${issues.length - max} more`] : [];
  return [`${file} is refused:`, ...shown, ...more].join('\n');
}

const tooBig = (text: string): FileIssue | null =>
  text.length > DATA_LIMITS.bytes || new TextEncoder().encode(text).length > DATA_LIMITS.bytes
    ? { where: 'the file', message: `over ${DATA_LIMITS.bytes / 1024 / 1024} MB, the limit` }
    : null;

/** The deepest a workflow nests `[` and `{` (a real one nests under 10): the parser recurses. */
const MAX_DEPTH = 64;
/** Refused where `[` and `{` nest deeper than MAX_DEPTH (the parsers recurse). */
export function tooDeep(text: string): FileIssue | null {
  let depth = 0;
  let line = 1;
  for (const ch of text) {
    if (ch === '\n') line++;
    else if (ch === '[' || ch === '{') {
      if (++depth > MAX_DEPTH)
        return { where: `line ${line}`, message: `nested more than ${MAX_DEPTH} deep` };
    } else if ((ch === ']' || ch === '}') && depth > 0) depth--;
  }
  return null;
}

/**
 * The parser's errors that a misplaced indent causes: it names them by YAML's grammar ("Nested
 * mappings are not allowed in compact mappings"), and often a line before the one indented wrong.
 */
const INDENT_ERRORS = new Set([
  'BAD_INDENT',
  'BLOCK_AS_IMPLICIT_KEY',
  'MULTILINE_IMPLICIT_KEY',
  'MISSING_CHAR',
  'TAB_AS_INDENT',
  'UNEXPECTED_TOKEN',
]);
const INDENT_HINT =
  ' (YAML reads the structure from the indentation: check that this line and the next line up with their siblings, with spaces, not tabs)';

/** Reads and validates a workflow file's text (JSON or YAML). */
export function readWorkflow(text: string): ReadResult<WorkflowSpec> {
  const big = tooBig(text);
  if (big) return { ok: false, issues: [big] };
  const deep = tooDeep(text);
  if (deep) return { ok: false, issues: [deep] };
  const lines = new LineCounter();
  let doc;
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  } catch (e) {
    // The parser recurses: a file nested thousands deep overflows the stack instead of parsing.
    return {
      ok: false,
      issues: [{ where: 'the file', message: `cannot be read (${(e as Error).message.slice(0, 120)})` }],
    };
  }
  const lineAt = (offset: number) => `line ${lines.linePos(offset).line}`;
  if (doc.errors.length)
    return {
      ok: false,
      issues: doc.errors.slice(0, 8).map((e) => ({
        where: lineAt(e.pos[0]),
        message: e.message.split('\n')[0] + (INDENT_ERRORS.has(e.code) ? INDENT_HINT : ''),
      })),
    };
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, issues: [{ where: 'the file', message: (e as Error).message.slice(0, 200) }] };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return {
      ok: false,
      issues: [{ where: 'line 1', message: 'a workflow is a mapping: name, agents, data, flow, rewards' }],
    };
  const version = (raw as { version?: unknown }).version;
  if (typeof version === 'number' && version > WORKFLOW_VERSION)
    return {
      ok: false,
      issues: [
        {
          where: 'version',
          message: `version ${version} is newer than this lab reads (${WORKFLOW_VERSION}): update the lab`,
        },
      ],
    };
  // A family's file is judged as one (its `family` key says so), any other as a whole workflow:
  // each refusal then speaks of the fields the writer meant.
  const parsed = ('family' in raw ? FamilyRefSchema : WorkflowSchema).safeParse(
    raw,
  ) as z.ZodSafeParseResult<WorkflowSpec>;
  if (parsed.success) return { ok: true, value: parsed.data };
  const lineOf = (path: readonly PropertyKey[]) => nodeLine(doc.contents, path, lineAt);
  const flow = 'family' in raw ? [] : flowMistakes(raw, lineOf);
  return { ok: false, issues: [...zodIssues(parsed.error, lineOf, raw), ...flow] };
}

/**
 * A workflow the schema refused, checked as far as its flow goes where that section (and, for the
 * agents it names, the agents section) parsed on its own: the flow's mistakes (checkFlow), so the
 * schema's refusal does not hide them until it is fixed.
 */
function flowMistakes(raw: object, lineOf: (path: readonly PropertyKey[]) => string | null): FileIssue[] {
  const { flow, agents } = raw as { flow?: unknown; agents?: unknown };
  const stages = WorkflowSchema.shape.flow.safeParse(flow);
  if (!stages.success) return [];
  const named = WorkflowSchema.shape.agents.safeParse(agents);
  const names = named.success ? named.data.map((a) => a.name) : null;
  return checkFlow(stages.data, names).issues.map((i) => ({
    where: placeOf(i.path, lineOf),
    message: i.message,
  }));
}

/** A path into the file as a refusal's place: its line where known, and the path (`line 12, flow.1.next`). */
const placeOf = (path: readonly PropertyKey[], lineOf: (path: readonly PropertyKey[]) => string | null) =>
  [lineOf(path), path.map(String).join('.')].filter(Boolean).join(', ') || 'the file';

/**
 * The line a refusal found after reading starts on (the flow's and the rules', named by their dotted
 * place, `flow.1.prompt`), in the workflow file's text; null where the file does not hold that place
 * (a family's file, whose workflow is built from its arguments).
 */
function lineOfPlace(text: string, place: string): string | null {
  if (!/^[A-Za-z]\w*(\.\w+)*$/.test(place)) return null;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const path = place.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  if (!isMap(doc.contents) || !doc.contents.has(path[0])) return null;
  return nodeLine(doc.contents, path, (offset) => `line ${lines.linePos(offset).line}`);
}

/** Refusals found after reading, each with the line its place starts on in the file's text, where it has one. */
export function placedIssues<T extends FileIssue>(text: string, issues: readonly T[]): T[] {
  return issues.map((i) => {
    const line = lineOfPlace(text, i.where);
    return line ? { ...i, where: `${line}, ${i.where}` } : i;
  });
}

/** Where a path into the document starts, as `line N` (the deepest node that exists on it). */
function nodeLine(
  root: unknown,
  path: readonly PropertyKey[],
  lineAt: (offset: number) => string,
): string | null {
  let node = root as YamlNode | null;
  let where: string | null = null;
  for (const key of [null, ...path]) {
    if (key !== null) {
      if (isMap(node))
        node = (node.items.find((p) => (p.key as { value?: unknown })?.value === key)?.value ??
          null) as YamlNode | null;
      else if (isSeq(node) && typeof key === 'number') node = (node.items[key] ?? null) as YamlNode | null;
      else node = null;
    }
    if (!node || !node.range) break;
    where = lineAt(node.range[0]);
  }
  return where;
}

/**
 * Zod's issues as file issues, each at its line and path, in a reader's words: an unknown key with
 * the key it most likely meant, a missing one as missing, a union by its closest branch. Unknown
 * keys come first: a misspelt key is usually also the missing one.
 */
export function zodIssues(
  error: z.ZodError,
  lineOf: (path: readonly PropertyKey[]) => string | null,
  input: unknown,
): FileIssue[] {
  const flat = flatIssues(error.issues);
  const ordered = [
    ...flat.filter((i) => i.code === 'unrecognized_keys'),
    ...flat.filter((i) => i.code !== 'unrecognized_keys'),
  ];
  const at = (path: readonly PropertyKey[]) => placeOf(path, lineOf);
  return ordered.flatMap((i) => {
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => {
        const meant = suggestWorkflowKey(i.path, k);
        return {
          where: at([...i.path, k]),
          message: `unknown field${meant ? `; did you mean ${meant}?` : ''}`,
        };
      });
    return [{ where: at(i.path), message: issueWords(i, valueAt(input, i.path)) }];
  });
}

/** The input's value at a path, or undefined. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path)
    v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** A union's issues replaced by those of its closest branch (the one with fewest), recursively. */
function flatIssues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((i) => {
    if (i.code !== 'invalid_union' || i.errors.length === 0) return [i];
    const closest = [...i.errors].sort((a, b) => a.length - b.length)[0];
    return flatIssues(closest.map((x) => ({ ...x, path: [...i.path, ...x.path] })));
  });
}

/** One issue's message in the page's words. */
function issueWords(i: z.core.$ZodIssue, given: unknown): string {
  const unit = (origin: string) => (origin === 'array' ? ' items' : origin === 'string' ? ' characters' : '');
  if (i.code === 'invalid_type' && given === undefined) return 'missing: this field is required';
  if (i.code === 'invalid_type' && i.expected === 'int') return 'expected a whole number';
  if (i.code === 'invalid_type' && i.expected === 'string' && typeof given === 'number')
    return `expected text, got the number ${given}: put it in quotes ('${given}')`;
  if (i.code === 'invalid_type') return `expected ${i.expected === 'string' ? 'text' : i.expected}`;
  if (i.code === 'invalid_union' && 'options' in i)
    return `must be one of ${(i as { options: unknown[] }).options.map(String).join(', ')}`;
  if (i.code === 'invalid_value') return `must be one of ${i.values.map(String).join(', ')}`;
  if (i.code === 'too_small') return `must be at least ${String(i.minimum)}${unit(i.origin)}`;
  if (i.code === 'too_big') return `must be at most ${String(i.maximum)}${unit(i.origin)}`;
  return i.message;
}

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  additionalProperties?: SchemaNode | boolean;
};
let workflowSchemaNode: SchemaNode | null = null;

/** The key of the workflow schema at `path` nearest to `key` (a couple of typos at most). */
function suggestWorkflowKey(path: readonly PropertyKey[], key: string): string | undefined {
  workflowSchemaNode ??= z.toJSONSchema(WorkflowSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as SchemaNode;
  const expand = (n: SchemaNode): SchemaNode[] => [
    n,
    ...(n.anyOf ?? []).flatMap(expand),
    ...(n.allOf ?? []).flatMap(expand),
  ];
  let nodes: SchemaNode[] = [workflowSchemaNode];
  for (const k of path)
    nodes = nodes.flatMap(expand).flatMap((n) => {
      if (typeof k === 'number') return n.items ? [n.items] : [];
      const prop = n.properties?.[String(k)];
      if (prop) return [prop];
      return typeof n.additionalProperties === 'object' ? [n.additionalProperties] : [];
    });
  const keys = [...new Set(nodes.flatMap(expand).flatMap((n) => Object.keys(n.properties ?? {})))];
  return nearest(key, keys);
}

// ---- datasets ----

/** One row of a dataset: its fields, where it came from, and its split if it says. */
export interface DataRow {
  fields: Readonly<Record<string, string>>;
  /** Its line in the file (1-based; the header is line 1 of a CSV), or its index in inline rows. */
  line: number;
  split?: 'train' | 'val';
}

/** A dataset: its rows and the shape the workflow checks read. */
export interface Dataset {
  rows: readonly DataRow[];
  shape: DataShape;
}

const FIELD = /^[a-z][a-z0-9_]{0,23}$/;
const CHARSET_SET = new Set(CHARSET);

/** Checks rows (field names, values, limits) and builds the dataset; `at` words a row's place. */
function buildDataset(
  records: readonly { fields: Record<string, unknown>; line: number }[],
  at: (line: number) => string,
): ReadResult<Dataset> {
  const issues: FileIssue[] = [];
  if (records.length === 0) return { ok: false, issues: [{ where: 'the file', message: 'no rows' }] };
  if (records.length > DATA_LIMITS.rows)
    return {
      ok: false,
      issues: [{ where: 'the file', message: `${records.length} rows; the limit is ${DATA_LIMITS.rows}` }],
    };
  const longest = new Map<string, number>();
  const whereLongest = new Map<string, string>();
  const seen = new Map<string, number>(); // field → rows that have it
  const rows: DataRow[] = [];
  for (const { fields, line } of records) {
    if (issues.length >= 20) break;
    const keys = Object.keys(fields);
    if (keys.length > DATA_LIMITS.fields) {
      issues.push({ where: at(line), message: `${keys.length} fields; the limit is ${DATA_LIMITS.fields}` });
      continue;
    }
    const row: Record<string, string> = {};
    let split: DataRow['split'];
    for (const key of keys) {
      const value = fields[key];
      const place = `${at(line)}, field ${JSON.stringify(key.slice(0, 30))}`;
      if (!FIELD.test(key)) {
        issues.push({
          where: place,
          message: 'a field name is lower-case letters, digits and _ (at most 24), starting with a letter',
        });
        continue;
      }
      if (typeof value !== 'string') {
        issues.push({
          where: place,
          message:
            typeof value === 'number'
              ? `a number (${value}); write it as text, "${value}", so nothing is lost (0012 would read as 12)`
              : `not text (${value === null ? 'null' : typeof value})`,
        });
        continue;
      }
      if (key === 'split') {
        if (value !== 'train' && value !== 'val')
          issues.push({
            where: place,
            message: `split is train or val, not ${JSON.stringify(value.slice(0, 20))}`,
          });
        else split = value;
        continue;
      }
      if (value.length > DATA_LIMITS.fieldChars) {
        issues.push({
          where: place,
          message: `${value.length} characters; a field holds at most ${DATA_LIMITS.fieldChars}`,
        });
        continue;
      }
      const bad = [...value].find((ch) => !CHARSET_SET.has(ch));
      if (bad !== undefined) {
        issues.push({
          where: place,
          message: `${JSON.stringify(bad)} is outside the lab's character set (a–z, 0–9, space and .,:;?!=+-*/%()[]<>_|#'")`,
        });
        continue;
      }
      row[key] = value;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (value.length > (longest.get(key) ?? -1)) {
        longest.set(key, value.length);
        whereLongest.set(key, at(line));
      }
    }
    rows.push({ fields: row, line, ...(split ? { split } : {}) });
  }
  if (issues.length) return { ok: false, issues };
  // A field only some rows have is no field of the dataset's: the rows that lack it are named
  // where a workflow reads it (missingFields).
  return { ok: true, value: { rows, shape: { longest, whereLongest } } };
}

/** How many rows lacking a field a refusal names by place; the rest it counts. */
export const MISSING_NAMED = 5;

/**
 * Each field the workflow reads that some rows lack, as an issue at the first such row that says
 * how many rows lack it and names the first MISSING_NAMED (none: every row has them all).
 */
export function missingFields(data: Dataset, fields: readonly string[], at = lineWords): FileIssue[] {
  return fields.flatMap((f) => {
    const lacking = data.rows.filter((r) => !Object.hasOwn(r.fields, f));
    if (lacking.length === 0) return [];
    const named = lacking.slice(0, MISSING_NAMED).map((r) => at(r.line));
    const more = lacking.length - named.length;
    const which =
      lacking.length === 1
        ? ''
        : ` in ${lacking.length} of ${data.rows.length} rows (${named.join(', ')}${more ? ` and ${more} more` : ''})`;
    return [
      {
        where: named[0],
        message: `no field '${f}'${which}, which the workflow reads (every row needs it)`,
      },
    ];
  });
}

const lineWords = (line: number) => `line ${line}`;

/** Reads a dataset file's text: CSV with a header row, or JSONL (by the name's ending). */
export function readDataset(text: string, fileName: string): ReadResult<Dataset> {
  const big = tooBig(text);
  if (big) return { ok: false, issues: [big] };
  if (fileName.endsWith('.jsonl')) return readJsonl(text);
  if (fileName.endsWith('.csv')) return readCsv(text);
  return {
    ok: false,
    issues: [{ where: fileName, message: 'a dataset is a .csv file (with a header row) or a .jsonl file' }],
  };
}

function readJsonl(text: string): ReadResult<Dataset> {
  const records: { fields: Record<string, unknown>; line: number }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (records.length >= DATA_LIMITS.rows)
      return {
        ok: false,
        issues: [{ where: `line ${i + 1}`, message: `over ${DATA_LIMITS.rows} rows, the limit` }],
      };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      return {
        ok: false,
        issues: [{ where: `line ${i + 1}`, message: `not JSON (${(e as Error).message.slice(0, 80)})` }],
      };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return {
        ok: false,
        issues: [{ where: `line ${i + 1}`, message: 'a row is a JSON object of text fields' }],
      };
    records.push({ fields: value as Record<string, unknown>, line: i + 1 });
  }
  return buildDataset(records, lineWords);
}

function readCsv(text: string): ReadResult<Dataset> {
  // Line numbers from character offsets: a quoted field may hold a line break, so a record's
  // line is where it starts in the text, not its index.
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks.push(i);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  const records: { fields: Record<string, unknown>; line: number }[] = [];
  const issues: FileIssue[] = [];
  let header: string[] | null = null;
  let start = 0;
  Papa.parse<string[]>(text, {
    header: false,
    delimiter: ',',
    skipEmptyLines: 'greedy',
    step: (result, parser) => {
      const line = lineOf(start);
      start = result.meta.cursor + 1;
      if (result.errors.length) {
        issues.push({ where: `line ${line}`, message: result.errors[0].message });
        parser.abort();
        return;
      }
      const cells = result.data;
      if (!header) {
        header = cells.map((c) => c.trim());
        const dup = header.find((h, i) => header!.indexOf(h) < i);
        if (dup !== undefined) {
          issues.push({ where: 'line 1', message: `column ${JSON.stringify(dup)} is named twice` });
          parser.abort();
        }
        return;
      }
      if (cells.length !== header.length) {
        issues.push({
          where: `line ${line}`,
          message: `${cells.length} cells; the header has ${header.length}`,
        });
        parser.abort();
        return;
      }
      if (records.length >= DATA_LIMITS.rows) {
        issues.push({ where: `line ${line}`, message: `over ${DATA_LIMITS.rows} rows, the limit` });
        parser.abort();
        return;
      }
      records.push({ fields: Object.fromEntries(header.map((h, i) => [h, cells[i]])), line });
    },
  });
  if (issues.length) return { ok: false, issues };
  if (!header)
    return { ok: false, issues: [{ where: 'line 1', message: 'no header row (the field names)' }] };
  return buildDataset(records, lineWords);
}

/** Inline rows of a workflow file, as a dataset (a row's place is its index under data.rows). */
export function inlineDataset(rows: readonly Record<string, string>[]): ReadResult<Dataset> {
  return buildDataset(
    rows.map((fields, i) => ({ fields, line: i })),
    (i) => `data.rows.${i}`,
  );
}

/** A row's identity: the same fields are the same question (it decides the split). */
export const rowKey = (fields: Readonly<Record<string, string>>): string => JSON.stringify(fields);

/** The split of a row without a `split` field: a seeded hash of the workflow's name and the row. */
export function hashSplit(workflow: string, key: string, valPercent: number): 'train' | 'val' {
  return hashString(`${workflow}/${key}`) % 100 < valPercent ? 'val' : 'train';
}
