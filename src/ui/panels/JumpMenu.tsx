/**
 * "Go to…": a menu in the sticky header that scrolls to a part of the page. A narrow window stacks
 * the panels one under another, so the rollouts sat thousands of px down and the presets about
 * 6,500 px; from here every part is one pick away, wherever the page is scrolled. Only the parts on
 * the page are offered (What differs and Findings come with runs), read when the menu is opened.
 */
import { useState } from 'react';

/** Each part: its name in the menu, and the element to bring to the top (a section, or its list). */
const PARTS = [
  { name: 'What differs', selector: '[data-testid="what-differs"]' },
  { name: 'Findings', selector: '[data-testid="findings"]' },
  { name: 'Charts', selector: 'section.board' },
  { name: 'Rollouts', selector: '.inspector' },
  { name: 'Presets', selector: '.preset-picker' },
  { name: 'Experiment fields', selector: 'section[aria-labelledby="experiment-title"]' },
  { name: 'Workflow', selector: '[data-testid="workflow-panel"]' },
  { name: 'Live hyper-parameters', selector: 'section[aria-labelledby="live-title"]' },
  { name: 'Past sessions', selector: 'section[aria-labelledby="past-title"]' },
  { name: 'Map', selector: '[data-testid="sweep-map"]' },
] as const;

const present = () => PARTS.filter((p) => document.querySelector(p.selector)).map((p) => p.name);

/** Scrolls the part under the sticky header (its scroll-margin, styles.css) and moves focus there. */
export function jump(name: (typeof PARTS)[number]['name']): void {
  const part = PARTS.find((p) => p.name === name);
  const el = part && document.querySelector<HTMLElement>(part.selector);
  if (!el) return;
  el.scrollIntoView({ block: 'start' });
  const target = el.querySelector<HTMLElement>('h2') ?? el;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}

export function JumpMenu() {
  const [shown, setShown] = useState<string[]>(() => PARTS.map((p) => p.name));
  return (
    <select
      className="jump-menu"
      aria-label="Go to a part of the page"
      value=""
      onFocus={() => setShown(present())}
      onPointerDown={() => setShown(present())}
      onChange={(e) => jump(e.target.value as (typeof PARTS)[number]['name'])}
    >
      <option value="" disabled>
        Go to…
      </option>
      {shown.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}
