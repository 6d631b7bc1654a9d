/**
 * The shipped base models in the browser: Vite emits every `models/**\/*.ckpt` as an asset, and
 * the worker fetches the ones an experiment needs (see src/train/base.ts).
 */
import type { Experiment } from '../core/config';
import { loadBase, type BaseModels, type UserCheckpoint } from '../train/base';

const URLS = import.meta.glob('/models/*/*/*.ckpt', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;

export function loadBaseModels(
  exp: Experiment,
  uploads: readonly UserCheckpoint[] = [],
): Promise<BaseModels> {
  return loadBase(
    exp,
    async (path) => {
      const url = URLS[`/models/${path}`];
      if (!url) return null;
      const res = await fetch(url);
      if (!res.ok) throw new Error(`models/${path}: HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    },
    uploads,
  );
}
