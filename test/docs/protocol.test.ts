// docs/architecture.md#the-worker-protocol lists every message of the worker protocol, both ways,
// and nothing else: the types of the `ToWorker` and `FromWorker` unions of src/workers/protocol.ts,
// read as text, against the first column of the page's two tables. A message added to the protocol
// without a line on the page (as `run-state` and `stopped` once were) fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const protocol = readFileSync(join(ROOT, 'src/workers/protocol.ts'), 'utf8');
const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

/** The `type` literals of the union `name`: from its declaration to the next declaration. */
function unionTypes(name: string): string[] {
  const start = protocol.indexOf(`export type ${name} =`);
  expect(start, name).toBeGreaterThan(0);
  const rest = protocol.slice(start + 1);
  const end = rest.search(/\n(export |\/\*\* [A-Z])/);
  const body = rest.slice(0, end < 0 ? undefined : end);
  return [...body.matchAll(/\btype: '([a-z-]+)'/g)].map((m) => m[1]).sort();
}

/** The messages of the page's table whose header starts with `header`. */
function tableMessages(header: string): string[] {
  const lines = page.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${header}`));
  expect(at, header).toBeGreaterThan(0);
  const rows: string[] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows.flatMap((r) => [...r.split('|')[1].matchAll(/`([a-z-]+)`/g)].map((m) => m[1])).sort();
}

describe('the worker protocol on docs/architecture.md', () => {
  it('lists every page → worker message', () => {
    const sent = unionTypes('ToWorker');
    expect(sent).toContain('run-state');
    expect(tableMessages('page → worker')).toEqual(sent);
  });

  it('lists every worker → page message', () => {
    const heard = unionTypes('FromWorker');
    expect(heard).toEqual(expect.arrayContaining(['run-state', 'stopped']));
    expect(tableMessages('worker → page')).toEqual(heard);
  });
});
