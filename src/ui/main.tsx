import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { simulateDeviceLoss } from './lab';
import { startLabSync } from './lab-reactions';
import { flushOnHide } from './persist';
import { restoreLatest } from './restore';
import { startServiceWorker } from './service-worker';
import { startSubscriptions } from './subscriptions';
import { startUrlSync } from './url-sync';
import './styles.css';

startUrlSync();
startSubscriptions();
startLabSync();
flushOnHide();
void restoreLatest();
startServiceWorker();
// Fault injection from the devtools console or a browser test: `agentwiseLab.simulateDeviceLoss()`
// destroys every run's GPU device to show (and test) the fallback to wasm.
Object.assign(globalThis, { agentwiseLab: { simulateDeviceLoss } });
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
