/**
 * Finds a Chromium or Chrome for the browser tests: $CHROME_PATH, then the usual install paths.
 * If none is found on Debian as root, installs Debian's `chromium` with apt-get (CI does this on
 * a fresh machine); otherwise fails with a message saying exactly what to install. Browser tests
 * are never skipped silently.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export function findChrome(): string | null {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROME_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

function isDebian(): boolean {
  try {
    return /^ID(_LIKE)?=.*debian/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

export function ensureChrome(): string {
  const found = findChrome();
  if (found) return found;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.platform === 'linux' && isDebian() && root) {
    console.log('[browser tests] no Chromium found: installing Debian chromium with apt-get …');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env,
    });
    const installed = findChrome();
    if (installed) return installed;
  }
  throw new Error(
    'Browser tests need Chromium or Google Chrome and found neither.\n' +
      '  Debian/Ubuntu: sudo apt-get install chromium   (or install Google Chrome)\n' +
      '  macOS: install Google Chrome\n' +
      '  Or point CHROME_PATH at a Chromium-based browser binary (version 113+ for WebGPU).',
  );
}

/**
 * Headless flags that give a (software) WebGPU adapter and keep Chromium off the network. For a
 * benchmark's diagnosis, LAB_JS_FLAGS passes V8 flags (`--trace-deopt`, `--trace-opt`; with
 * DEBUG=pw:browser their output is printed): that is how the deopt loop in tfjs's tape walk was
 * found (docs/figures.md#where-a-steps-time-goes).
 */
export const CHROME_ARGS = [
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  ...(process.env.LAB_JS_FLAGS ? [`--js-flags=${process.env.LAB_JS_FLAGS}`] : []),
  ...(typeof process.getuid === 'function' && process.getuid() === 0 ? ['--no-sandbox'] : []),
];
