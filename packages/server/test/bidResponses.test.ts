import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_ADDRESS } from '../src/http/outboundAddress.js';
import { demandAgent } from '../src/edge/demand/deadline.js';
import { HttpCaller } from '../src/edge/demand/httpCaller.js';
import {
  type BidRead,
  parseBidResponse,
  readBidResponse,
  type ResponseExpectation,
} from '../src/edge/ortb/bidResponseReader.js';
import { inlineVast } from './demandServers.js';
import { type LocalServer, localServer } from './localServer.js';

/**
 * Bid responses as real bidders write them, over real HTTP (shapes modelled on Prebid Server's
 * adapter fixtures: `mockResponse.body`): the bytes go through our demand caller and the reader, as
 * demand/openrtbCall.ts takes them. Each is a bid or a counted no-fill with its reason, never a throw.
 */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

const VAST = inlineVast('https://dsp.example', null);
const REQUEST_ID = 'f3b1c2d4-0000-4000-8000-000000000001';
const video: ResponseExpectation = {
  requestId: REQUEST_ID,
  impId: '1',
  media: 'video',
  deals: new Set(),
  privateAuction: false,
  bcat: [],
  badv: [],
};
const banner: ResponseExpectation = { ...video, media: 'banner' };
const json = (v: unknown) => JSON.stringify(v);
const one = (bid: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  json({ id: REQUEST_ID, seatbid: [{ seat: 'dsp', bid: [{ id: 'b1', impid: '1', ...bid }] }], ...over });

const answers: Record<string, Answer> = {
  '/204': { status: 204, body: '' },
  '/empty-200': { body: '' },
  '/empty-object': { body: '{}' },
  '/nbr-200': { body: json({ id: REQUEST_ID, nbr: 2 }) },
  '/nbr-null-seatbid': { body: json({ id: REQUEST_ID, seatbid: null, nbr: 8 }) },
  '/gzip-vast': {
    headers: { 'content-encoding': 'gzip' },
    body: gzipSync(one({ price: 1.5, adm: VAST, crid: 'c1', mtype: 2 }, { cur: 'USD', bidid: 'resp-1' })),
  },
  '/bom': { body: `\uFEFF${one({ price: 2, adm: VAST })}` },
  '/gzip-bom': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(`\uFEFF${one({ price: 2, adm: VAST })}`) },
  '/trailing-garbage': { body: `${one({ price: 2, adm: VAST })}\n<!-- served in 3ms -->` },
  '/string-price': { body: one({ price: '2.50', adm: VAST }) },
  '/lower-cur-no-crid-no-adomain': { body: one({ price: 3, adm: '<div>ad</div>', w: 300, h: 250 }, { cur: 'usd' }) },
  // Prebid Server answers: ext.prebid.type, no mtype; a video bid served on the win notice
  '/pbs-banner': {
    body: json({
      id: REQUEST_ID,
      seatbid: [
        {
          seat: 'appnexus',
          bid: [
            {
              id: 'x',
              impid: '1',
              price: 0.5,
              adm: '<script src="https://ads.example/a.js"></script>',
              crid: '29681110',
              w: 300,
              h: 250,
              ext: { prebid: { type: 'banner' } },
            },
          ],
        },
      ],
      cur: 'USD',
    }),
  },
  '/pbs-video-nurl': {
    body: json({
      id: REQUEST_ID,
      seatbid: [
        {
          seat: 'rubicon',
          bid: [
            {
              id: 'v',
              impid: '1',
              price: 4,
              nurl: 'https://pbs.example/cache?uuid=abc',
              ext: { prebid: { type: 'video' } },
            },
          ],
        },
      ],
    }),
  },
  // two seats, one also bidding on an impression we never offered
  '/seats': {
    body: json({
      id: REQUEST_ID,
      bidid: 'r-77',
      seatbid: [
        {
          seat: 'a',
          bid: [
            { id: 'a1', impid: '2', price: 9, adm: VAST },
            { id: 'a2', impid: '1', price: 1.2, adm: VAST },
          ],
        },
        { seat: 'b', bid: [{ id: 'b1', impid: '1', price: 2.2, adm: VAST, mtype: null, dealid: null, adomain: null }] },
      ],
    }),
  },
  '/not-gzip': { headers: { 'content-encoding': 'gzip' }, body: one({ price: 2, adm: VAST }) },
  '/html-error': {
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: '<html><body>Service Unavailable</body></html>',
  },
};

