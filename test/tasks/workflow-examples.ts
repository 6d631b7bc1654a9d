// The example workflows under examples/workflows/, read as the CLI reads them.
import { readFileSync } from 'node:fs';
import { readWorkflow } from '../../src/core/workflow/file';
import type { Workflow } from '../../src/core/workflow/schema';

export function exampleWorkflow(name: string): Workflow {
  const read = readWorkflow(readFileSync(`examples/workflows/${name}.yaml`, 'utf8'));
  if (!read.ok) throw new Error(`${name}: ${JSON.stringify(read.issues)}`);
  return read.value;
}
