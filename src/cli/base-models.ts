/** The starting weights from disk for the CLI: `--init` files, then the shipped base models (src/train/base.ts). */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Experiment } from '../core/config';
import { CheckpointRefused, loadBase, type BaseModels } from '../train/base';
import { UsageError } from './args';

/** A bad `--init` file is a bad command line: a UsageError naming it (a missing one at once). */
export function loadShippedBase(
  exp: Experiment,
  root = 'models',
  init: readonly string[] = [],
  prepared: readonly { name: string; bytes: Uint8Array }[] = [],
): Promise<BaseModels> {
  const given = init.map((file) => {
    if (!existsSync(file)) throw new UsageError(`--init: no such file ${file}`);
    if (statSync(file).isDirectory())
      throw new UsageError(`--init: ${file} is a folder; give checkpoint files (.ckpt), comma-separated`);
    return { name: basename(file), bytes: new Uint8Array(readFileSync(file)) };
  });
  // A workflow's prepared base models (src/cli/workflow.ts) start each model as --init files would.
  const user = given.length ? given : prepared;
  const read = async (path: string) => {
    const file = join(root, path);
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  };
  return loadBase(exp, read, user).catch((e: unknown) => {
    throw e instanceof CheckpointRefused ? new UsageError(`--init: ${e.message}`, { cause: e }) : e;
  });
}
