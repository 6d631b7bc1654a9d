/** Opens the built app in a fresh headless Chromium profile and collects console errors. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { inject } from 'vitest';
import { CHROME_ARGS } from './chrome';

export interface Lab {
  page: Page;
  context: BrowserContext;
  errors: string[];
  close(): Promise<void>;
}

export async function openLab(hash = ''): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), 'agentwise-chrome-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: inject('chromePath'),
    headless: true,
    args: CHROME_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${inject('baseUrl')}/${hash}`);
  return {
    page,
    context,
    errors,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
