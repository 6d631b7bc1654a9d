import { describe, expect, it } from 'vitest';
import { HELP, UsageError, parseCli } from '../../src/cli/args';

describe('CLI arguments', () => {
  it('parses train with every option', () => {
    expect(
      parseCli([
        'train',
        '--config',
        'x.json',
        '--steps',
        '5',
        '--backend',
        'cpu',
        '--out',
        'o',
        '--init',
        'a.ckpt,b.ckpt',
        '--force',
        '--quiet',
      ]),
    ).toEqual({
      command: 'train',
      config: 'x.json',
      preset: null,
      workflow: null,
      steps: 5,
      backend: 'cpu',
      out: 'o',
      init: ['a.ckpt', 'b.ckpt'],
      checkpointEvery: 25,
      resume: null,
      force: true,
      quiet: true,
    });
    expect(
      parseCli(['train', '--resume', 'runs/x', '--steps', '400', '--checkpoint-every', '0']),
    ).toMatchObject({ resume: 'runs/x', steps: 400, checkpointEvery: 0 });
  });

  it('defaults to wasm, the experiment, and a dated folder', () => {
    expect(parseCli(['train'])).toEqual({
      command: 'train',
      config: null,
      preset: null,
      workflow: null,
      steps: null,
      backend: 'wasm',
      out: null,
      init: [],
      checkpointEvery: 25,
      resume: null,
      force: false,
      quiet: false,
    });
  });

  it('parses presets [--json] and train --preset ID, which names the experiment alone', () => {
    expect(parseCli(['presets'])).toEqual({ command: 'presets', json: false });
    expect(parseCli(['presets', '--json'])).toEqual({ command: 'presets', json: true });
    expect(() => parseCli(['presets', 'x'])).toThrow(/usage: npm run lab -- presets \[--json\]/);
    expect(parseCli(['train', '--preset', 'sync', '--steps', '3', '--out', 'o'])).toMatchObject({
      preset: 'sync',
      steps: 3,
      out: 'o',
      config: null,
    });
    expect(() => parseCli(['train', '--preset', 'sync', '--config', 'v=1'])).toThrow(
      /--preset and --config both name the experiment/,
    );
    expect(() => parseCli(['train', '--resume', 'runs/x', '--preset', 'sync'])).toThrow(/drop --preset/);
  });

  it('parses report DIR', () => {
    expect(parseCli(['report', 'runs/x'])).toEqual({ command: 'report', dir: 'runs/x', tail: 10 });
    expect(parseCli(['report', 'runs/x', '--tail', '25'])).toEqual({
      command: 'report',
      dir: 'runs/x',
      tail: 25,
    });
    expect(() => parseCli(['report'])).toThrow(/usage: npm run lab -- report DIR \[--tail N\]/);
    expect(() => parseCli(['report', 'runs/x', '--tail', '0'])).toThrow(
      '--tail must be a whole number ≥ 1; got "0"',
    );
    expect(() => parseCli(['report', 'runs/x', '--tail', '2.5'])).toThrow(
      '--tail must be a whole number ≥ 1; got "2.5"',
    );
    expect(() => parseCli(['report', 'runs/x', '--tali', '3'])).toThrow(/Unknown option '--tali'/);
  });

  it("shows help for no command, help, -h, help --help and every command's --help", () => {
    for (const argv of [[], ['help'], ['-h'], ['--help'], ['help', '--help']])
      expect(parseCli(argv)).toEqual({ command: 'help' });
    // help COMMAND, and a command's --help, give that command's part (help.ts).
    expect(parseCli(['help', 'sweep'])).toEqual({ command: 'help', topic: 'sweep' });
    expect(parseCli(['train', '--help'])).toEqual({ command: 'help', topic: 'train' });
    expect(parseCli(['pretrain', '--help'])).toEqual({ command: 'help', topic: 'pretrain' });
    for (const command of ['bundle', 'report', 'presets', 'export', 'import', 'sweep', 'merge'])
      for (const flag of ['--help', '-h'])
        expect(parseCli([command, flag]), `${command} ${flag}`).toEqual({ command: 'help', topic: command });
    expect(parseCli(['bundle', 'runs/x', '--out', 'x.lab.json.gz', '--help'])).toEqual({
      command: 'help',
      topic: 'bundle',
    });
    expect(HELP).toMatch(/--config <file \| URL \| hash>/);
    expect(HELP).toMatch(/metrics\.jsonl/);
  });

  it.each([
    [['fly'], /unknown command "fly"/],
    [['train', '--steps', '0'], /--steps must be a whole number ≥ 1; got "0"/],
    [['train', '--steps', '2.5'], /--steps must be a whole number ≥ 1; got "2.5"/],
    // A negative number is the lab's to refuse, not node's "argument is ambiguous".
    [['train', '--steps', '-1'], /^--steps must be a whole number ≥ 1; got "-1"$/],
    [['train', '--checkpoint-every', '-5'], /^--checkpoint-every must be a whole number ≥ 0; got "-5"$/],
    [['report', 'runs/x', '--tail', '-3'], /^--tail must be a whole number ≥ 1; got "-3"$/],
    [['train', '--backend', 'tpu'], /--backend must be one of auto, webgpu, webgl, wasm, cpu/],
    [['train', '--colour', 'red'], /Unknown option '--colour'/],
    // An experiment field as a flag: where it goes, not the nearest flag (--steps means something else).
    [
      ['train', '--seeds', '3'],
      /^Unknown option '--seeds': seeds is a field of the experiment, not a flag; give it in --config \(e\.g\. --config 'v=1&seeds=…'\)$/,
    ],
    [['pretrain', '--workflow', 'w.yaml', '--out', 'o', '--seeds=3'], /seeds is a field of the experiment/],
    [['train', 'extra'], /Unexpected argument 'extra'/],
    [['train', '--checkpoint-every', '1.5'], /--checkpoint-every must be a whole number ≥ 0/],
    [
      ['train', '--resume', 'd', '--config', 'x.json', '--out', 'o'],
      /--resume takes the config and folder of the run it resumes; drop --config, --out/,
    ],
    [['train', '--resume', 'd', '--force'], /drop --force/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCli(argv)).toThrow(UsageError);
    expect(() => parseCli(argv)).toThrow(message);
  });
});
