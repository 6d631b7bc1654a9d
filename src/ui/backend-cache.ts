/**
 * `auto`'s measurements, kept in localStorage by device set and model size (the key names the
 * adapter or renderer of each candidate: auto-choice.ts measurementKey), so that a reload or a new
 * run reuses the choice instead of timing the backends again. Run workers cannot read localStorage:
 * the page hands them the kept measurements in their init and start messages. A page without
 * storage (private mode, quota) just measures every time.
 */
import { MEASUREMENT_VERSION } from '../backends/auto-choice';
import type { Measurement } from '../backends/backend-types';
import type { Measurements } from '../workers/protocol';

const STORAGE_KEY = 'agentwise.backend-measurements';

/** The kept measurements of the current version, by key; {} when there are none or no storage. */
export function loadMeasurements(): Measurements {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    const entries = Object.entries(stored ?? {}) as [string, Measurement][];
    return Object.fromEntries(
      entries.filter(([key, m]) => m?.version === MEASUREMENT_VERSION && m.key === key),
    );
  } catch {
    return {};
  }
}

/** Keeps a measurement just taken (a reused one is already kept). */
export function keepMeasurement(m: Measurement | undefined): void {
  if (!m || m.cached) return;
  try {
    localStorage.setItem(
      STORAGE_KEY,
      JSON.stringify({ ...loadMeasurements(), [m.key]: { ...m, cached: false } }),
    );
  } catch {
    // No storage: the next start measures again.
  }
}

/** Forgets every kept measurement, so that the next `auto` selection times the backends again. */
export function forgetMeasurements(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was kept.
  }
}
