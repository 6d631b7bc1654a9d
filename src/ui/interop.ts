/**
 * The page's side of src/interop: files dropped on the page become read-only imported runs
 * (parsed in a worker, kept in run-data.ts like local runs, listed in the store's `imported`,
 * stored in IndexedDB as an import of their own: session/recorder.ts), a result file dropped
 * opens read-only as the session on screen and Share result writes one (session/result.ts),
 * and the session's runs go out as TensorBoard event files or as Dr. MAS launch scripts.
 */
import { evalKsOf } from '../core/metrics';
import { estimatorNamed, runColors } from '../core/estimators';
import { encodeExperiment } from '../core/url';
import { readInFolder } from '../interop/file-kinds';
import { runCardText } from '../interop/lab-exports';
import { baseLabel } from '../report/findings';
import { readResult, tooLarge } from '../report/result-file';
import { RESULT_EXTENSION } from '../report/result-format';
import type { Result } from '../report/result-format';
import { ExportRefused, exportDrmas } from '../interop/drmas';
import { DEFAULT_DRMAS_MODEL } from '../interop/drmas-counterparts';
import { drmasReadme } from '../interop/drmas-readme';
import { parseInWorker } from '../workers/import-client';
import { readResultInWorker } from '../workers/result-fetch-client';
import type { PackedRun } from '../workers/import-client';
import { runId } from '../workers/protocol';
import type { RunId } from '../workers/protocol';
import { takeEarlyRead } from './early-open';
import { downloadBlob, fileName, stamp } from './export';
import { controller } from './session/page';
import { storedSessionResult } from './session/result';
import { RING_CAPACITY, allRows, forgetRunData, restoreRunData } from './run-data';
import { addError, boardRuns, setSession, useLab } from './session/store';
import type { RunView, StoredRun } from './session/store';

/** Legend indices of imported runs start here, clear of the experiment's runs (at most 6). */
const IMPORTED_INDEX = 1000;

/** One line per imported run: what was read and what was lost. */
function describeImport(run: PackedRun, steps: number): string {
  const damage =
    run.skipped || run.truncatedBytes
      ? `; ${run.skipped} damaged records skipped, ${run.truncatedBytes} bytes of a cut-off tail`
      : '';
  const inferred = run.inferred.length
    ? `; agents inferred: ${run.inferred.map((wg) => `${wg} → ${run.wgAgents[wg].join('+')}`).join(', ')}`
    : '';
  const held =
    steps > RING_CAPACITY ? `; the charts hold its last ${RING_CAPACITY} steps (all are stored)` : '';
  return `${run.label}: ${steps} steps, ${run.records} records${damage}${inferred}${held}`;
}

/** A file to import and its path under what was dropped or picked (folder names name runs). */
export interface DroppedFile {
  path: string;
  file: File;
}

/** Picked files: with their folder when one was picked (webkitdirectory), else each on its own. */
export const pickedFiles = (files: Iterable<File>): DroppedFile[] =>
  [...files]
    .map((file) => ({ path: file.webkitRelativePath || `${file.name}/${file.name}`, file }))
    .filter(({ path, file }) => !file.webkitRelativePath || readInFolder(path)); // a folder's other files are not runs

/** Paths (`, `-joined) as the user picked them: a lone file's `<file>/<file>` is its name. */
const shownPath = (paths: string): string =>
  paths
    .split(', ')
    .map((p) => {
      const [dir, name, ...rest] = p.split('/');
      return rest.length === 0 && dir === name ? name : p;
    })
    .join(', ');

/**
 * What was dropped, folders walked (a folder of event files is one run, as in TensorBoard and
 * `lab import`). Each top-level item is named as the picker names it: `<folder>/<…>/<file>`, or
 * `<file>/<file>` for a file dropped on its own.
 */
