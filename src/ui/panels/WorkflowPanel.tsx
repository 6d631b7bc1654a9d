/**
 * The Workflow panel (docs/workflows.md#in-the-page): the bundled examples, "Open a workflow file"
 * by pick or drop (a workflow file and its dataset), every refusal with its file and its line, stage
 * or field, the workflow the experiment trains, and its base models: Prepare base models, with a
 * progress bar, each check's validation success per agent, and Stop. The examples and the file
 * picker fold to one line until asked for (a newcomer's first screen is the presets), and open once
 * the experiment trains a workflow. Also the notice a link shows while it waits for files this
 * browser lacks. The work is workflow-open.ts's; this only shows it.
 */
import { useMemo, useState } from 'react';
import type { Experiment } from '../../core/config';
import { baseModelsKey, recipeGoal } from '../../core/workflow/base-key';
import { expandWorkflow } from '../../core/workflow/families';
import type { Workflow } from '../../core/workflow/schema';
import { usesShippedBase } from '../../tasks/workflow-generators';
import { needsPreparedBase } from '../session/workflow-library';
import { useLab } from '../session/store';
import { dropWanted } from '../url-sync';
import { DropZone } from './DropZone';
import { download } from '../export';
import { EXAMPLES } from '../workflow-examples';
import { dataKey, openExample, openWorkflowFiles, prepareBaseModels } from '../workflow-open';

const f2 = (v: number) => v.toFixed(2);
/** Each agent's own validation success, "ann 0.52, ben 0.31". */
const ownText = (own: Record<string, number>) =>
  Object.entries(own)
    .map(([a, v]) => `${a} ${f2(v)}`)
    .join(', ');

