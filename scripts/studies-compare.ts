/**
 * Which verdicts hold across machines: two table files of one study (`npm run studies` written on
 * two machines, or at two commits) read side by side, verdict for verdict. A verdict is a paired
 * difference's reading from its 95 % CI, as `lab report` prints it; it is read here as one word
 * (identical, same, higher, lower, none) so that the CI's digits, which drift across machines
 * (docs/findings.md#tables-drift-across-machines), do not count as a change. Pure: text in, text out.
 */

/** One verdict of a table: the row it is on (figure and cell), the comparison it reads, and its word. */
export interface Verdict {
  row: string;
  comparison: string;
  word: string;
}

/**
 * A verdict cell as one word: 'identical' (every seed equal), 'same' (CI holds 0), 'higher',
 * 'lower', 'none' (no paired values: nothing measured, worded "… yet" by older reports), or the
 * cell itself.
 */
export function verdictWord(cell: string): string {
  if (/^no paired values/.test(cell)) return 'none';
  if (/identical/.test(cell)) return 'identical';
  if (/\bhigher\b/.test(cell)) return 'higher';
  if (/\blower\b/.test(cell)) return 'lower';
  if (/^same$|no difference/.test(cell)) return 'same';
  return cell;
}

/**
 * Every verdict of the text tables in `text` (lab report's: a header line, a rule of dashes, rows;
 * `#` lines and other prose skipped). A row is named by its figure, and in a sweep's map by its
 * cell's dials too; each `verdict` column reads the paired-difference column before it.
 */
export function readVerdicts(text: string): Verdict[] {
  const lines = text.split('\n');
  const out: Verdict[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^-+( +-+)*\s*$/.test(lines[i]) || !/\S/.test(lines[i - 1])) continue;
    const starts = [...lines[i].matchAll(/-+/g)].map((m) => m.index);
    const cut = (line: string) =>
      starts.map((s, k) => line.slice(s, k + 1 < starts.length ? starts[k + 1] : undefined).trim());
    const head = cut(lines[i - 1]);
    const verdicts = head.flatMap((h, k) => (h === 'verdict' && k > 0 ? [k] : []));
    if (!verdicts.length) continue;
    // A sweep map's rows are a figure and a cell (its dials, up to the steps column); a train
    // folder's, a figure alone.
    const keyEnd = Math.max(1, head.indexOf('steps'));
    for (let j = i + 1; j < lines.length && lines[j].trim() !== ''; j++) {
      const cells = cut(lines[j]);
      const row = cells.slice(0, keyEnd).join(' · ');
      for (const k of verdicts) out.push({ row, comparison: head[k - 1], word: verdictWord(cells[k]) });
    }
  }
  return out;
}

/** Verdicts of two tables of one study matched by row and comparison: those that agree and those that do not. */
export function compareVerdicts(
  a: readonly Verdict[],
  b: readonly Verdict[],
): {
  held: Verdict[];
  changed: { row: string; comparison: string; a: string; b: string }[];
  unmatched: number;
} {
  const key = (v: Verdict) => `${v.row}\u0000${v.comparison}`;
  const other = new Map(b.map((v) => [key(v), v]));
  const held: Verdict[] = [];
  const changed: { row: string; comparison: string; a: string; b: string }[] = [];
  for (const v of a) {
    const w = other.get(key(v));
    if (!w) continue;
    if (w.word === v.word) held.push(v);
    else changed.push({ row: v.row, comparison: v.comparison, a: v.word, b: w.word });
  }
  return { held, changed, unmatched: a.length + b.length - 2 * (held.length + changed.length) };
}

/** The comparison as lines for the terminal: a count, then every verdict that changed. */
export function comparisonText(study: string, a: string, b: string): string[] {
  const { held, changed, unmatched } = compareVerdicts(readVerdicts(a), readVerdicts(b));
  return [
    `${study}: ${held.length} verdicts hold, ${changed.length} changed${unmatched ? `, ${unmatched} in one table only` : ''}`,
    ...changed.map((c) => `  ${c.row}: ${c.comparison}: ${c.a} → ${c.b}`),
  ];
}
