/**
 * Where a session trained: one entry of a train folder's machine.json (cli/machine.ts records it),
 * which result files keep too (report/result-format.ts). A table reproduces to the last digit on
 * the machine and commit that made it, not beyond (docs/findings.md#tables-drift-across-machines).
 * Pure: types only.
 */

export interface Machine {
  /** When this session started training the folder (ISO 8601, UTC). */
  date: string;
  /** `git rev-parse HEAD` where the command ran; null outside a git checkout. */
  commit: string | null;
  /** Uncommitted changes to tracked files (untracked files not counted); null outside git. */
  dirty: boolean | null;
  /** CPU model and logical cores, as node:os reports them. */
  cpu: string;
  cores: number;
  /** `linux x64`, … */
  platform: string;
  node: string;
  /** The backend line the run printed (`backend: …`). */
  backend: string;
  /** The wasm kernels' module: 'relaxed' (FMA, relaxed SIMD) or 'plain' SIMD. */
  simd: 'relaxed' | 'plain';
}