/** The refusals of the files last opened, each with its file and its place. */
function WorkflowIssues() {
  const issues = useLab((s) => s.workflowIssues);
  const reading = useLab((s) => s.workflowReading);
  return (
    <>
      {reading && (
        <p role="status" className="muted">
          Reading {reading}…
        </p>
      )}
      {issues.length > 0 && (
        <div role="alert" className="field-error" data-testid="workflow-issues">
          Not opened; nothing changed:
          <ul>
            {issues.map((i, k) => (
              <li key={k}>
                <code>{i.file}</code> {i.where}: {i.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/** Pick or drop: a workflow file and, where it reads one, its dataset. */
function OpenFiles({ label }: { label: string }) {
  return (
    <DropZone testId="workflow-drop" onDrop={(d) => void openWorkflowFiles([...d.files])}>
      <label>
        {label}{' '}
        <input
          type="file"
          multiple
          accept=".yaml,.yml,.json,.csv,.jsonl"
          onChange={(e) => {
            void openWorkflowFiles([...(e.target.files ?? [])]);
            e.target.value = ''; // the same files again are a new try
          }}
        />
      </label>
      <p className="muted">
        or drop them here (a .yaml, .yml or .json workflow, and its .csv or .jsonl dataset)
      </p>
    </DropZone>
  );
}

/** What the experiment's workflow is: its agents and its data. */
function Current({ wf }: { wf: Workflow }) {
  const read = useLab((s) => s.workflowRead);
  const known = read && read.data === dataKey(wf) ? read : null;
  const rows = known?.rows != null ? `${known.rows.toLocaleString('en')} rows, ` : '';
  const took = known ? `; read and checked in ${(known.ms / 1000).toFixed(2)} s, off the main thread` : '';
  const data =
    'file' in wf.data
      ? `${wf.data.file} (${rows}SHA-256 ${wf.data.sha256?.slice(0, 12) ?? '?'}…${took})`
      : 'rows' in wf.data
        ? `${wf.data.rows.length} rows in the file`
        : `the ${wf.data.generator} generator’s rows`;
  return (
    <dl className="summary workflow-summary" data-testid="workflow-summary">
      <div>
        <dt>Workflow</dt>
        <dd>
          <strong>{wf.name}</strong>
          {wf.doc ? `: ${wf.doc}` : ''}
        </dd>
      </div>
      <div>
        <dt>Agents</dt>
        <dd data-testid="workflow-agents">{wf.agents.map((a) => a.name).join(', ')}</dd>
      </div>
      <div>
        <dt>Data</dt>
        <dd data-testid="workflow-data">{data}</dd>
      </div>
    </dl>
  );
}

/** A bundled example's files, to write a workflow of one's own from (the page is where a new user meets the format). */
function ExampleFiles({ name }: { name: string }) {
  const example = EXAMPLES.find((e) => e.name === name);
  if (!example) return null;
  const files = [example.workflow, ...(example.data ? [example.data] : [])];
  return (
    <p className="muted" data-testid="example-files">
      To write your own, start from its files:{' '}
      {files.map((f, i) => (
        <span key={f.name}>
          {i > 0 && ', '}
          <button type="button" className="link" onClick={() => download(f.name, f.text, 'text/plain')}>
            {f.name}
          </button>
        </span>
      ))}
      .
    </p>
  );
}

/** The workflow's base models: shipped, prepared, or Prepare base models with its progress and Stop. */
function BaseModels({ config }: { config: Experiment }) {
  const preparing = useLab((s) => s.preparing);
  const baseModels = useLab((s) => s.baseModels);
  const key = useMemo(() => (needsPreparedBase(config) ? baseModelsKey(config) : null), [config]);
  const wf = expandWorkflow(config.workflow!);
  if (key === null)
    return (
      <p className="muted" data-testid="base-models">
        {usesShippedBase(wf) && 'generator' in wf.data
          ? `Its agents are the ${wf.data.generator} task's: its runs start from that task's shipped base models.`
          : 'Its runs start from a fresh init (models.base is scratch).'}
      </p>
    );
  const ready = baseModels[key];
  const mine = preparing?.key === key ? preparing : null;
  return (
    <div className="base-models" data-testid="base-models">
      <h3>Base models</h3>
      {ready ? (
        <p data-testid="base-ready">
          Ready: {ready.steps} steps, team validation success (every agent right at once) {f2(ready.success)}
          {Object.keys(ready.own).length > 0 && ` (own: ${ownText(ready.own)})`}
          {ready.short && `, short of the recipe’s ${recipeGoal(wf)}`}.{' '}
          {ready.short
            ? 'Train starts from them anyway, though an agent that never succeeds gives RL little to learn from.'
            : 'Train starts from them.'}
        </p>
      ) : (
        <p className="muted">
          Its agents are its own, so RL needs base models that succeed sometimes: each agent is pretrained on
          its demonstrations first (about a minute), in a worker, and kept in this browser.
        </p>
      )}
      {mine ? (
        <div role="status" data-testid="preparing">
          <progress value={mine.step} max={mine.maxSteps} aria-label="Preparing base models" />
          <p>
            Step {mine.step} of at most {mine.maxSteps}
            {mine.backend ? ` on ${mine.backend}` : ''}
            {mine.loss !== undefined ? `, loss ${mine.loss.toFixed(3)}` : ''}
            {mine.success !== undefined ? `; validation success ${f2(mine.success)}` : ''}
          </p>
          {mine.own && Object.keys(mine.own).length > 0 && (
            <p data-testid="own-success">Each agent’s own: {ownText(mine.own)}</p>
          )}
          <button type="button" onClick={mine.stop} disabled={mine.stopping}>
            {mine.stopping ? 'Stopping…' : 'Stop'}
          </button>
        </div>
      ) : preparing ? (
        // One preparation at a time: say whose is running, and let it be stopped from here.
        <p className="muted" data-testid="preparing-other">
          The base models of {preparing.workflow} are being prepared (step {preparing.step} of at most{' '}
          {preparing.maxSteps}); one workflow’s at a time.{' '}
          <button type="button" onClick={preparing.stop} disabled={preparing.stopping}>
            {preparing.stopping ? 'Stopping…' : `Stop ${preparing.workflow}’s`}
          </button>
        </p>
      ) : (
        <button type="button" onClick={prepareBaseModels}>
          {ready ? 'Prepare again' : 'Prepare base models'}
        </button>
      )}
    </div>
  );
}

export function WorkflowPanel() {
  const config = useLab((s) => s.config);
  const waiting = useLab((s) => s.wanted !== null);
  const refused = useLab((s) => s.workflowIssues.length > 0);
  const wf = config.workflow && expandWorkflow(config.workflow);
  // An example is pressed while the experiment's workflow is it (a family's file: that family).
  const picked =
    config.workflow && ('family' in config.workflow ? config.workflow.family : config.workflow.name);
  // The picker is folded to one line on the first screen; it opens when asked for, and when the
  // experiment trains a workflow or a file was refused (the user may fold it again).
  const [open, setOpen] = useState(false);
  const cause = picked ? `picked:${picked}` : refused ? 'refused' : '';
  const [openedFor, setOpenedFor] = useState('');
  if (cause && cause !== openedFor) {
    setOpenedFor(cause);
    setOpen(true);
  }
  return (
    <section className="panel" aria-labelledby="workflow-title" data-testid="workflow-panel">
      <h2 id="workflow-title">Workflow</h2>
      <details
        className="workflow-pick"
        open={open}
        onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
      >
        <summary>Your own multi-agent system in one file: {EXAMPLES.length} examples, or open a file</summary>
        <p className="muted">
          A workflow file holds its agents, data, flow and rewards (the format: docs/workflows.md in the lab’s
          repository). Pick an example, or open a workflow file and its dataset; the runs stay the
          experiment’s.
        </p>
        <ul className="presets" role="group" aria-label="Example workflows">
          {EXAMPLES.map((e) => (
            <li key={e.name} data-workflow={e.name}>
              <button type="button" aria-pressed={picked === e.name} onClick={() => void openExample(e.name)}>
                {e.name}
              </button>
              <p className="preset-look">{e.doc}</p>
            </li>
          ))}
        </ul>
        <OpenFiles label="Open a workflow file…" />
      </details>
      {!waiting && <WorkflowIssues />}
      {wf && <Current wf={wf} />}
      {picked && <ExampleFiles name={picked} />}
      {wf && <BaseModels config={config} />}
    </section>
  );
}

/** A link that waits for files this browser lacks: what it needs, and where to give it. */
export function WorkflowWanted() {
  const wanted = useLab((s) => s.wanted);
  if (!wanted) return null;
  const need = wanted.workflow
    ? `Its workflow is too large to carry in a link, so the link names it by its SHA-256 (${wanted.workflow.slice(0, 12)}…): open that workflow file, and its dataset if it reads one.`
    : `Its workflow ${wanted.data!.workflow} reads ${wanted.data!.file} (SHA-256 ${wanted.data!.sha256.slice(0, 12)}…), which this browser does not have: open that file.`;
  return (
    <div role="alert" className="alert" data-testid="workflow-wanted">
      <strong>This link opens once its files are here.</strong>
      <p>
        {need} The page checks each file against what the link names; until then nothing on screen changes,
        and Train waits.
      </p>
      <OpenFiles label="Open the files…" />
      <WorkflowIssues />
      <p>
        Without them:{' '}
        <button type="button" className="link" onClick={dropWanted}>
          keep the experiment on screen
        </button>{' '}
        instead of this link’s.
      </p>
    </div>
  );
}
