/**
 * Lab runs as TensorBoard event files and back: one file per run, the first record the file
 * version, then the run's card (a text summary, RUN_CARD_TAG: which run of the lab this file
 * holds, lab-exports.ts), then one Event per step holding every finite metric of that step as a
 * simple_value (float32; NaN is the lab's "not measured this step", e.g. eval between
 * evaluations, and is left out). Reading merges any number of events into per-step rows. Pure:
 * no Node, no DOM.
 */
import { M } from '../core/metrics';
import { decodeEvent, encodeFileVersion, encodeScalars, encodeText } from './tb-event';
import { frameRecords, readRecords } from './tfrecord';
import { EVENT_FILE_INFIX } from './file-kinds';

/** One step's metrics, keyed by name, with `step`. */
export type StepMetrics = Record<string, number>;

export function eventFileName(wallStart: number): string {
  return `events.out.${EVENT_FILE_INFIX}.${Math.floor(wallStart)}.agentwise-lab`;
}

/** The text summary's tag under which a lab event file names its run (TensorBoard's Text tab shows it). */
export const RUN_CARD_TAG = 'agentwise-lab/run';

/**
 * The event file of one run's rows (each with `step`, and `time_s` for the wall time, counted
 * from `wallStart` in seconds since the epoch), with the run's card (its text) when given.
 */
export function writeEventFile(rows: readonly StepMetrics[], wallStart: number, card?: string): Uint8Array {
  const records = [encodeFileVersion(wallStart)];
  if (card !== undefined) records.push(encodeText(rows[0]?.[M.step] ?? 0, wallStart, RUN_CARD_TAG, card));
  for (const row of rows) {
    const scalars = Object.entries(row).filter(
      ([k, v]) => k !== M.step && k !== M.timeS && Number.isFinite(v),
    );
    const time = Number.isFinite(row[M.timeS]) ? row[M.timeS] : 0;
    records.push(encodeScalars(row[M.step], wallStart + time, scalars));
  }
  return frameRecords(records);
}

interface EventFileScan {
  /** Rows by step, ascending; a tag written twice at one step keeps the later value (as TensorBoard shows). */
  rows: StepMetrics[];
  /** Records read whole (including the file-version event). */
  records: number;
  /** Records dropped for a bad CRC, a bad length header or a body that is not an Event. */
  skipped: number;
  /** Bytes of an incomplete last record (the file was cut off), 0 if none. */
  truncatedBytes: number;
  /** The text of the file's run card (RUN_CARD_TAG), null when it has none; the first one counts. */
  card: string | null;
}

/** Every scalar of one event file, as rows by step. Never throws on damaged bytes. */
export function readEventFile(bytes: Uint8Array): EventFileScan {
  const scan = readRecords(bytes);
  const byStep = new Map<number, StepMetrics>();
  let skipped = scan.skipped;
  let records = 0;
  let firstWall = NaN;
  let card: string | null = null;
  for (const data of scan.records) {
    let event;
    try {
      event = decodeEvent(data);
    } catch {
      skipped++;
      continue;
    }
    records++;
    // time_s counts from the file's first event (the file-version record when there is one).
    if (!Number.isFinite(firstWall) && event.wallTime > 0) firstWall = event.wallTime;
    card ??= event.texts.find(([tag]) => tag === RUN_CARD_TAG)?.[1] ?? null;
    if (event.scalars.length === 0) continue;
    let row = byStep.get(event.step);
    if (!row) byStep.set(event.step, (row = { [M.step]: event.step }));
    for (const [tag, value] of event.scalars) row[tag] = value;
    if (event.wallTime > 0 && !(M.timeS in row)) row[M.timeS] = event.wallTime - firstWall;
  }
  const rows = [...byStep.values()].sort((a, b) => a[M.step] - b[M.step]);
  return { rows, records, skipped, truncatedBytes: scan.truncatedBytes, card };
}