export async function droppedFiles(data: DataTransfer): Promise<DroppedFile[]> {
  const entries = [...data.items].flatMap((item) => item.webkitGetAsEntry?.() ?? []);
  if (entries.length === 0) return pickedFiles(data.files);
  const out: DroppedFile[] = [];
  // Inside a folder only event files and CSVs are read (as `lab import` does); a file dropped on
  // its own is always tried, so one of another kind is refused by name.
  const walk = async (entry: FileSystemEntry, path: string, top: boolean): Promise<void> => {
    if (entry.isFile) {
      if (!top && !readInFolder(path)) return;
      const file = await new Promise<File>((ok, ko) => (entry as FileSystemFileEntry).file(ok, ko));
      out.push({ path, file });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries gives a batch at a time (100 in Chromium) until an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((ok, ko) => reader.readEntries(ok, ko));
      if (batch.length === 0) break;
      batch.sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const child of batch) await walk(child, `${path}/${child.name}`, false);
    }
  };
  for (const entry of entries)
    await walk(entry, entry.isFile ? `${entry.name}/${entry.name}` : entry.name, true);
  return out;
}

/**
 * Puts a read result on screen in a task after the one that received it: copying the worker's
 * answer onto this thread and drawing its runs would otherwise be one long task (bench:open,
 * docs/sharing.md#opening-speed). The `result read` mark tells benchmarks when the answer came.
 */
async function showResult(result: Result, name: string, url: string | null = null): Promise<void> {
  performance.mark('result read');
  await new Promise((next) => setTimeout(next, 0));
  controller.openResult(result, name, url);
}

/** A line Other tools lists beside its drop zone; a refusal is drawn as one. */
export interface DropNote {
  text: string;
  refused?: true;
}

/**
 * A file not opened or not imported: the page's alert and a note beside the drop zone, in the same
 * words. Other tools sits far down the sidebar, out of sight of the alert at the top.
 */
export function refusal(text: string): DropNote {
  addError(text);
  return { text, refused: true };
}

/**
 * A result file dropped or picked: opened read-only in place of the session on screen
 * (session/result.ts), or refused saying why (refusal), with nothing on screen or stored touched.
 */
