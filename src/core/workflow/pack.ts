/**
 * A workflow in a link, and a workflow's identity. A link carries a small workflow packed into one
 * pair, `wf=`: its JSON as read (defaults filled, a data file named by its SHA-256), deflated
 * (fflate) and written in base64url, which a hash holds unescaped. A larger one goes by its hash,
 * the SHA-256 of that same JSON, and the page asks for its file and checks it
 * (docs/links.md#a-workflow-in-a-link). Unpacking is bounded so no link can make it slow: the packed
 * text is capped by the link's length, and inflating stops at MAX_UNPACKED bytes. What comes out is
 * JSON, parsed by JSON.parse and judged by the zod schema; nothing is evaluated. Pure.
 */
import { Inflate, deflateSync } from 'fflate';
import { fromBase64Url, toBase64Url } from '../base64url';
import { sha256Hex } from '../sha256';
import { tooDeep, zodIssues, type ReadResult } from './file';
import { FamilyRefSchema, type WorkflowSpec } from './families';
import { WORKFLOW_VERSION, WorkflowSchema } from './schema';

/** The longest packed workflow a link carries; a larger one goes by its hash (docs/links.md). */
export const MAX_PACKED = 6144;
/** The most a packed workflow may inflate to: well over any that packs into MAX_PACKED honestly. */
export const MAX_UNPACKED = 256 * 1024;

/**
 * A workflow's identity: the SHA-256 of its JSON as read (what a link names it by, `wfhash=`). A
 * family's file is its family and arguments (families.ts), so a link carries those, not the whole.
 */
export function workflowHash(wf: WorkflowSpec): string {
  return sha256Hex(JSON.stringify(wf));
}

/** The workflow packed for a link: its JSON, deflated, in base64url. */
export function packWorkflow(wf: WorkflowSpec): string {
  return toBase64Url(deflateSync(new TextEncoder().encode(JSON.stringify(wf)), { level: 9 }));
}

/** A link's packed workflow read back and checked; every refusal says what is wrong with it. */
export function unpackWorkflow(packed: string): ReadResult<WorkflowSpec> {
  const refuse = (message: string): ReadResult<WorkflowSpec> => ({
    ok: false,
    issues: [{ where: 'the packed workflow', message }],
  });
  if (packed.length > MAX_PACKED)
    return refuse(
      `${packed.length} characters; a link carries at most ${MAX_PACKED} (a larger workflow goes by its SHA-256 and its file)`,
    );
  const bytes = fromBase64Url(packed);
  if (!bytes) return refuse('not base64url text (A–Z, a–z, 0–9, - and _)');
  const inflated = inflateAtMost(bytes, MAX_UNPACKED);
  if (typeof inflated === 'string') return refuse(inflated);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return refuse('does not unpack to text');
  }
  const deep = tooDeep(text);
  if (deep) return refuse(deep.message);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return refuse('does not unpack to JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return refuse('does not unpack to a workflow (a mapping: name, agents, data, flow, rewards)');
  const version = (raw as { version?: unknown }).version;
  if (typeof version === 'number' && version > WORKFLOW_VERSION)
    return refuse(`version ${version} is newer than this lab reads (${WORKFLOW_VERSION}): update the lab`);
  // As readWorkflow judges a file: a family's as one, any other as a whole workflow.
  const parsed = ('family' in raw ? FamilyRefSchema : WorkflowSchema).safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data as WorkflowSpec };
  return { ok: false, issues: zodIssues(parsed.error, () => null, raw) };
}

/**
 * Deflated bytes inflated, or why not: refused once the output passes `max` bytes. The input goes
 * in small pieces, so a small input that would inflate to gigabytes is stopped a piece after the
 * limit, not after the whole.
 */
function inflateAtMost(bytes: Uint8Array, max: number): Uint8Array | string {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const over = new Error('over the limit');
  const inflate = new Inflate((chunk) => {
    total += chunk.length;
    if (total > max) throw over;
    chunks.push(chunk);
  });
  try {
    for (let i = 0; i < bytes.length; i += 64)
      inflate.push(bytes.subarray(i, i + 64), i + 64 >= bytes.length);
  } catch (e) {
    if (e === over) return `unpacks to over ${max / 1024} KB, the limit`;
    return 'is not deflated data (cut short or altered?)';
  }
  if (total === 0) return 'is not deflated data (cut short or altered?)';
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// ---- workflows known by hash ----

/**
 * The workflows this thread has read, by hash: a link that names its workflow by hash opens here
 * once the workflow is known (the page: a file the user gave or kept, a bundled example; the CLI:
 * --workflow). A cache of immutable, content-addressed values, as the task registry's workflows are.
 */
const KNOWN = new Map<string, WorkflowSpec>();

/** Makes `wf` known by its hash (returned). */
export function rememberWorkflow(wf: WorkflowSpec): string {
  const hash = workflowHash(wf);
  KNOWN.set(hash, wf);
  return hash;
}

/** The workflow known by `hash`, if any. */
export const knownWorkflow = (hash: string): WorkflowSpec | undefined => KNOWN.get(hash);
