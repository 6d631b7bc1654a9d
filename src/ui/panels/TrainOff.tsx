/**
 * Why Train is off, for every place that tells the user to press it. Controls says the reasons
 * once, beside Train; the status line's "No runs yet", the empty chart area and the first screen's
 * steps say "Train is off" and point there (trainOffPointer), so the page never asks for a click
 * on a button that does nothing, nor says one reason four times. One hook reads the reasons
 * (train-blockers.ts) for all of them.
 */
import { useMemo } from 'react';
import { useLab } from '../session/store';
import { trainBlockers } from '../train-blockers';

/** Why Train, Step, Run again and Continue are off now; none when they can run. */
export function useTrainBlockers(): string[] {
  const backend = useLab((s) => s.backend);
  const config = useLab((s) => s.config);
  const fieldErrors = useLab((s) => s.fieldErrors);
  const readOnly = useLab((s) => s.readOnly);
  const opened = useLab((s) => s.opened);
  // A workflow's base models (workflow-open.ts): prepared, being prepared, or checkpoint files instead.
  const baseModels = useLab((s) => s.baseModels);
  const preparing = useLab((s) => s.preparing?.key ?? null);
  const uploads = useLab((s) => s.uploads);
  const wanted = useLab((s) => s.wanted !== null);
  return useMemo(
    () =>
      trainBlockers({
        backend,
        config,
        fieldErrors,
        readOnly,
        opened,
        baseModels,
        preparing,
        uploads,
        wanted,
      }),
    [backend, config, fieldErrors, readOnly, opened, baseModels, preparing, uploads, wanted],
  );
}
