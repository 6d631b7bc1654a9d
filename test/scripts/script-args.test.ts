/**
 * The scripts that take options answer `--help` with their usage (exit 0) and refuse an unknown
 * flag by name with the usage (exit 2), instead of ignoring it or dying with a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

const run = (script: string, ...args: string[]) =>
  spawnSync('npx', ['tsx', `scripts/${script}.ts`, ...args], { encoding: 'utf8', timeout: 60_000 });

it.each([
  ['pretrain', /--from-shipped/],
  ['amplification', /--credit-weight/],
  ['reward-correlation', /--batches 8/],
  ['tree-cost', /--error 0\.3/],
  ['bench-import', /--records/],
  ['bench-result', /--sweep DIR/],
  ['bench-open', /--how link,pick/],
])(
  '%s refuses an unknown flag by name, with its usage',
  (script, option) => {
    const bad = run(script, '--no-such-flag');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^Unknown option '--no-such-flag'/);
    expect(bad.stderr).toMatch(/\nUsage: npm run [\w:-]+ --/);
    expect(bad.stderr).toMatch(option);
  },
  60_000,
);

it('pretrain --help prints the usage and exits 0', () => {
  const help = run('pretrain', '--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run pretrain -- \[--task T\]/);
  expect(help.stdout).toMatch(/--sizes a=size/);
}, 60_000);
