import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { startLabSync } from './lab';
import { startUrlSync } from './url-sync';
import './styles.css';

startUrlSync();
startLabSync();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