describe('bid responses as bidders send them', () => {
  let bidder: LocalServer;
  const caller = new HttpCaller(demandAgent(ANY_ADDRESS));

  beforeAll(async () => {
    bidder = await localServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const a = answers[req.url ?? ''];
        if (!a) {
          res.writeHead(404);
          res.end();
          return;
        }
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body);
      });
    });
  });
  afterAll(async () => {
    await caller.close();
    await bidder.close();
  });

  /** The answer as demand/openrtbCall.ts reads it: a failed call's reason, 204 or an empty body no bid, else the reader's. */
  async function read(path: string, x = video): Promise<BidRead> {
    const got = await caller.postJson(`${bidder.url}${path}`, '{}', Date.now() + 2000);
    if (got.kind !== 'answer') return { ok: false, reason: got.kind === 'failed' ? got.reason : 'timeout' };
    if (got.status === 204 || !got.body.trim()) return { ok: false, reason: 'no_bid' };
    return readBidResponse(parseBidResponse(got.body), x);
  }
  const reasonOf = (r: BidRead) => (r.ok ? 'ok' : r.reason);

  it('hears every no-bid signal as no_bid: 204, an empty 200, {}, nbr with no or a null seatbid', async () => {
    for (const path of ['/204', '/empty-200', '/empty-object', '/nbr-200', '/nbr-null-seatbid'])
      expect(reasonOf(await read(path)), path).toBe('no_bid');
  });

  it('reads gzip, a byte-order mark (also gzipped), lower-case cur, no crid or adomain', async () => {
    expect(await read('/gzip-vast')).toMatchObject({
      ok: true,
      bid: { priceCpm: 1_500_000, bidId: 'resp-1', seat: 'dsp', crid: 'c1' },
    });
    expect(reasonOf(await read('/bom'))).toBe('ok');
    expect(reasonOf(await read('/gzip-bom'))).toBe('ok');
    expect(await read('/lower-cur-no-crid-no-adomain', banner)).toMatchObject({
      ok: true,
      bid: { priceCpm: 3_000_000, currency: 'USD', crid: '', adomain: [], w: 300, h: 250 },
    });
  });

  it('reads Prebid Server answers by ext.prebid.type: a banner, and a video on its win notice refused for a banner', async () => {
    expect(await read('/pbs-banner', banner)).toMatchObject({ ok: true, bid: { seat: 'appnexus', mtype: 1 } });
    expect(await read('/pbs-video-nurl')).toMatchObject({
      ok: true,
      bid: { adm: '', nurl: 'https://pbs.example/cache?uuid=abc' },
    });
    expect(reasonOf(await read('/pbs-video-nurl', banner))).toBe('wrong_media');
  });

  it('takes the best bid for our impression over several seats, nulls read as absent', async () => {
    expect(await read('/seats')).toMatchObject({
      ok: true,
      bid: { seat: 'b', bidId: 'r-77', priceCpm: 2_200_000, dealId: '', adomain: [] },
    });
  });

  it('counts garbage as a no-fill with its reason: trailing bytes, a quoted price, HTML, a body not the gzip it says', async () => {
    expect(reasonOf(await read('/trailing-garbage'))).toBe('invalid_response');
    expect(reasonOf(await read('/string-price'))).toBe('invalid_price');
    expect(reasonOf(await read('/html-error'))).toBe('invalid_response');
    expect(reasonOf(await read('/not-gzip'))).toBe('invalid_gzip');
  });
});
