/**
 * The page's side of src/interop: files dropped on the page become read-only imported runs
 * (parsed in a worker, kept in run-data.ts like local runs, listed in the store's `imported`),
 * and the session's runs go out as TensorBoard event files or as Dr. MAS launch scripts.
 */
import { encodeExperiment } from '../core/url';
import { DEFAULT_DRMAS_MODEL, ExportRefused, drmasReadme, exportDrmas } from '../interop/drmas';
import { eventFileName, writeEventFile } from '../interop/tensorboard';
import { parseInWorker } from '../runtime/import-client';
import type { PackedRun } from '../runtime/import-client';
import { runId } from '../runtime/protocol';
import { downloadBlob, fileName } from './export';
import { allRows, restoreRunData } from './run-data';
import { addError, runColor, useLab } from './store';
import type { RunView } from './store';

/** Legend indices of imported runs start here, clear of the experiment's runs (at most 6). */
const IMPORTED_INDEX = 1000;
let imports = 0;

/** One line per imported run: what was read and what was lost. */
export function describeImport(run: PackedRun, steps: number): string {
  const damage = run.skipped || run.truncatedBytes ? `; ${run.skipped} damaged records skipped, ${run.truncatedBytes} bytes of a cut-off tail` : '';
  const inferred = run.inferred.length ? `; agents inferred: ${run.inferred.map((wg) => `${wg} → ${run.wgAgents[wg].join('+')}`).join(', ')}` : '';
  return `${run.label}: ${steps} steps, ${run.records} records${damage}${inferred}`;
}

/** Reads dropped files in a worker and adds each run they hold to the charts. Returns one note per run. */
export async function importDropped(files: readonly File[]): Promise<string[]> {
  // A file dropped on its own is its own run; one picked with its folder is named by the folder.
  const inputs = await Promise.all(
    files.map(async (f) => ({ path: f.webkitRelativePath || `${f.name}/${f.name}`, bytes: new Uint8Array(await f.arrayBuffer()) })),
  );
  const { runs, refused } = await parseInWorker(inputs);
  for (const r of refused) addError(`${r.path}: not imported: ${r.reason}`);
  const added: RunView[] = runs.map((run) => {
    const n = imports++;
    const id = runId(`import-${n}`);
    const width = run.columns.length;
    const frames = Array.from({ length: run.frames.length / width }, (_, i) => run.frames.subarray(i * width, (i + 1) * width));
    restoreRunData(id, run.columns, frames);
    return {
      id,
      label: `${run.label} (imported)`,
      seed: 0,
      runIndex: IMPORTED_INDEX + n,
      color: runColor(2 + n),
      state: 'done',
      message: describeImport(run, frames.length),
      step: frames.length ? frames[frames.length - 1][0] : 0,
      agents: run.agents,
      models: [],
      base: {},
      tokensPerS: NaN,
      markers: [],
      rolloutStep: -1,
    };
  });
  useLab.setState((s) => ({ imported: [...s.imported, ...added], frameVersion: s.frameVersion + 1 }));
  return added.map((r) => r.message!);
}

/** Each of the session's runs as a TensorBoard event file (put each in its own folder for --logdir). */
export function downloadTensorboard(): void {
  const wallStart = Date.now() / 1000;
  for (const run of useLab.getState().runs) {
    const bytes = writeEventFile(allRows(run.id), wallStart);
    downloadBlob(`${eventFileName(wallStart)}.${fileName(run.label).replace(/^agentwise-/, '')}`, new Blob([bytes as BlobPart]));
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
  const files = { ...out.files, 'README.md': drmasReadme(config, out, [DEFAULT_DRMAS_MODEL], encodeExperiment(config) || 'the default experiment') };
  const dir = `drmas-${config.task}`;
  const archive = [
    '#!/usr/bin/env bash',
    `# Dr. MAS launch scripts of a lab experiment: bash this file to write them to ./${dir}/ (README.md says what next).`,
    'set -e',
    `mkdir -p ${dir}`,
    ...Object.entries(files).map(([name, text]) => `cat > ${dir}/${name} <<'AGENTWISE_EOF'\n${text.endsWith('\n') ? text : text + '\n'}AGENTWISE_EOF`),
    `chmod +x ${out.scripts.map((s) => `${dir}/${s}`).join(' ')}`,
    `echo "wrote ${dir}/: ${Object.keys(files).join(', ')}"`,
    '',
  ].join('\n');
  downloadBlob(`agentwise-${dir}.sh`, new Blob([archive], { type: 'text/x-shellscript' }));
}
