/**
 * The page's workflows (docs/workflows.md#in-the-page): a bundled example picked, or a workflow file
 * and its dataset opened (picked or dropped), read and checked off the main thread
 * (src/workers/workflow-read.ts) and made the experiment's task; a link's workflow opened, asking
 * for the files it names that this browser lacks; and its base models prepared in a worker of
 * their own (src/workers/prepare.ts). The page defines a workflow's task from the reader's answer,
 * without its rows (defineTransitions), so charts, What differs, Findings and the inspector name its
 * agents (taskOf). Nothing already on screen or stored is lost: a refusal leaves the experiment as
 * it was and lists every reason, each naming its file and its line, stage or field. No React.
 */
import type { Experiment } from '../core/config';
import { validateExperiment, type FieldError } from '../core/config-validate';
import { linkWorkflowHash } from '../core/url';
import { baseModelsKey, pretrainRecipe } from '../core/workflow/base-key';
import { expandWorkflow, type WorkflowSpec } from '../core/workflow/families';
import { DATA_LIMITS, type Workflow } from '../core/workflow/schema';
import { knownWorkflow, workflowHash } from '../core/workflow/pack';
import { decodeSweepLink } from '../rl/sweep';
import { defineTransitions, taskRefOf, workflowRef } from '../tasks/registry';
import { WorkflowRefused } from '../tasks/workflow';
import type { GivenFile, ReadReply, WorkflowIssue } from '../tasks/workflow-files';
import { prepareInWorker } from '../workers/prepare';
import { readInWorker } from '../workers/workflow-read';
import { loadMeasurements } from './backend-cache';
import { applyExperiment } from './config-edit';
import { controller } from './session/page';
import { addError, setWorkflowSlice, useLab } from './session/store';
import type { LabState, Preparing, WantedFiles } from './session/store';
import { needsPreparedBase } from './session/workflow-library';
import { threadChoice, threadsText } from './thread-setting';
import { EXAMPLES } from './workflow-examples';

const WORKFLOW_FILE = /\.(ya?ml|json)$/i;
const DATA_FILE = /\.(csv|jsonl)$/i;
const bytesOf = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;

// ─── reading ─────────────────────────────────────────────────────────────────

/**
 * Reads files in the reader worker; if they read (and `check` finds nothing wrong), defines the
 * workflow here and keeps it and its dataset, and returns it; otherwise the panel lists why.
 */
async function read(
  workflow: GivenFile | { read: WorkflowSpec },
  data: GivenFile | null,
  check: (wf: WorkflowSpec) => WorkflowIssue | null = () => null,
): Promise<WorkflowSpec | null> {
  const names = ['read' in workflow ? null : workflow.name, data?.name].filter(Boolean).join(' and ');
  setWorkflowSlice({ workflowReading: names, workflowIssues: [] });
  let reply: ReadReply;
  try {
    reply = await readInWorker({ workflow, data });
  } catch (e) {
    reply = { ok: false, issues: [{ file: names, where: 'reading', message: (e as Error).message }] };
  } finally {
    setWorkflowSlice({ workflowReading: null });
  }
  const issue = reply.ok ? check(reply.workflow) : null;
  if (!reply.ok || issue) {
    setWorkflowSlice({ workflowIssues: reply.ok ? [issue!] : reply.issues });
    return null;
  }
  const spec = reply.workflow;
  const wf = expandWorkflow(spec);
  setWorkflowSlice({ workflowRead: { data: dataKey(wf), rows: reply.rows, ms: reply.ms } });
  defineTransitions({ ref: workflowRef(wf), workflow: wf, longest: reply.longest });
  controller.workflows.keepWorkflow(spec);
  if (data && 'file' in wf.data && wf.data.sha256)
    await controller.workflows.keepData(wf.data.sha256, { file: wf.data.file, bytes: data.bytes });
  return spec;
}

/** What a workflow's data is, as one string: the same for the same rows. */
export const dataKey = (wf: Workflow): string =>
  JSON.stringify('rows' in wf.data ? wf.data.rows.length : wf.data);

/**
 * The experiment with `wf` as its task: its runs, seeds and settings stay; its agents' model sizes
 * join models.perAgent; a per-agent setting that names an agent the workflow lacks (the previous
 * task's) goes, as it could name nothing.
 */
export function withWorkflowOf(config: Experiment, spec: WorkflowSpec): unknown {
  const wf = expandWorkflow(spec);
  const agents = new Set(wf.agents.map((a) => a.name));
  const keep = <T>(m: Record<string, T> | undefined) =>
    m && Object.fromEntries(Object.entries(m).filter(([a]) => agents.has(a)));
  const sizes = Object.fromEntries(wf.agents.flatMap((a) => (a.model ? [[a.name, a.model]] : [])));
  const own = <R extends { optim?: { perAgent?: object }; reward?: { scale?: object; offset?: object } }>(
    r: R,
  ): R => ({
    ...r,
    ...(r.optim
      ? {
          optim: {
            ...r.optim,
            ...(r.optim.perAgent && { perAgent: keep(r.optim.perAgent as Record<string, unknown>) }),
          },
        }
      : {}),
    ...(r.reward
      ? {
          reward: {
            ...r.reward,
            ...(r.reward.scale && { scale: keep(r.reward.scale as Record<string, number>) }),
            ...(r.reward.offset && { offset: keep(r.reward.offset as Record<string, number>) }),
          },
        }
      : {}),
  });
  const models = config.models;
  return {
    ...own(config),
    task: 'workflow',
    workflow: spec,
    models: {
      ...models,
      perAgent: { ...keep(models.perAgent), ...sizes },
      ids: keep(models.ids),
      from: Object.fromEntries(
        Object.entries(models.from).filter(([a, b]) => agents.has(a) && agents.has(b)),
      ),
    },
    runs: config.runs.map(own),
  };
}

