// The README's "The page, measured" gives the latest reading of docs/figures.md's At a glance for
// the default experiment until its two runs finish 200 steps, and the tour's range holds it: the table once said
// 86 s (an older reading) beside the tour's "31–34 s" and figures.md's 31.4 s.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FIGURES = readFileSync(join(ROOT, 'docs', 'figures.md'), 'utf8');

/** The table row of `markdown` whose first cell starts with `what`. */
const row = (markdown: string, what: string) => {
  const line = markdown.split('\n').find((l) => l.startsWith(`| ${what}`));
  if (!line) throw new Error(`no row "${what}"`);
  return line;
};

describe('README, The page, measured', () => {
  it('gives the latest reading of the default experiment to 200 steps, within the tour’s range', () => {
    // The first bold figure of the At a glance row: one time ("31.4 s") or a range ("34–35 s").
    const latest = /\*\*(\d+(?:\.\d+)?(?:–\d+(?:\.\d+)?)?) s\*\*/.exec(
      row(FIGURES, 'default experiment in the page, until both runs finish 200 steps'),
    )?.[1];
    expect(latest, 'figures.md At a glance gives a bold figure').toBeDefined();
    const readme = row(README, 'default experiment, until both runs finish 200 steps').split('|')[2];
    expect(readme).toContain(`${latest} s`);
    const [, lo, hi] = /reach 200 steps in[^(]*\((\d+)–(\d+) s;/.exec(README) ?? [];
    for (const t of latest!.split('–').map(Number)) {
      expect(t).toBeGreaterThanOrEqual(Number(lo));
      expect(t).toBeLessThanOrEqual(Number(hi));
    }
  });
});
