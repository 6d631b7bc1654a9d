/**
 * When a page of the lab is ready to train, for the browser tests and the benches alike: its Train
 * button is there and enabled (the backend probe passed). No button is not an enabled one: the
 * page's load event can come before the app's first render has made it.
 */
import type { Page } from 'playwright-core';

/** Resolves once Train is there and enabled. */
export const trainEnabled = (page: Page, timeout = 120_000) =>
  page.waitForFunction(
    () => {
      const train = document.querySelector<HTMLButtonElement>('button.primary');
      return train !== null && !train.disabled;
    },
    null,
    { timeout },
  );