/** Makes `wf` the experiment's task (with runs on screen, the page asks first: applyExperiment). */
function trainWorkflow(wf: WorkflowSpec): void {
  const r = validateExperiment(withWorkflowOf(useLab.getState().config, wf));
  if (!r.ok) {
    setWorkflowSlice({ workflowIssues: r.errors.map((e) => experimentIssue(e)) });
    return;
  }
  applyExperiment(r.config);
}

const experimentIssue = (e: FieldError): WorkflowIssue => ({
  file: 'the experiment',
  where: e.path,
  message: e.message,
});

/** The picker's example button: the bundled workflow and its dataset, read as a file would be. */
export async function openExample(name: string): Promise<void> {
  const example = EXAMPLES.find((e) => e.name === name);
  if (!example) return;
  const wf = await read(
    { name: example.workflow.name, bytes: bytesOf(example.workflow.text) },
    example.data && { name: example.data.name, bytes: bytesOf(example.data.text) },
  );
  if (wf) trainWorkflow(wf);
}

/**
 * Files picked or dropped on the picker: one workflow file (.yaml, .yml or .json) and, where it
 * reads one, its dataset (.csv or .jsonl). While a link waits for its files, they are the link's.
 */
export async function openWorkflowFiles(files: readonly File[]): Promise<void> {
  const wanted = useLab.getState().wanted;
  const issues: WorkflowIssue[] = [];
  for (const f of files) {
    if (!WORKFLOW_FILE.test(f.name) && !DATA_FILE.test(f.name))
      issues.push({
        file: f.name,
        where: 'the file',
        message: 'is neither a workflow (.yaml, .yml, .json) nor a dataset (.csv, .jsonl)',
      });
    else if (f.size > DATA_LIMITS.bytes)
      issues.push({
        file: f.name,
        where: 'the file',
        message: `${(f.size / 1024 / 1024).toFixed(1)} MB; the limit is ${DATA_LIMITS.bytes / 1024 / 1024} MB`,
      });
  }
  const workflows = files.filter((f) => WORKFLOW_FILE.test(f.name));
  const data = files.filter((f) => DATA_FILE.test(f.name));
  const needsWorkflow = !wanted || wanted.workflow !== undefined;
  if (needsWorkflow && workflows.length !== 1)
    issues.push({
      file: files.map((f) => f.name).join(', ') || 'no file',
      where: 'the files',
      message: `give one workflow file (.yaml, .yml or .json) and, if it reads one, its dataset (${workflows.length} workflow files given)`,
    });
  if (data.length > 1)
    issues.push({
      file: data.map((f) => f.name).join(', '),
      where: 'the files',
      message: 'one dataset file at a time',
    });
  if (wanted?.data && !wanted.workflow && data.length === 0)
    issues.push({ file: 'no file', where: 'the files', message: `give the dataset ${wanted.data.file}` });
  if (issues.length) return setWorkflowSlice({ workflowIssues: issues });
  const given = async (f: File): Promise<GivenFile> => ({ name: f.name, bytes: await f.arrayBuffer() });
  const dataFile = data.length ? await given(data[0]) : null;
  if (wanted) return giveWanted(wanted, workflows[0] && (await given(workflows[0])), dataFile);
  const wf = await read(await given(workflows[0]), dataFile);
  if (wf) trainWorkflow(wf);
}

// ─── links ───────────────────────────────────────────────────────────────────

/**
 * What a link needs before it opens, made ready where this browser has it: its workflow (known, or
 * kept on an earlier visit) and its dataset (this tab's, a bundled example's, or kept), the workflow
 * defined here. `wanted`: the files to ask for; `refused`: a workflow that cannot train.
 */
export async function linkFiles(
  hash: string,
): Promise<{ ready: true } | { wanted: Omit<WantedFiles, 'open'> } | { refused: FieldError[] }> {
  const named = linkWorkflowHash(hash);
  if (named && !knownWorkflow(named) && !(await controller.workflows.findWorkflow(named)))
    return { wanted: { link: hash, workflow: named } };
  const r = decodeSweepLink(hash);
  const wf = r.ok ? r.config.workflow : undefined;
  if (!wf) return { ready: true }; // the link's own refusals are said as ever (url-sync.ts)
  return ensureWorkflow(wf, hash);
}

