import { describe, expect, it } from 'vitest';
import { parseCli, parseOptions, UsageError } from '../../src/cli/args';
import { parseMerge, parseSweep } from '../../src/cli/sweep-args';

const base = ['--grid', 'optim.lr=0.001,0.002', '--steps', '5', '--out', 'd'];

describe('lab sweep and merge command lines', () => {
  it('reads the dials, shard and workers', () => {
    expect(parseCli(['sweep', ...base])).toEqual({ command: 'sweep', argv: base });
    const a = parseSweep([...base, '--grid', 'runs.1.estimator=drmas', '--shard', '1/3', '--workers', '2']);
    expect(a).toMatchObject({
      grid: [
        { key: 'optim.lr', values: ['0.001', '0.002'] },
        { key: 'runs.1.estimator', values: ['drmas'] },
      ],
      steps: 5,
      out: 'd',
      shard: { index: 1, count: 3 },
      workers: 2,
      backend: 'wasm',
      checkpointEvery: 25,
      config: null,
    });
    // A --config link may bring every dial itself (sweep.KEY=…): sweep.ts reads them from it.
    expect(parseSweep(['--config', 'v=1&sweep.optim.lr=1,2', '--steps', '5', '--out', 'd'])).toMatchObject({
      grid: [],
      config: 'v=1&sweep.optim.lr=1,2',
    });
    expect(parseSweep(['--help'])).toBeNull();
    expect(parseMerge(['a', 'b', '--out', 'm'])).toEqual({ command: 'merge', shards: ['a', 'b'], out: 'm' });
  });

  it('refuses a bad command line, naming the option', () => {
    expect(() => parseSweep(['--steps', '5', '--out', 'd'])).toThrow('sweep needs at least one --grid');
    expect(() => parseSweep(['--grid', 'optim.lr=1', '--steps', '5'])).toThrow('sweep needs --out DIR');
    expect(() => parseSweep([...base, '--shard', '3/3'])).toThrow('--shard 3/3: expected i/n with 0 ≤ i < n');
    expect(() => parseSweep([...base, '--workers', '0'])).toThrow(
      '--workers must be a whole number ≥ 1; got "0"',
    );
    expect(() => parseSweep([...base, '--workers', '-2'])).toThrow(
      '--workers must be a whole number ≥ 1; got "-2"',
    );
    expect(() => parseSweep([...base, '--grid', 'optim.lr'])).toThrow(
      '--grid optim.lr: expected KEY=v1,v2,…',
    );
    expect(() => parseSweep([...base, '--bogus'])).toThrow(/Unknown option '--bogus'/);
    expect(() => parseMerge(['a'])).toThrow('usage: npm run lab -- merge SHARD_DIR… --out DIR');
  });

  it("refuses an unknown option with the one it most likely meant, or the command's options, and its usage (one parser: args.ts parseOptions)", () => {
    expect(() => parseSweep([...base, '--frob'])).toThrow(
      "Unknown option '--frob'; one of: --config, --workflow, --grid, --steps, --out, --shard, --workers, --backend, --checkpoint-every, --quiet, --help; npm run lab -- sweep --help",
    );
    expect(() => parseSweep([...base, '--shrad', '0/2'])).toThrow(
      "Unknown option '--shrad'; did you mean --shard?; npm run lab -- sweep --help",
    );
    expect(() => parseMerge(['--frob'])).toThrow(
      "Unknown option '--frob'; one of: --out, --help; npm run lab -- merge SHARD_DIR… --out DIR",
    );
    expect(() => parseOptions(['--frob'], {})).toThrow(new UsageError("Unknown option '--frob'; one of: "));
  });
});