async function openResultFile(file: File): Promise<DropNote[]> {
  let result;
  try {
    const large = tooLarge(file.size); // refused before its bytes are read into memory
    if (large) throw new Error(`${file.name}: not opened: ${large}`);
    result = await readResultInWorker({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
  } catch (e) {
    return [refusal((e as Error).message)];
  }
  await showResult(result, file.name);
  return [{ text: `${file.name}: opened read-only (SHA-256 ${result.sha256.slice(0, 12)}…)` }];
}

/**
 * Offers a result file made by `make`, read back first: a file this lab would refuse to open is
 * never shared (docs/sharing.md); what went wrong is said in the alert. Resolves to the file's
 * name, or null where it failed.
 */
async function offerResult(make: () => Uint8Array | Promise<Uint8Array>): Promise<string | null> {
  try {
    const bytes = await make();
    readResult(bytes);
    const name = `agentwise-result-${stamp()}${RESULT_EXTENSION}`;
    downloadBlob(name, new Blob([bytes as BlobPart], { type: 'application/gzip' }));
    return name;
  } catch (e) {
    addError(`Share result failed: ${(e as Error).message}`);
    return null;
  }
}

/** Share result: the session on screen as a result file; resolves to its name (null: it failed). */
export function downloadResult(): Promise<string | null> {
  return offerResult(() => controller.shareResult());
}

/**
 * Past sessions → Share: a stored session as a result file, without opening it (it stays as it
 * is); resolves to the file's name (null: it failed).
 */
export function shareStored(id: string): Promise<string | null> {
  return offerResult(async () => {
    const got = await controller.recorder.loadSession(id);
    if (!got) throw new Error('that session is no longer stored');
    return storedSessionResult(got.session, got.frames);
  });
}

/**
 * `#open=<URL>`: the result file fetched and read in its own worker (its CSP alone reaches other
 * origins: src/host/headers.ts), then opened read-only. The link the page was loaded with was
 * started on by its first script (early-open.ts). Resolves to null once it opened, or to what went
 * wrong (url-sync.ts says it in the link's alert).
 */
export async function openLinkedResult(url: string): Promise<string | null> {
  let result;
  try {
    result = await (takeEarlyRead(url) ?? readResultInWorker({ url }));
  } catch (e) {
    return (e as Error).message;
  }
  await showResult(result, url, url);
  return null;
}

/**
 * Puts stored imported runs on the charts (read-only, no worker). Seeds of one group share a
 * legend entry and a colour, across imports too, so the index is chosen here, not stored. A
 * group's colour is the estimator its name says (estimatorNamed: `grpo_seed2` is GRPO's), unless
 * a run on the board has it already: a colour never stands for two estimators.
 */
function showRuns(runs: readonly StoredRun[], frames: ReadonlyMap<RunId, readonly Float64Array[]>): void {
  const s = useLab.getState();
  const groups = new Map(s.imported.map((r) => [baseLabel(r.label), r.runIndex]));
  const colors = new Map(s.imported.map((r) => [baseLabel(r.label), r.color]));
  const taken = [...boardRuns(s), ...s.imported].map((r) => r.color);
  const added = runs.map((run): RunView => {
    const mine = frames.get(run.id) ?? [];
    restoreRunData(run.id, run.keys, [...mine]);
    const group = baseLabel(run.label);
    if (!groups.has(group)) groups.set(group, Math.max(IMPORTED_INDEX - 1, ...groups.values()) + 1);
    if (!colors.has(group)) {
      const [color] = runColors([estimatorNamed(group)], [...taken, ...colors.values()]);
      colors.set(group, color);
    }
    return {
      id: run.id,
      label: run.label,
      seed: run.seed,
      runIndex: groups.get(group)!,
      color: colors.get(group)!,
      agents: run.agents,
      evalKs: run.evalKs,
      models: [],
      base: {},
      markers: run.markers ?? [],
      state: 'done',
      message: run.note,
      step: run.lastStep,
      tokensPerS: NaN,
      rolloutStep: -1,
    };
  });
  setSession((s) => ({
    imported: [...s.imported.filter((r) => !runs.some((x) => x.id === r.id)), ...added],
    frameVersion: s.frameVersion + 1,
  }));
}

/**
 * Reads dropped files in a worker, adds each run they hold to the charts and stores them in
 * IndexedDB as one import (a session of its own: nothing recorded is replaced). Returns one note
 * per run, one saying whether the import was stored, and one per file refused (also in the alert).
 */
export async function importDropped(dropped: readonly DroppedFile[]): Promise<DropNote[]> {
  const isResult = (f: DroppedFile) => f.file.name.endsWith(RESULT_EXTENSION);
  const results = dropped.filter(isResult);
  const notes =
    results.length > 1
      ? [refusal(`${results.length} result files: one opens at a time (${results[0].file.name} here)`)]
      : [];
  if (results.length > 0) notes.push(...(await openResultFile(results[0].file)));
  const files = dropped.filter((f) => !isResult(f));
  if (files.length === 0) return notes;
  const inputs = await Promise.all(
    files.map(async ({ path, file }) => ({ path, bytes: new Uint8Array(await file.arrayBuffer()) })),
  );
  const { runs, refused } = await parseInWorker(inputs);
  notes.push(...refused.map((r) => refusal(`${shownPath(r.path)}: not imported: ${r.reason}`)));
  if (runs.length === 0) return notes;
  const id = `i${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const frames = new Map<RunId, Float64Array[]>();
  const stored = runs.map((run, i): StoredRun => {
    const rid = runId(`${id}-${i}`);
    const width = run.columns.length;
    // Views of the transferred buffer (the ring copies them; the recorder copies them as it stores).
    const mine = Array.from({ length: run.frames.length / width }, (_, j) =>
      run.frames.subarray(j * width, (j + 1) * width),
    );
    frames.set(rid, mine);
    // `GRPO #0` → `GRPO (imported) #0`: the group's seeds stay one legend entry beside the session's.
    const label = `${run.group} (imported)${run.label.slice(run.group.length)}`;
    return {
      id: rid,
      label,
      seed: run.seed,
      runIndex: IMPORTED_INDEX,
      color: '',
      keys: run.columns,
      agents: run.agents,
      models: [],
      base: {},
      markers: run.markers,
      evalKs: evalKsOf(run.columns),
      lastStep: mine.length ? mine[mine.length - 1][0] : 0,
      note: describeImport(run, mine.length),
    };
  });
  showRuns(stored, frames);
  const kept = await controller.recorder.storeImport(id, stored, frames);
  return [
    ...notes,
    ...stored.map((r) => ({ text: r.note! })),
    {
      text: kept
        ? 'stored in this browser (Past sessions)'
        : 'not stored: this browser keeps no runs (see the alert)',
    },
  ];
}

