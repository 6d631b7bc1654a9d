/**
 * What backend selection reports, as types only: the page imports these (through here, never
 * through backend.ts, whose sanity check pulls tfjs into the bundle; lint enforces it).
 */
import type { BackendName } from '../core/config-names';
import type { ModelPreset } from '../core/model-sizes';

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

/** One candidate's timed train steps (measure.ts), or why it has none. */
export interface Timing {
  backend: ConcreteBackend;
  /** Wall ms of the first step: shader compiles, kernel caches and first allocations included. */
  warmupMs?: number;
  /** Wall ms of the step after it, the figure `auto` compares; absent if the budget left no room. */
  stepMs?: number;
  /** Why it was not measured, or not fully. */
  note?: string;
}

/** What `auto` measured on one device set and model size: kept per adapter by the page. */
export interface Measurement {
  version: number;
  /** auto-choice.ts measurementKey: version, model size, each candidate and its adapter. */
  key: string;
  preset: ModelPreset;
  /** When it was measured, epoch ms. */
  at: number;
  timings: Timing[];
  choice: ConcreteBackend;
  /** True when reused from the cache rather than measured just now. */
  cached: boolean;
}

export interface BackendReport {
  requested: BackendName;
  /** The backend now active in this context, or null if the request was refused. */
  backend: ConcreteBackend | null;
  adapter?: AdapterInfo;
  renderer?: string;
  attempts: BackendAttempt[];
  /** `auto`'s step timings of the backends that passed, when it measured (or reused a measurement). */
  measurement?: Measurement;
  /** wasm only: the threads its backend runs (tfjs's getThreadsCount; threads.ts says how many are asked). */
  threads?: number;
}
