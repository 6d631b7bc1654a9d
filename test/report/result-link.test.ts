/** `#open=<URL>` (docs/sharing.md#opening-one-by-link): which URLs a page link may fetch a result from. */
import { describe, expect, it } from 'vitest';
import { resultLinkOf } from '../../src/report/result-link';

describe('resultLinkOf', () => {
  it('takes https anywhere and http on localhost or 127.0.0.1, encoded or not', () => {
    expect(resultLinkOf('#open=https://example.org/a/m5.lab.json.gz')).toEqual({
      url: 'https://example.org/a/m5.lab.json.gz',
      view: null,
    });
    expect(resultLinkOf(`#open=${encodeURIComponent('https://h.io/r.lab.json.gz?x=1')}`)).toEqual({
      url: 'https://h.io/r.lab.json.gz?x=1',
      view: null,
    });
    for (const host of ['localhost:8000', '127.0.0.1:9', '[::1]:8080'])
      expect(resultLinkOf(`#open=http://${host}/r.lab.json.gz`)).toEqual({
        url: `http://${host}/r.lab.json.gz`,
        view: null,
      });
  });

  it('refuses other schemes and hosts, and what is no URL, saying why; a hash without open is no result link', () => {
    for (const url of ['http://example.org/r.lab.json.gz', 'http://10.0.0.2/r', 'file:///tmp/r', 'data:,x'])
      expect(resultLinkOf(`#open=${url}`)).toEqual({
        refused: `#open=${url}: a result is fetched over https only (http on localhost and 127.0.0.1), so that no one between the host and this page can change it`,
      });
    expect(resultLinkOf('#open=not a url')).toEqual({ refused: '#open=not a url: not a URL' });
    expect(resultLinkOf('#v=1&task=sync')).toBeNull();
    expect(resultLinkOf('')).toBeNull();
  });

  it('an embed view: one chart by its id, Findings or the Map; any other view is refused', () => {
    const at = (view: string) => resultLinkOf(`#open=https://h.io/r.lab.json.gz&view=${view}`);
    expect(at('chart:reward')).toEqual({ url: 'https://h.io/r.lab.json.gz', view: { chart: 'reward' } });
    expect(at('findings')).toEqual({ url: 'https://h.io/r.lab.json.gz', view: 'findings' });
    expect(at('map')).toEqual({ url: 'https://h.io/r.lab.json.gz', view: 'map' });
    for (const view of ['chart:', 'chart:Reward', 'charts', 'chart:<b>'])
      expect(at(view)).toEqual({ refused: `view=${view}: not chart:<chart id>, findings or map` });
  });
});
