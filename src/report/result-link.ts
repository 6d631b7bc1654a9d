/**
 * `#open=<URL>` (docs/sharing.md#opening-one-by-link): a page link that opens a result file
 * hosted anywhere, instead of an experiment. The URL must be https, or http on localhost and
 * 127.0.0.1 (browsers treat those as secure); anything else is refused saying why. Pure.
 */

/** What a hash asks for: null when it is no `#open=` link (an experiment's link, say). */
export type ResultLink = { url: string } | { refused: string } | null;

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
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL.has(url.hostname)))
    return { url: url.href };
  return {
    refused: `#open=${given}: a result is fetched over https only (http on localhost and 127.0.0.1), so that no one between the host and this page can change it`,
  };
}
