/**
 * What backend selection reports, as types only: the page imports these (through here, never
 * through backend.ts, whose sanity check pulls tfjs into the bundle; lint enforces it).
 */
import type { BackendName } from '../core/config';

export type ConcreteBackend = Exclude<BackendName, 'auto'>;

/** What a probe learned about a device before any tfjs backend was created. */
export interface DeviceProbe {
  available: boolean;
  /** Software rasterizer or fallback adapter: correct but slower than WASM. */
  software: boolean;
  /** Why it is unavailable or why it counts as software. */
  reason?: string;
  adapter?: AdapterInfo;
  renderer?: string;
}

export interface AdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
}

export interface BackendAttempt {
  backend: ConcreteBackend;
  ok: boolean;
  /** Why it was chosen or passed over, in words a user can act on. */
  reason: string;
  ms: number;
  /** Max relative difference from the CPU reference in the sanity check. */
  maxDiff?: number;
}

export interface BackendReport {
  requested: BackendName;
  /** The backend now active in this context, or null if the request was refused. */
  backend: ConcreteBackend | null;
  adapter?: AdapterInfo;
  renderer?: string;
  attempts: BackendAttempt[];
}
