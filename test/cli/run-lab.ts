/** The lab's CLI as `npm run lab -- …` runs it, in a child process; its exit status and output. */
import { spawnSync } from 'node:child_process';

export const runLab = (args: string[], timeoutMs = 240_000) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
