import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineVast } from '../../../test/demandServers.js';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { CurrencyRates } from '../ortb/currency.js';
import { demandAgent } from './deadline.js';
import { VastFetcher } from './vastFetcher.js';

/** How a demand answer's body arrives: whole, in pieces, too large, or cut off. */
describe('VastFetcher reads a demand answer body', () => {
  let demand: LocalServer;
  let base = '';
  const viewer = { ua: 'test', ip: '' };

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const vast = inlineVast(base, 4);
      if (path === '/pieces') {
        // chunked, in three writes a few ms apart (several 'data' events, one of them splitting a character)
        res.writeHead(200, { 'content-type': 'application/xml' });
        const bytes = Buffer.from(vast.replace('</AdSystem>', '</AdSystem><AdTitle>Café ☕</AdTitle>'), 'utf8');
        const cut = bytes.indexOf(Buffer.from('☕')) + 1;
        res.write(bytes.subarray(0, cut));
        setTimeout(() => res.write(bytes.subarray(cut, cut + 40)), 5);
        setTimeout(() => res.end(bytes.subarray(cut + 40)), 10);
      } else if (path === '/huge') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`${vast}<!--${'x'.repeat(600 * 1024)}-->`);
      } else if (path === '/cut') {
        // headers and half a document, then the connection drops
        res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(vast.length) });
        res.write(vast.slice(0, 100));
        setTimeout(() => res.destroy(), 5);
      } else if (path === '/moved') {
        // an ad server's redirect to where the answer is (relative Location), hops=<n> of them
        const hops = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hops') ?? 1);
        res.writeHead(302, { location: hops > 1 ? `/moved?hops=${hops - 1}` : '/inline' });
        res.end();
      } else if (path === '/latin1') {
        // an ISO-8859-1 answer (its declaration says so), as some European ad servers still write
        res.writeHead(200, { 'content-type': 'text/xml' });
        const doc = vast
          .replace(/^<\?xml[^>]*\?>/, '')
          .replace('<AdTitle>Demand spot</AdTitle>', '<AdTitle>Caf\u00e9 cr\u00e8me</AdTitle>');
        res.end(Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>${doc}`, 'latin1'));
      } else if (path === '/eur-wrapper') {
        // a wrapper priced in euros in front of an ad that states no price
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<VAST version="3.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI>${base}/unpriced</VASTAdTagURI><Pricing model="cpm" currency="EUR">4.00</Pricing></Wrapper></Ad></VAST>`,
        );
      } else {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          path === '/eur'
            ? vast.replace('currency="USD"', 'currency="EUR"')
            : path === '/unpriced'
              ? inlineVast(base, null)
              : vast,
        );
      }
    });
    base = demand.url;
  });

  afterAll(() => demand.close());

  it('joins a body that comes in pieces, a UTF-8 character split between them', async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    const got = await fetcher.fetch(`${base}/pieces`, Date.now() + 2000, viewer);
    expect(got.kind).toBe('inline');
    expect(got.kind === 'inline' && got.ad.title).toBe('Café ☕');
    await fetcher.close();
  });

  it('reads an answer in the encoding it declares (ISO-8859-1), not as UTF-8', async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    const got = await fetcher.fetch(`${base}/latin1`, Date.now() + 2000, viewer);
    expect(got.kind === 'inline' && got.ad.title).toBe('Café crème');
    await fetcher.close();
  });

  it('refuses a body over 512 KB as HTTP 413, and one cut off as a failed connection, never a throw', async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    expect(await fetcher.fetch(`${base}/huge`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'no_fill',
      reason: 'http_413',
    });
    expect(await fetcher.fetch(`${base}/cut`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'no_fill',
      reason: 'connection_failed',
    });
    // and the next answer reads as usual
    expect((await fetcher.fetch(`${base}/inline`, Date.now() + 2000, viewer)).kind).toBe('inline');
    await fetcher.close();
  });

  it("converts a price stated in another currency at the rates it is given, a wrapper's too; without them, no price", async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    const rates = new CurrencyRates({ USD: { EUR: 0.8 } });
    expect(await fetcher.fetch(`${base}/eur`, Date.now() + 2000, viewer, rates)).toMatchObject({
      kind: 'inline',
      ad: { pricingCpm: 5_000_000 },
    });
    expect(await fetcher.fetch(`${base}/eur-wrapper`, Date.now() + 2000, viewer, rates)).toMatchObject({
      kind: 'inline',
      hops: 1,
      ad: { pricingCpm: 5_000_000 },
    });
    expect(await fetcher.fetch(`${base}/eur`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'inline',
      ad: { pricingCpm: null },
    });
    expect(await fetcher.fetch(`${base}/eur-wrapper`, Date.now() + 2000, viewer, CurrencyRates.USD_ONLY)).toMatchObject(
      { kind: 'inline', ad: { pricingCpm: null } },
    );
    await fetcher.close();
  });

  it('follows an HTTP redirect as a browser would, up to 3, under the same deadline', async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    expect(await fetcher.fetch(`${base}/moved?hops=3`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'inline',
      hops: 0,
    });
    expect(await fetcher.fetch(`${base}/moved?hops=4`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'no_fill',
      reason: 'http_302',
      vastError: 303,
    });
    await fetcher.close();
  });
});
