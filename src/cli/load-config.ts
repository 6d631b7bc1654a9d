/**
 * Reads the experiment a CLI user names: a JSON file (a whole or partial experiment, defaults
 * filled in), a lab URL, or a bare hash (`v=1&task=math…`). The same validation as the page:
 * every bad field is named, nothing is evaluated. A config read with a rename (plan's old role
 * names) says so on stderr, once per read.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { validateExperiment } from '../core/config-validate';
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import { decodeExperiment } from '../core/url';

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly errors: FieldError[],
  ) {
    super(`${source}:\n${errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
  }
}

export function loadConfig(arg: string): Experiment {
  if (existsSync(arg)) {
    if (statSync(arg).isDirectory())
      throw new ConfigError(arg, [
        {
          path: '--config',
          message: 'a folder, not a JSON file (a session folder holds its experiment in config.json)',
        },
      ]);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(arg, 'utf8'));
    } catch (e) {
      throw new ConfigError(arg, [{ path: '(file)', message: `not valid JSON: ${(e as Error).message}` }]);
    }
    const r = validateExperiment(json);
    if (!r.ok) throw new ConfigError(arg, r.errors);
    if (r.note) console.error(`${arg}: ${r.note}`);
    return r.config;
  }
  const hashAt = arg.indexOf('#');
  const looksLikeHash = hashAt >= 0 || /^v=/.test(arg);
  if (!looksLikeHash) {
    throw new ConfigError(arg, [
      { path: '--config', message: 'no such file, and not a lab URL or hash (v=1&…)' },
    ]);
  }
  const r = decodeExperiment(hashAt >= 0 ? arg.slice(hashAt) : arg);
  if (!r.ok) throw new ConfigError(arg, r.errors);
  if (r.note) console.error(`--config: ${r.note}`);
  return r.config;
}
