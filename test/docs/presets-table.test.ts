// docs/cli.md's Presets table lists every named experiment `lab presets` and the page offer, in the
// same order, each with its task: a newcomer reading it finds the ids `--preset` takes (the
// README's starters among them).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../src/core/presets';

const CLI_MD = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');

/** The rows of the table under "## Presets": [id, task]. */
function presetRows(markdown: string): [string, string][] {
  const section = markdown.split(/^## Presets$/m)[1].split(/^## /m)[0];
  return [...section.matchAll(/^\| `([a-z0-9-]+)` +\|.*\| `([a-z-]+)` +\|$/gm)].map((m) => [m[1], m[2]]);
}

describe('docs/cli.md, Presets', () => {
  it('lists every preset, in the order of the list, with its task', () => {
    expect(presetRows(CLI_MD)).toEqual(PRESETS.map((p) => [p.id, p.config.task]));
  });
});
