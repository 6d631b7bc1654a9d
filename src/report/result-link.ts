/**
 * `#open=<URL>` (docs/sharing.md#opening-one-by-link): a page link that opens a result file
 * hosted anywhere, instead of an experiment, with `&view=…` one panel of it alone. The URL must be
 * https, or http on localhost and 127.0.0.1 (browsers treat those as secure); anything else is
 * refused saying why. Pure.
 */

/**
 * One panel alone, for an iframe (docs/sharing.md#embedding-one): a chart of the board by its id
 * (src/core/charts.ts), Findings, or the Map; null for the whole page.
 */
export type EmbedView = { chart: string } | 'findings' | 'map' | null;

/** What a hash asks for: null when it is no `#open=` link (an experiment's link, say). */
export type ResultLink = { url: string; view: EmbedView } | { refused: string } | null;

/** `view=chart:<id>`, `view=findings`, `view=map`; undefined for any other text. */
function viewOf(given: string | null): EmbedView | undefined {
  if (given === null) return null;
  if (given === 'findings' || given === 'map') return given;
  const chart = /^chart:([a-z0-9-]{1,64})$/.exec(given);
  return chart ? { chart: chart[1] } : undefined;
}

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The result link a page hash holds (`#open=<URL, percent-encoded or not>`). */
export function resultLinkOf(hash: string): ResultLink {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const given = params.get('open');
  if (given === null) return null;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return { refused: `#open=${given}: not a URL` };
  }
  const view = viewOf(params.get('view'));
  if (view === undefined)
    return { refused: `view=${params.get('view')}: not chart:<chart id>, findings or map` };
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL.has(url.hostname)))
    return { url: url.href, view };
  return {
    refused: `#open=${given}: a result is fetched over https only (http on localhost and 127.0.0.1), so that no one between the host and this page can change it`,
  };
}