/** Past sessions → Show: a stored import back on the charts. */
export async function showImport(id: string): Promise<void> {
  if (useLab.getState().imported.some((r) => r.id.startsWith(`${id}-`))) return;
  const got = await controller.recorder.loadSession(id);
  if (!got) return;
  const frames = new Map<RunId, Float64Array[]>();
  for (const f of got.frames) frames.set(f.run, [...(frames.get(f.run) ?? []), f.values]);
  showRuns(got.session.runs, frames);
  await controller.recorder.setImportShown(id, true);
}

/** Past sessions → Hide: an import off the charts (still stored). */
export async function hideImport(id: string): Promise<void> {
  const mine = (r: RunView) => r.id.startsWith(`${id}-`);
  const { imported } = useLab.getState();
  forgetRunData(imported.filter(mine).map((r) => r.id));
  setSession((s) => ({
    imported: s.imported.filter((r) => !mine(r)),
    frameVersion: s.frameVersion + 1,
  }));
  await controller.recorder.setImportShown(id, false);
}

/**
 * Each of the session's runs as a TensorBoard event file (put each in its own folder for
 * --logdir), carrying its card: read back loose or in one folder, each file is still its run.
 * Its writer (protobuf, CRC-32C: a chunk of 50 KB) is loaded on the click, not with every visit
 * to the page; where it cannot be (offline, or the page was deployed anew since it loaded), or
 * writing fails, the alert says so.
 */
export async function downloadTensorboard(): Promise<void> {
  let writer;
  try {
    writer = await import('../interop/tensorboard');
  } catch (e) {
    return addError(
      `Export TensorBoard failed: its writer could not be loaded (${(e as Error).message}); reload the page and try again`,
    );
  }
  const { eventFileName, writeEventFile } = writer;
  const wallStart = Date.now() / 1000;
  try {
    for (const run of useLab.getState().runs) {
      const card = { label: run.label, seed: run.seed, agents: run.agents, markers: run.markers };
      const bytes = writeEventFile(allRows(run.id), wallStart, runCardText(card));
      downloadBlob(
        `${eventFileName(wallStart)}.${fileName(run.label).replace(/^agentwise-/, '')}`,
        new Blob([bytes as BlobPart]),
      );
    }
  } catch (e) {
    addError(`Export TensorBoard failed: ${(e as Error).message}`);
  }
}

/**
 * The experiment as Dr. MAS launch scripts, in one self-extracting shell archive: `bash` it and
 * it writes the folder `lab export drmas` writes. Refusals are shown naming the field.
 */
export function downloadDrmas(): void {
  const config = useLab.getState().config;
  let out;
  try {
    out = exportDrmas(config, [DEFAULT_DRMAS_MODEL]);
  } catch (e) {
    if (e instanceof ExportRefused) return addError(`Dr. MAS cannot run this experiment: ${e.message}`);
    throw e;
  }
  const files = {
    ...out.files,
    'README.md': drmasReadme(
      config,
      out,
      [DEFAULT_DRMAS_MODEL],
      encodeExperiment(config) || 'the default experiment',
    ),
  };
  const dir = `drmas-${config.task}`;
  const archive = [
    '#!/usr/bin/env bash',
    `# Dr. MAS launch scripts of a lab experiment: bash this file to write them to ./${dir}/ (README.md says what next).`,
    'set -e',
    `mkdir -p ${dir}`,
    ...Object.entries(files).map(
      ([name, text]) =>
        `cat > ${dir}/${name} <<'AGENTWISE_EOF'\n${text.endsWith('\n') ? text : text + '\n'}AGENTWISE_EOF`,
    ),
    `chmod +x ${out.scripts.map((s) => `${dir}/${s}`).join(' ')}`,
    `echo "wrote ${dir}/: ${Object.keys(files).join(', ')}"`,
    '',
  ].join('\n');
  downloadBlob(`agentwise-${dir}.sh`, new Blob([archive], { type: 'text/x-shellscript' }));
}
