/**
 * Every export of the page reads back through Other tools as what it was: a trained session of two
 * runs × two seeds with a live change, downloaded by the page's own buttons (Download CSV,
 * Download JSON, Export TensorBoard), is dropped back, as loose files and, for the event files, as
 * the folder they were saved in. Each import, as IndexedDB stores it, must be the session's runs:
 * the same labels (`GRPO (imported) #0`), seeds, agents and values (float32 through TensorBoard),
 * with the markers where the format keeps them (JSON, event files).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TINY, downloads, dropLoose, openLab, runsIn, storedSessions, trainEnabled } from './harness';
import type { Lab, StoredSessionRows } from './harness';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

/** Drops a folder from disk as the OS does (DevTools drag with its path: the page walks it). */
async function dropFolder(l: Lab, path: string): Promise<void> {
  await l.page.getByTestId('drop-zone').scrollIntoViewIfNeeded();
  const box = (await l.page.getByTestId('drop-zone').boundingBox())!;
  const cdp = await l.context.newCDPSession(l.page);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const data = { items: [{ mimeType: 'text/plain', data: path }], files: [path], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
}

/** The session's runs as an import of them must hold them: labelled `<run> (imported) #s`, values mapped by `value`. */
const asImported = (
  trained: StoredSessionRows,
  value: (v: number) => number,
  markers: readonly unknown[][] | null,
  skip: string[],
) =>
  trained.runs.map((r, i) => ({
    label: r.label.replace(/ #(\d+)$/, ' (imported) #$1'),
    seed: r.seed,
    agents: r.agents,
    markers: markers?.[i] ?? [],
    steps: r.steps,
    rows: r.rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).flatMap(([k, v]) => (skip.includes(k) ? [] : [[k, k === 'step' ? v : value(v)]])),
      ),
    ),
  }));

describe('every export of the page reads back as what it was', () => {
  it('Download CSV, Download JSON and Export TensorBoard (loose and as a folder) re-import as the same runs, seeds, agents and values', async () => {
    lab = await openLab(`${TINY}&seed=5&seeds=2&steps=3&runs.1.live.1.optim.lr=0.002`);
    const { page } = lab;
    await trainEnabled(page, 120_000);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await runsIn(lab, 'done', 180_000);
    // Every frame stored (the writer flushes at most every second).
    await expect
      .poll(async () => (await storedSessions(lab!))[0]?.runs.map((r) => r.rows.length), { timeout: 30_000 })
      .toEqual([3, 3, 3, 3]);
    const [trained] = await storedSessions(lab);
    expect(trained.runs.map((r) => [r.label, r.seed])).toEqual([
      ['GRPO #0', 5],
      ['GRPO #1', 6],
      ['Dr. MAS #0', 5],
      ['Dr. MAS #1', 6],
    ]);
    const csv = await downloads(lab, 'Download CSV', 1);
    const json = await downloads(lab, 'Download JSON', 1);
    // The live change the link scheduled, on each Dr. MAS run as the page holds it.
    const { runs: shown } = JSON.parse(readFileSync(Object.values(json)[0], 'utf8')) as {
      runs: { label: string; markers: unknown[] }[];
    };
    const lr = [{ step: 1, param: 'lr', value: 0.002 }];
    expect(shown.map((r) => [r.label, r.markers])).toEqual([
      ['GRPO #0', []],
      ['GRPO #1', []],
      ['Dr. MAS #0', lr],
      ['Dr. MAS #1', lr],
    ]);
    const tb = await downloads(lab, 'Export TensorBoard', 4);
    const folder = join(mkdtempSync(join(tmpdir(), 'agentwise-tb-')), 'downloads');
    mkdirSync(folder);
    for (const [name, path] of Object.entries(tb)) copyFileSync(path, join(folder, name));

    const exact = (v: number) => v;
    const marks = shown.map((r) => r.markers);
    const cases: [string, () => Promise<void>, (v: number) => number, unknown[][] | null, string[]][] = [
      ['csv', () => dropLoose(lab!, csv), exact, null, []], // a CSV holds no markers
      ['json', () => dropLoose(lab!, json), exact, marks, []],
      // TensorBoard keeps float32 scalars and wall times (time_s comes back within float64 of the epoch's seconds).
      ['tensorboard, loose', () => dropLoose(lab!, tb), Math.fround, marks, ['time_s']],
      ['tensorboard, a folder', () => dropFolder(lab!, folder), Math.fround, marks, ['time_s']],
    ];
    for (const [name, drop, value, markers, skip] of cases) {
      const before = new Set((await storedSessions(lab)).map((s) => s.id));
      await drop();
      const added = async () => (await storedSessions(lab!)).filter((s) => !before.has(s.id));
      await expect.poll(async () => (await added()).length, { timeout: 30_000 }).toBe(1);
      const [mine] = await added();
      expect(mine.kind).toBe('import');
      const strip = (runs: StoredSessionRows['runs']) =>
        runs.map((r) => ({
          ...r,
          rows: r.rows.map((row) =>
            Object.fromEntries(Object.entries(row).filter(([k]) => !skip.includes(k))),
          ),
        }));
      // A folder is read in file-name order: the runs are compared by label.
      const byLabel = <R extends { label: string }>(runs: R[]) =>
        runs.sort((a, b) => (a.label < b.label ? -1 : 1));
      expect(byLabel(strip(mine.runs)), name).toEqual(byLabel(asImported(trained, value, markers, skip)));
    }
    expect(lab.errors).toEqual([]);
  });
});
