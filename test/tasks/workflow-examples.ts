// The example workflows under examples/workflows/, read as the CLI reads them: the YAML, and the
// dataset file beside it registered by its SHA-256.
import { readFileSync } from 'node:fs';
import { sha256Hex } from '../../src/core/sha256';
import { readDataset, readWorkflow } from '../../src/core/workflow/file';
import type { Workflow } from '../../src/core/workflow/schema';
import { expandWorkflow } from '../../src/core/workflow/families';
import { registerDataset } from '../../src/tasks/registry';
import { DEFAULT_EXPERIMENT, type Experiment } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';

export const EXAMPLES = ['sync-own', 'math', 'relay', 'router', 'judge', 'chain', 'parts'] as const;

export function exampleWorkflow(name: string): Workflow {
  const read = readWorkflow(readFileSync(`examples/workflows/${name}.yaml`, 'utf8'));
  if (!read.ok) throw new Error(`${name}: ${JSON.stringify(read.issues)}`);
  const wf = expandWorkflow(read.value);
  if (!('file' in wf.data)) return wf;
  const bytes = readFileSync(`examples/workflows/${wf.data.file}`);
  const data = readDataset(bytes.toString('utf8'), wf.data.file);
  if (!data.ok) throw new Error(`${wf.data.file}: ${JSON.stringify(data.issues)}`);
  const sha256 = sha256Hex(new Uint8Array(bytes));
  registerDataset(sha256, data.value);
  return { ...wf, data: { file: wf.data.file, sha256 } };
}

/** The default experiment on an example workflow (task `workflow`), validated as a link's would be. */
export function exampleExperiment(name: string): Experiment {
  const r = validateExperiment({ ...DEFAULT_EXPERIMENT, task: 'workflow', workflow: exampleWorkflow(name) });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}
