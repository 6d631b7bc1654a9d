import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { startLabSync } from './lab';
import { flushOnHide } from './persist';
import { restoreLatest } from './restore';
import { startUrlSync } from './url-sync';
import './styles.css';

startUrlSync();
startLabSync();
flushOnHide();
void restoreLatest();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
