/**
 * Every store subscription of the page, in one place: one listener, and in it each reaction with
 * what it watches. Modules export their reactions as plain functions and never subscribe at
 * import (so importing a module starts nothing); components read the store through hooks.
 */
import { refreshCharts } from './chart-pump';
import { controller } from './session/page';
import { useLab } from './session/store';
import { followThrottled } from './throttled';
import { followConfig } from './url-sync';
import { followBaseModels } from './workflow-open';

/** Starts the reactions; returns a function that stops them. */
export function startSubscriptions(): () => void {
  return useLab.subscribe((s, prev) => {
    followConfig(s, prev); // config → the link (url-sync.ts)
    controller.resetOnStructuralChange(s, prev); // a structural config change → a new session
    controller.letGoWhenDone(s, prev); // finished: another tab may take the session over
    controller.recorder.mirrorMarkers(s, prev); // live-parameter markers → the IndexedDB record
    refreshCharts(s, prev); // new frames or smoothing → redraw (chart-pump.ts)
    followThrottled(s, prev); // mounted useThrottledLab hooks → their throttled values (throttled.ts)
    followBaseModels(s, prev); // a workflow experiment → its base models kept in IndexedDB (workflow-open.ts)
  });
}
