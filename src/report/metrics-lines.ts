/**
 * metrics.jsonl read from its text: the CLI reads it from disk (cli/session-dir.ts), the page from a
 * folder the user opens (the sweep map), so both read the same lines the same way. Pure.
 */
import { renameMetricKey } from '../core/renamed-roles';

/** `[1, 2, 3, 7]` → `1–3, 7`: line or step numbers, runs of them joined. */
export function ranges(xs: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < xs.length; i++) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    out.push(i === j ? `${xs[i]}` : `${xs[i]}–${xs[j]}`);
    i = j;
  }
  return out.join(', ');
}

/**
 * metrics.jsonl's records from its text (cli/session-dir.ts readMetrics); `path` names it in the
 * warning; with `task`, metric keys under its agents' old role names read as today's
 * (core/renamed-roles.ts). Never throws.
 */
export function parseMetrics(
  text: string,
  path: string,
  warn?: (message: string) => void,
  task?: string,
): { line: string; run: string; metrics: Record<string, number> }[] {
  const skipped: number[] = [];
  const rows = text.split('\n').flatMap((line, i) => {
    let row: Record<string, unknown> | null = null;
    try {
      row = JSON.parse(line);
    } catch {
      // not JSON: counted below
    }
    if (typeof row?.run !== 'string' || typeof row.step !== 'number') {
      if (line.trim()) skipped.push(i + 1);
      return [];
    }
    const { run, ...rest } = row;
    return [
      {
        line,
        run,
        metrics: Object.fromEntries(
          Object.entries(rest).map(([k, v]) => [
            task ? renameMetricKey(k, task) : k,
            typeof v === 'number' ? v : NaN,
          ]),
        ),
      },
    ];
  });
  if (skipped.length) {
    const which =
      skipped.length === 1
        ? `line ${skipped[0]} is not a metrics record`
        : `lines ${ranges(skipped)} are not metrics records`;
    warn?.(`${path}: ${which} (cut off by a crash, or edited); skipped`);
  }
  return rows;
}
