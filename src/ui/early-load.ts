/**
 * The page's second early script (index.html, `async` as early-open.ts): React and the pure
 * modules whose loading builds the most (zod's schemas of the experiment, its presets, each
 * parsed, and of a result file), in chunks of their own. It runs as soon as those are here, in a
 * task of its own, most often before the page's main chunk, the largest, has loaded; the main
 * chunk then finds them loaded. So the page's start is two tasks, not one; were the main chunk here
 * first, it loads them itself, one task as before (docs/sharing.md#opening-speed).
 */
import '../core/zod-setup'; // first, as in main.tsx: before the presets parse their configs
export { createRoot } from './react-root';
export { PRESETS } from '../core/presets';
export { resultSchema } from '../report/result-format';
