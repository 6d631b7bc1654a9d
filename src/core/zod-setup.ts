/**
 * zod without compiled parsers: the page's CSP refuses eval, and zod's probe for it would be
 * reported as a violation (src/host/headers.ts). zod decides on its first parse of an object
 * schema, so this must run before any module parses one at load (presets do): the page's entry
 * imports it first, and config-sections.ts imports it for every other entry. Pure: zod only.
 */
import { z } from 'zod';

z.config({ jitless: true });
