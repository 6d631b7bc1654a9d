/** The shipped base models from disk, for the CLI (see src/train/base.ts). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Experiment } from '../core/config';
import { loadBase, type BaseModels } from '../train/base';

export function loadShippedBase(exp: Experiment, root = 'models'): Promise<BaseModels> {
  return loadBase(exp, async (path) => {
    const file = join(root, path);
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  });
}