/**
 * Defines `wf` in the page, finding its dataset where this browser has one; otherwise says which
 * file to ask for (`link`: the link that waits for it).
 */
export async function ensureWorkflow(
  spec: WorkflowSpec,
  link: string,
): Promise<{ ready: true } | { wanted: Omit<WantedFiles, 'open'> } | { refused: FieldError[] }> {
  const wf = expandWorkflow(spec);
  try {
    taskRefOf({ task: 'workflow', workflow: wf });
    return { ready: true };
  } catch (e) {
    if (!(e instanceof WorkflowRefused)) throw e;
    if (!('file' in wf.data) || !wf.data.sha256)
      return { refused: e.issues.map((i) => ({ path: 'wf', message: `${i.where}: ${i.message}` })) };
  }
  const { file, sha256 } = wf.data;
  const found = await controller.workflows.findData(sha256);
  if (!found) return { wanted: { link, data: { file, sha256, workflow: wf.name } } };
  const read = await readForLink(wf, { name: found.file, bytes: found.bytes });
  return read
    ? { ready: true }
    : { refused: [{ path: 'wf', message: `its dataset ${file} cannot be read` }] };
}

/** A link's workflow with its dataset, read and defined in the page (null where it is refused). */
const readForLink = (wf: WorkflowSpec, data: GivenFile) => read({ read: wf }, data);

/** Files given for a waiting link: checked against what the link names, then the link opens. */
async function giveWanted(wanted: WantedFiles, workflow: GivenFile | undefined, data: GivenFile | null) {
  let ok: WorkflowSpec | null;
  if (wanted.workflow) {
    const named = wanted.workflow;
    ok = await read(workflow!, data, (wf) => {
      const hash = workflowHash(wf);
      return hash === named
        ? null
        : {
            file: workflow!.name,
            where: 'the file',
            message: `is not the workflow this link names: its SHA-256 is ${hash.slice(0, 16)}…, the link's ${named.slice(0, 16)}…`,
          };
    });
  } else {
    const r = decodeSweepLink(wanted.link);
    ok = r.ok && r.config.workflow ? await readForLink(r.config.workflow, data!) : null;
  }
  if (ok) wanted.open();
}

// ─── base models ─────────────────────────────────────────────────────────────

/** The test seam's step cap on a preparation (`?prepare-steps=N` before the `#`): tests only. */
function stepCap(): number | undefined {
  if (typeof location === 'undefined') return undefined;
  const n = Number(new URLSearchParams(location.search).get('prepare-steps'));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

const patchPreparing = (patch: Partial<Preparing>) =>
  setWorkflowSlice((s) => (s.preparing ? { preparing: { ...s.preparing, ...patch } } : null));

/**
 * Prepare base models: every agent of the experiment's workflow pretrained on its demonstrations in
 * a worker of its own, with the step, the loss and each check's validation success as it goes; the
 * result is kept under baseModelsKey, and Train's runs start from it.
 */
export function prepareBaseModels(): void {
  const { config, threads, preparing } = useLab.getState();
  if (preparing || !needsPreparedBase(config)) return;
  const key = baseModelsKey(config);
  const workflow = expandWorkflow(config.workflow!).name;
  const maxSteps = stepCap() ?? pretrainRecipe(expandWorkflow(config.workflow!)).maxSteps;
  const job = prepareInWorker(
    {
      type: 'prepare',
      config,
      dataset: controller.workflows.dataFor(config),
      threads: threadChoice(config, threads).threads,
      measurements: loadMeasurements(),
      maxSteps,
    },
    (m) => {
      if (m.type === 'backend')
        patchPreparing({
          backend: `${m.report.backend}${m.report.threads ? `, ${threadsText(m.report.threads)}` : ''}`,
        });
      if (m.type === 'progress')
        patchPreparing({
          step: m.step,
          loss: m.loss,
          ...(m.success === undefined ? {} : { success: m.success, own: m.own }),
        });
    },
  );
  const stop = () => {
    job.stop();
    patchPreparing({ stopping: true });
  };
  setWorkflowSlice({ preparing: { key, workflow, step: 0, maxSteps, stop } });
  job.done.then(
    async (prepared) => {
      const summary = await controller.workflows.keepBase(config, prepared);
      setWorkflowSlice((s) => ({ preparing: null, baseModels: { ...s.baseModels, [key]: summary } }));
    },
    (e: Error) => {
      setWorkflowSlice({ preparing: null });
      addError(`Could not prepare the base models: ${e.message}`);
    },
  );
}

/**
 * A store reaction: an experiment whose workflow needs prepared base models finds those kept in
 * this browser (by baseModelsKey), whichever way it came on screen (picker, link, stored session).
 */
export function followBaseModels(s: LabState, prev: LabState): void {
  if (s.config === prev.config || !needsPreparedBase(s.config)) return;
  const config = s.config;
  if (baseModelsKey(config) in s.baseModels) return;
  void controller.workflows
    .findBase(config)
    .then(
      (found) =>
        found && setWorkflowSlice((now) => ({ baseModels: { ...now.baseModels, [found.key]: found } })),
    );
}
