/**
 * React's DOM client, loaded from a chunk of its own (vite.config.ts, `reactChunk`): react-dom
 * makes a few Error objects as it loads, and with DevTools attached (its Runtime domain, as every
 * Playwright harness has) V8 takes a full stack trace for each, which needs the source positions
 * of every frame on the stack; the outermost is the top-level code of the chunk that first imports
 * react-dom, which V8 then parses again whole. From the page's 1.1 MB main chunk that was about
 * 40 ms of its start task; from this chunk, React's own (0.22 MB), about 12
 * (docs/sharing.md#opening-speed). A browser with no DevTools session parses nothing again.
 */
export { createRoot } from 'react-dom/client';
