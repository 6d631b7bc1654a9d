/**
 * Workflow files as the page is given them (picked, dropped, bundled or asked for by a link), read
 * and checked as training would build them: the workflow file (readWorkflow), its dataset checked
 * against the SHA-256 the workflow names and read (readDataset), and the whole defined
 * (defineWorkflow: the flow, the rules, every row's fields, the split). The answer is the workflow
 * as read, its data file named by its SHA-256, and the data's shape, from which a thread defines
 * the task without its rows (defineTransitions); or every refusal, each naming its file and its
 * line, stage or field. The page runs this in a worker (src/workers/workflow-read.ts), so a
 * 50,000-row dataset is never parsed on its main thread. Pure.
 */
import { sha256Hex } from '../core/sha256';
import { placedIssues, readDataset, readWorkflow, type FileIssue } from '../core/workflow/file';
import { expandWorkflow, type WorkflowSpec } from '../core/workflow/families';
import { defineWorkflow, registerDataset, workflowDefinition } from './registry';
import { WorkflowRefused } from './workflow';

/** A file to read: its name and bytes. */
export interface GivenFile {
  name: string;
  bytes: ArrayBuffer;
}

export interface ReadRequest {
  /** The workflow file, or a workflow already read (a link's), whose dataset `data` is. */
  workflow: GivenFile | { read: WorkflowSpec };
  /** Its dataset file, where its data names one. */
  data: GivenFile | null;
}

/** One refusal, with the file it is about. */
export interface WorkflowIssue extends FileIssue {
  file: string;
}

export type ReadReply =
  | {
      ok: true;
      /** The workflow as read (a family's: its family and arguments), its data file named by the SHA-256 of the bytes given. */
      workflow: WorkflowSpec;
      /** Its data's shape: each field's longest value (defineTransitions reads it). */
      longest: [string, number][];
      /** Rows in its data (null for a generator's). */
      rows: number | null;
      /** How long reading and checking took in the worker, in ms. */
      ms: number;
    }
  | { ok: false; issues: WorkflowIssue[] };

const refuse = (file: string, issues: readonly FileIssue[]): ReadReply => ({
  ok: false,
  issues: issues.map((i) => ({ file, ...i })),
});

/** Reads the workflow and its dataset and defines the workflow here, or says every reason it cannot. */
export function readWorkflowFiles({ workflow: given, data }: ReadRequest): ReadReply {
  const t0 = performance.now();
  const source = 'read' in given ? "the link's workflow" : given.name;
  let spec: WorkflowSpec;
  const text = 'read' in given ? null : new TextDecoder().decode(given.bytes);
  if ('read' in given) spec = given.read;
  else {
    const r = readWorkflow(text!);
    if (!r.ok) return refuse(source, r.issues);
    spec = r.value;
  }
  // A family's file stays its family and arguments (a link carries those); its data is a generator's.
  let wf = expandWorkflow(spec);
  let rows: number | null = 'rows' in wf.data ? wf.data.rows.length : null;
  if ('file' in wf.data) {
    const { file, sha256: named } = wf.data;
    if (!data)
      return refuse(source, [
        { where: 'data.file', message: `reads ${file}: give that file too (pick or drop both)` },
      ]);
    const bytes = new Uint8Array(data.bytes);
    const sha256 = sha256Hex(bytes);
    if (named !== undefined && named !== sha256)
      return refuse(data.name, [
        {
          where: 'the file',
          message: `is not the dataset ${source} names: its SHA-256 is ${sha256.slice(0, 16)}…, the workflow's ${file} is ${named.slice(0, 16)}…`,
        },
      ]);
    const dataset = readDataset(new TextDecoder().decode(bytes), data.name);
    if (!dataset.ok) return refuse(data.name, dataset.issues);
    registerDataset(sha256, dataset.value);
    rows = dataset.value.rows.length;
    wf = spec = { ...wf, data: { file, sha256 } };
  } else if (data)
    return refuse(data.name, [
      {
        where: 'the file',
        message: `${source} reads no dataset file (its data is ${'rows' in wf.data ? 'inline rows' : `the ${wf.data.generator} generator`})`,
      },
    ]);
  let ref;
  try {
    ref = defineWorkflow(wf);
  } catch (e) {
    // A row lacking a field the workflow reads is named by its line in the dataset; the flow's
    // and the rules' refusals by their place in the workflow, and the line it starts on.
    if (e instanceof WorkflowRefused)
      return {
        ok: false,
        issues: e.issues.flatMap((i) =>
          data && /^line /.test(i.where)
            ? [{ file: data.name, ...i }]
            : (text === null ? [i] : placedIssues(text, [i])).map((p) => ({ file: source, ...p })),
        ),
      };
    throw e;
  }
  const longest = workflowDefinition(ref)!.longest;
  return { ok: true, workflow: spec, longest, rows, ms: performance.now() - t0 };
}
