/**
 * The app's one zustand store. It holds slow state only (the experiment, URL problems, the
 * backend report); per-step metrics will bypass React through store subscriptions. Actions are
 * plain functions so they can be tested without React.
 */
import { create } from 'zustand';
import { DEFAULT_EXPERIMENT } from '../core/config';
import type { Experiment, FieldError } from '../core/config';
import type { BackendReport } from '../runtime/backend';

export type BackendStatus =
  | { state: 'probing' }
  | { state: 'ready'; report: BackendReport }
  | { state: 'refused'; report: BackendReport }
  | { state: 'error'; message: string };

export interface LabState {
  config: Experiment;
  /** Problems with the link the page was opened with; the defaults were opened instead. */
  urlErrors: FieldError[];
  backend: BackendStatus;
}

export const useLab = create<LabState>(() => ({
  config: DEFAULT_EXPERIMENT,
  urlErrors: [],
  backend: { state: 'probing' },
}));

export const setConfig = (config: Experiment) => useLab.setState({ config });
/** A user's choice of experiment: it replaces a bad link, so the link's errors go. */
export const chooseConfig = (config: Experiment) => useLab.setState({ config, urlErrors: [] });
export const setUrlErrors = (urlErrors: FieldError[]) => useLab.setState({ urlErrors });
export const setBackend = (backend: BackendStatus) => useLab.setState({ backend });
