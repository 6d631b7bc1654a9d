/**
 * The built lab in headless Chromium as a user opens it: the production build served by Vite's
 * preview server, a fresh profile, the page loaded and ready to train. bench:ui and
 * bench:experiment share it. Node only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROME_ARGS, ensureChrome } from '../test/browser/chrome';
import { DIST } from '../test/browser/static-server';
import { trainEnabled } from '../test/browser/train-button';

/** Serves the build (`vite build` first) and returns the URL of `hash` on it, and how to stop serving. */
export async function serveLab(hash: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await preview({
    preview: { port: 0, host: '127.0.0.1' },
    build: { outDir: DIST },
    logLevel: 'warn',
  });
  const base = server.resolvedUrls?.local[0]?.replace(/\/$/, '');
  if (!base) throw new Error('preview server has no URL');
  return {
    url: `${base}/${hash ? (hash.startsWith('#') ? hash : `#${hash}`) : ''}`,
    close: () => server.close(),
  };
}

export interface LabPage {
  page: Page;
  /** Uncaught errors of the page so far. */
  errors: string[];
  /** Each run's step counter (Controls.tsx), in run order. */
  steps: () => Promise<number[]>;
  close: () => Promise<void>;
  /** Its fresh profile's folder (the browser process's --user-data-dir: scripts/proc-cpu.ts finds it so). */
  dir: string;
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /** Runs before the page is navigated to `url` (observers to install, a trace to start). */
  before?: (page: Page) => Promise<void>;
  /** Wait until Train is enabled (default); a page that opens a result never enables it. */
  trainable?: boolean;
}

/**
 * Opens `url` in a fresh Chromium profile and waits (at most 120 s) until the Train button is
 * enabled, unless `trainable` is false.
 */
export async function openLab(
  url: string,
  { viewport = { width: 1440, height: 2200 }, before, trainable = true }: OpenOptions = {},
): Promise<LabPage> {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-bench-'));
  const context: BrowserContext = await chromium.launchPersistentContext(dir, {
    executablePath: ensureChrome(),
    headless: true,
    args: CHROME_ARGS,
    viewport,
  });
  const close = async () => {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await before?.(page);
    await page.goto(url);
    if (trainable) await trainEnabled(page);
    // Not an aria-label suffix, which chart layers share ("… step by step").
    const steps = () =>
      page.$$eval('[data-testid="step-counter"]', (els) => els.map((e) => Number(e.textContent)));
    return { page, errors, steps, close, dir };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Clicks Train. */
export async function train(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Train', exact: true }).click();
}
