import '../core/zod-setup'; // first: before any module parses a schema at load
import { StrictMode } from 'react';
import { createRoot } from './react-root';
import { startServiceWorker } from '../host/service-worker';
import { App } from './App';
import { useUpdateNotice } from './panels/UpdateNotice';
import { restoreLatest } from './restore';
import { controller } from './session/page';
import { reported, useLab } from './session/store';
import { startSubscriptions } from './subscriptions';
import { startUrlSync } from './url-sync';
import './styles.css';

const linkOpened = startUrlSync();
startSubscriptions();
controller.followVisibility();
controller.recorder.flushOnHide();
// The latest stored session comes back under the link's experiment, once its files are here.
reported('Bringing back the last session', () => linkOpened.then(restoreLatest));
startServiceWorker({
  // Live runs keep their build until the next load (a stored session on screen comes back after the reload).
  busy: () => useLab.getState().sessionState !== 'idle' && useLab.getState().restored === null,
  say: (notice) => useUpdateNotice.setState({ notice }),
});
// Fault injection from the devtools console or a browser test: `agentwiseLab.simulateDeviceLoss()`
// destroys every run's GPU device to show (and test) the fallback to wasm.
Object.assign(globalThis, { agentwiseLab: { simulateDeviceLoss: () => controller.simulateDeviceLoss() } });
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
