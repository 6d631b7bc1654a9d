import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXPERIMENT } from '../../src/core/config';
import { ConfigError, loadConfig } from '../../src/cli/load-config';

const dir = mkdtempSync(join(tmpdir(), 'agentwise-cli-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('loadConfig', () => {
  it('reads a partial JSON file and fills the defaults', () => {
    const c = loadConfig(file('a.json', JSON.stringify({ task: 'math', optim: { lr: 0.001 } })));
    expect(c.task).toBe('math');
    expect(c.optim.lr).toBe(0.001);
    expect(c.optim.weightDecay).toBe(DEFAULT_EXPERIMENT.optim.weightDecay);
    expect(c.runs).toEqual(DEFAULT_EXPERIMENT.runs);
  });

  it('reads a lab URL and a bare hash', () => {
    expect(loadConfig('http://localhost:5173/#v=1&task=sync').task).toBe('sync');
    expect(loadConfig('v=1&rollout.groupSize=4').rollout.groupSize).toBe(4);
  });

  it('names each bad field of a file, and refuses broken JSON and unknown paths', () => {
    const bad = file('b.json', JSON.stringify({ task: 'chess', optim: { lr: 'fast' }, extra: 1 }));
    try {
      loadConfig(bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).errors.map((x) => x.path).sort()).toEqual(['extra', 'optim.lr', 'task']);
    }
    expect(() => loadConfig(file('c.json', '{"task": '))).toThrow(/not valid JSON/);
    expect(() => loadConfig(join(dir, 'missing.json'))).toThrow(/no such file, and not a lab URL/);
    expect(() => loadConfig('v=3')).toThrow(/unknown version/);
  });
});
