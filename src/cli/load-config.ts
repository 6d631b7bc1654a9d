/**
 * Reads the experiment a CLI user names: a JSON file (a whole or partial experiment, defaults
 * filled in), a lab URL, or a bare hash (`v=1&task=math…`). The same validation as the page:
 * every bad field is named, nothing is evaluated. A config read with a rename (plan's old role
 * names) says so on stderr, once per read.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadWorkflowData } from './workflow';
import { fieldErrorText, validateExperiment } from '../core/config-validate';
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import { decodeExperiment } from '../core/url';
import { splitSweep } from '../core/url-sweep';
import type { Dial } from '../core/url-sweep';

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly errors: FieldError[],
  ) {
    super(`${source}:\n${errors.map((e) => `  ${fieldErrorText(e)}`).join('\n')}`);
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
    // A workflow over a data file finds it beside the config (a train folder keeps a copy there).
    if (r.config.workflow && !('family' in r.config.workflow))
      loadWorkflowData(r.config.workflow, dirname(arg), arg);
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

/**
 * `lab sweep --config`: the experiment, and the dials a link carries as the page's link sweep
 * writes them (`&sweep.KEY=v1,v2,…`, docs/sweeps.md#sweeps); a JSON file carries none.
 */
export function loadSweepConfig(arg: string): { config: Experiment; dials: Dial[] } {
  if (existsSync(arg)) return { config: loadConfig(arg), dials: [] };
  const hashAt = arg.indexOf('#');
  const split = splitSweep(hashAt >= 0 ? arg.slice(hashAt) : arg);
  if (split.errors.length) throw new ConfigError(arg, split.errors);
  if (!split.sweep.length) return { config: loadConfig(arg), dials: [] };
  const r = decodeExperiment(split.experiment);
  if (!r.ok) throw new ConfigError(arg, r.errors);
  if (r.note) console.error(`--config: ${r.note}`);
  return { config: r.config, dials: split.sweep };
}
