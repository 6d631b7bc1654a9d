/** The starting weights from disk for the CLI: `--init` files, then the shipped base models (src/train/base.ts). */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Experiment } from '../core/config';
import { loadBase, type BaseModels } from '../train/base';

export function loadShippedBase(exp: Experiment, root = 'models', init: readonly string[] = []): Promise<BaseModels> {
  const user = init.map((file) => {
    if (!existsSync(file)) throw new Error(`--init: no such file ${file}`);
    return { name: basename(file), bytes: new Uint8Array(readFileSync(file)) };
  });
  return loadBase(
    exp,
    async (path) => {
      const file = join(root, path);
      return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
    },
    user,
  );
}
