/**
 * The lab's own metric exports, written here and read back by import.ts as the runs they hold, so
 * that each re-imports as what it was (docs/interop.md#reading-the-labs-own-exports-back):
 * - CSV (the page's Download CSV and a chart's CSV): `run,seed,step,<keys…>`, one line per run
 *   per step; wandb-csv.ts reads it, its `run` column naming each line's run;
 * - JSON (the page's Download JSON): the experiment, its link, and each run's label, seed, agents,
 *   live-change markers and rows;
 * - the run card of an event file (`export tensorboard`, the page's Export TensorBoard): the
 *   run's label, seed, agents and markers as JSON in a text summary, so a file read loose, renamed
 *   or beside the session's other files is still that run.
 * A card or JSON that is not as the lab writes it is refused with a message; reading never
 * throws anything but an Error saying what is wrong. Pure: no Node, no DOM.
 */
import type { Experiment } from '../core/config';
import { LIVE_PARAMS } from '../core/live-params';
import type { LiveParam } from '../core/live-params';
import type { LiveMarker } from '../core/live-schedule';
import { M } from '../core/metrics';
import type { StepMetrics } from './tensorboard';

/** What the lab knows of one repeat besides its values: its label (`GRPO #1`), seed, agents and live changes. */
export interface RunCard {
  label: string;
  seed: number;
  agents: string[];
  markers: LiveMarker[];
}

/** A repeat as the exports take it: its card, its frame keys (the CSV's column order) and its rows. */
export interface ExportedRun extends RunCard {
  keys: readonly string[];
  rows: readonly StepMetrics[];
}

/** A card's version: a newer one is refused rather than half read. */
const CARD_VERSION = 1;
/** Bounds on what a card or JSON may hold, far above any real session's. */
const MAX_LABEL = 200;
const MAX_AGENTS = 64;
const MAX_MARKERS = 100_000;

function csvCell(v: string | number | undefined): string {
  if (v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** `run,seed,step,<keys…>` then one line per run per step; empty cells where a key had no value. */
export function metricsCsv(runs: readonly ExportedRun[]): string {
  const keys = [...new Set(runs.flatMap((r) => r.keys))].filter((k) => k !== M.step);
  const lines = [['run', 'seed', M.step, ...keys].map(csvCell).join(',')];
  for (const run of runs)
    for (const row of run.rows)
      lines.push([run.label, run.seed, row[M.step], ...keys.map((k) => row[k])].map(csvCell).join(','));
  return lines.join('\n') + '\n';
}

/** The experiment, its link (`#v=1&…`) and each run's card and rows (a value not measured is left out of its row). */
export function metricsJson(experiment: Experiment, link: string, runs: readonly ExportedRun[]): string {
  const out = runs.map(({ label, seed, agents, markers, rows }) => ({ label, seed, agents, markers, rows }));
  return JSON.stringify({ experiment, link, runs: out }, null, 1);
}

/** A card as an event file carries it. */
export const runCardText = (card: RunCard): string =>
  JSON.stringify({
    v: CARD_VERSION,
    label: card.label,
    seed: card.seed,
    agents: card.agents,
    markers: card.markers,
  });

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A card's fields checked; throws an Error naming the first that is not as the lab writes it. */
function checkCard(v: Record<string, unknown>): RunCard {
  const { label, seed, agents, markers } = v;
  if (typeof label !== 'string' || label === '' || label.length > MAX_LABEL)
    throw new Error(`its label is not a name of 1 to ${MAX_LABEL} characters`);
  if (!Number.isSafeInteger(seed)) throw new Error(`run "${label}": its seed is not an integer`);
  const agentsOk =
    Array.isArray(agents) &&
    agents.length <= MAX_AGENTS &&
    agents.every((a) => typeof a === 'string' && /^[a-z][a-z0-9-]{0,15}$/.test(a));
  if (!agentsOk) throw new Error(`run "${label}": its agents are not a list of agent names`);
  if (!Array.isArray(markers) || markers.length > MAX_MARKERS)
    throw new Error(`run "${label}": its markers are not a list`);
  const marks = markers.map((m): LiveMarker => {
    const ok =
      isRecord(m) &&
      Number.isSafeInteger(m.step) &&
      (m.step as number) >= 0 &&
      LIVE_PARAMS.includes(m.param as LiveParam) &&
      typeof m.value === 'number' &&
      Number.isFinite(m.value);
    if (!ok) throw new Error(`run "${label}": a marker is not {step, param, value} of a live parameter`);
    return { step: m.step as number, param: m.param as LiveParam, value: m.value as number };
  });
  return { label, seed: seed as number, agents: [...agents] as string[], markers: marks };
}

/** The card an event file carries; throws an Error saying why it cannot be read. */
export function readRunCard(text: string): RunCard {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('its run card is not JSON');
  }
  if (!isRecord(v)) throw new Error('its run card is not a record');
  if (v.v !== CARD_VERSION)
    throw new Error(
      typeof v.v === 'number' && v.v > CARD_VERSION
        ? `its run card is version ${v.v}, written by a newer lab (this one reads version ${CARD_VERSION})`
        : 'its run card has no version this lab writes',
    );
  return checkCard(v);
}

/** One run of a metrics JSON: its card and its rows by step. */
export interface JsonRun extends RunCard {
  rows: StepMetrics[];
}

/**
 * The runs of a metrics JSON (metricsJson's shape). Each row's `step` is a whole number, unique in
 * its run; its other values are numbers, or null for a value that was not finite. Throws an Error
 * naming what is not as the lab writes it.
 */
export function readMetricsJson(text: string): JsonRun[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`, { cause: e });
  }
  if (!isRecord(v) || !Array.isArray(v.runs))
    throw new Error('not a metrics export of this lab (expected {"experiment", "link", "runs": [...]})');
  const labels = new Set<string>();
  return v.runs.map((r: unknown, i): JsonRun => {
    if (!isRecord(r)) throw new Error(`runs.${i} is not a record`);
    const card = checkCard(r);
    if (labels.has(card.label)) throw new Error(`two runs are labelled "${card.label}"`);
    labels.add(card.label);
    if (!Array.isArray(r.rows)) throw new Error(`run "${card.label}": no rows`);
    const steps = new Set<number>();
    const rows = r.rows.map((row: unknown, j): StepMetrics => {
      if (!isRecord(row)) throw new Error(`run "${card.label}": row ${j} is not a record`);
      const step = row[M.step];
      if (!Number.isSafeInteger(step) || (step as number) < 0)
        throw new Error(`run "${card.label}": row ${j} has no whole step`);
      if (steps.has(step as number)) throw new Error(`run "${card.label}": step ${step} is there twice`);
      steps.add(step as number);
      const out: StepMetrics = {};
      for (const [k, x] of Object.entries(row)) {
        if (x === null) continue; // JSON's NaN and ±Infinity: not a value
        if (typeof x !== 'number' || !Number.isFinite(x))
          throw new Error(`run "${card.label}": ${k} at step ${step} is not a finite number`);
        // A key such as __proto__ is defined, not assigned, so it stays a plain key.
        Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
      }
      return out;
    });
    return { ...card, rows };
  });
}
