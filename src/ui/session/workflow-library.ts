/**
 * What the page keeps of workflows: each dataset file by its SHA-256 (the bytes every run worker and
 * a preparation get), each workflow by its hash (a link too large to carry one names it so), and the
 * base models prepared for a workflow experiment by baseModelsKey, which Train's runs start from.
 * Kept in memory for this tab and in IndexedDB (`agentwise-workflows`, src/storage/idb.ts) for the
 * next visit; a bundled example's dataset is found in the page itself (workflow-examples.ts). A
 * write the browser refuses loses nothing already kept: the tab keeps it, and the next visit asks
 * for the file again or prepares again. The controller holds the page's one library
 * (controller.ts), so a test builds its own.
 */
import type { Experiment } from '../../core/config';
import { baseModelsKey } from '../../core/workflow/base-key';
import { rememberWorkflow } from '../../core/workflow/pack';
import { expandWorkflow, WorkflowSpecSchema, type WorkflowSpec } from '../../core/workflow/families';
import { database, req, WORKFLOWS_DB } from '../../storage/idb';
import { usesShippedBase } from '../../tasks/workflow-generators';
import type { GivenData } from '../../workers/given-data';
import type { PreparedBase } from '../../workers/prepare';
import { bundledData } from '../workflow-examples';

/** A record of the `files` store: a dataset (`data:<sha256>`) or a workflow's JSON (`workflow:<hash>`). */
interface StoredFile {
  key: string;
  name: string;
  bytes: ArrayBuffer;
  savedAt: number;
}

/** A record of the `base` store: the base models prepared for one key, and how far they got. */
export interface StoredBase extends PreparedBase {
  key: string;
  /** The workflow's name, for a reader of the database. */
  workflow: string;
  savedAt: number;
}

/** What the page shows of prepared base models (everything but the weights). */
export type BaseSummary = Omit<StoredBase, 'files'>;

/** Whether an experiment's runs start from base models prepared in the page (docs/workflows.md#base-models). */
export function needsPreparedBase(exp: Experiment): boolean {
  return (
    exp.workflow !== undefined &&
    exp.models.base === 'shipped' &&
    !usesShippedBase(expandWorkflow(exp.workflow))
  );
}

export class WorkflowLibrary {
  private readonly db = database(WORKFLOWS_DB);
  private readonly data = new Map<string, GivenData>();
  private readonly base = new Map<string, StoredBase>();

  /** The dataset file of an experiment's workflow, if it reads one and this tab has it. */
  dataFor(exp: Experiment): GivenData | null {
    const d = exp.workflow && expandWorkflow(exp.workflow).data;
    return d && 'file' in d && d.sha256 ? (this.data.get(d.sha256) ?? null) : null;
  }

  /** The base models prepared for an experiment, as checkpoint files, if this tab has them. */
  baseFor(exp: Experiment): { name: string; bytes: ArrayBuffer }[] | null {
    if (!needsPreparedBase(exp)) return null;
    return this.base.get(baseModelsKey(exp))?.files ?? null;
  }

  /** Keeps a dataset file (checked: its SHA-256 is `sha256`), here and for the next visit. */
  keepData(sha256: string, given: GivenData): Promise<void> {
    this.data.set(sha256, given);
    return this.put('files', { key: `data:${sha256}`, name: given.file, bytes: given.bytes });
  }

  /** Keeps a workflow as read, by its hash (returned), here and for the next visit. */
  keepWorkflow(wf: WorkflowSpec): string {
    const hash = rememberWorkflow(wf);
    const bytes = new TextEncoder().encode(JSON.stringify(wf)).buffer as ArrayBuffer;
    void this.put('files', { key: `workflow:${hash}`, name: `${expandWorkflow(wf).name}.json`, bytes });
    return hash;
  }

  /** Keeps base models prepared for `exp`; returns what the page shows of them. */
  async keepBase(exp: Experiment, prepared: PreparedBase): Promise<BaseSummary> {
    const key = baseModelsKey(exp);
    const record: StoredBase = {
      ...prepared,
      key,
      workflow: exp.workflow ? expandWorkflow(exp.workflow).name : '',
      savedAt: Date.now(),
    };
    this.base.set(key, record);
    await this.put('base', record);
    return summary(record);
  }

  /** A dataset by its SHA-256: this tab's, a bundled example's, or one kept on an earlier visit. */
  async findData(sha256: string): Promise<GivenData | null> {
    const here = this.data.get(sha256);
    if (here) return here;
    const bundled = bundledData(sha256);
    if (bundled) {
      const given = {
        file: bundled.name,
        bytes: new TextEncoder().encode(bundled.text).buffer as ArrayBuffer,
      };
      this.data.set(sha256, given);
      return given;
    }
    const kept = await this.get<StoredFile>('files', `data:${sha256}`);
    if (!kept) return null;
    const given = { file: kept.name, bytes: kept.bytes };
    this.data.set(sha256, given);
    return given;
  }

  /** A workflow by its hash, kept on an earlier visit (made known to links: rememberWorkflow), or null. */
  async findWorkflow(hash: string): Promise<WorkflowSpec | null> {
    const kept = await this.get<StoredFile>('files', `workflow:${hash}`);
    if (!kept) return null;
    const parsed = WorkflowSpecSchema.safeParse(JSON.parse(new TextDecoder().decode(kept.bytes)));
    if (!parsed.success || rememberWorkflow(parsed.data) !== hash) return null; // written by another build
    return parsed.data;
  }

  /** The base models prepared for `exp`, kept in this tab or on an earlier visit, or null. */
  async findBase(exp: Experiment): Promise<BaseSummary | null> {
    if (!needsPreparedBase(exp)) return null;
    const key = baseModelsKey(exp);
    const kept = this.base.get(key) ?? (await this.get<StoredBase>('base', key));
    if (!kept) return null;
    this.base.set(key, kept);
    return summary(kept);
  }

  /** Writes a record; a refusal (no room, no IndexedDB) leaves it in this tab only. */
  private async put(store: 'files' | 'base', record: object): Promise<void> {
    try {
      await this.db.transact('readwrite', (tx) =>
        req(tx.objectStore(store).put({ savedAt: Date.now(), ...record })),
      );
    } catch {
      // Kept in this tab; the next visit asks for the file again, or prepares again.
    }
  }

  /** A record, or undefined where there is none or the database cannot be read. */
  private async get<T>(store: 'files' | 'base', key: string): Promise<T | undefined> {
    try {
      return await this.db.transact('readonly', (tx) => req(tx.objectStore(store).get(key) as IDBRequest<T>));
    } catch {
      return undefined;
    }
  }
}

const summary = ({ files: _files, ...rest }: StoredBase): BaseSummary => rest;
