import { gunzipSync, gzipSync } from 'node:zlib';
import { type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type BidResponse } from '@adplane/shared';
import { buildTestApp, onSqliteStore } from './helpers.js';
import { prebidPublisher } from './tenantFixture.js';
import { CACHE_WRITES_PER_ADDRESS } from '../src/edge/doors/prebidServer/prebidEntries.js';
import AjvDraft04 from 'ajv-draft-04';
import { edgeRequest } from './edgeClient.js';

/**
 * POST /openrtb2/auction as Prebid.js's prebidServerBidAdapter calls it (the request below is the
 * shape its ORTB converter builds: imp.ext.prebid.bidder.adplane, ext.prebid.targeting with
 * includewinners/includebidderkeys, ext.prebid.channel, tmax), answered with the fields Prebid.js
 * reads: seatbid[].seat, price, adm, crid, w/h, mtype, ext.prebid.type, ext.prebid.targeting,
 * ext.prebid.cache, ext.responsetimemillis and ext.errors / ext.warnings; the cache it fills served at
 * GET /cache; CORS for pages of other origins; malformed requests a 400 naming the field.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const PAGE = 'https://news.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

type Obj = Record<string, unknown>;
type PbsBid = NonNullable<BidResponse['seatbid']>[number]['bid'][number] & {
  ext: {
    origbidcpm: number;
    prebid: {
      type: string;
      bidid: string;
      targeting?: Record<string, string>;
      cache?: { bids?: { url: string; cacheId: string }; vastXml?: { url: string; cacheId: string } };
      meta: Obj;
    };
  };
};
interface PbsResponse {
  id: string;
  seatbid: { seat: string; bid: PbsBid[] }[];
  cur: string;
  ext: {
    responsetimemillis: Record<string, number>;
    tmaxrequest: number;
    prebid: { auctiontimestamp: number };
    errors?: Record<string, { code: number; message: string }[]>;
    warnings?: Record<string, { code: number; message: string }[]>;
  };
}

/** What Prebid.js 11's prebidServerBidAdapter sends for one ad unit. */
function pbjsRequest(imps: Obj[], ext: Obj = {}): Obj {
  return {
    id: 'auction-1',
    imp: imps,
    site: { page: `${PAGE}/story`, domain: 'news.example.com', publisher: { id: 'acct-1', domain: 'example.com' } },
    device: { w: 1366, h: 860, dnt: 0, ua: UA, language: 'en' },
    tmax: 1000,
    test: 0,
    source: { tid: 'tid-1' },
    ext: {
      tmaxmax: 1500,
      prebid: {
        auctiontimestamp: 1_760_000_000_000,
        targeting: { includewinners: true, includebidderkeys: false },
        channel: { name: 'pbjs', version: 'v11.36.0' },
        ...ext,
      },
    },
  };
}
const bannerImp = (channel: string, id = 'div-banner'): Obj => ({
  id,
  banner: { topframe: 1, format: [{ w: 300, h: 250 }] },
  secure: 1,
  ext: { prebid: { bidder: { adplane: { channel } }, adunitcode: id }, tid: 'x' },
});
const videoImp = (channel: string, id = 'div-video'): Obj => ({
  id,
  video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, plcmt: 1, placement: 1 },
  secure: 1,
  ext: { prebid: { bidder: { adplane: { channel } }, adunitcode: id } },
});

onSqliteStore((t) => {
  const publisher = prebidPublisher(t, {
    label: 'Prebid',
    imageUrl: 'https://cdn.example.com/b300x250.png',
    mediaUrl: 'https://cdn.example.com/spot.mp4',
    listen: false,
    trustProxy: 'loopback',
  });
  const { ids } = publisher;

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    edgeRequest(publisher.app, {
      method: 'POST',
      url: '/openrtb2/auction',
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'text/plain', ...headers },
    });
  const auction = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await post(body, headers);
    expect(res.statusCode, res.body).toBe(200);
    return { res, body: res.json() as PbsResponse };
  };
  const onlyBid = (r: PbsResponse): PbsBid => {
    expect(r.seatbid).toHaveLength(1);
    expect(r.seatbid[0]!.bid).toHaveLength(1);
    return r.seatbid[0]!.bid[0]!;
  };

  describe('banner', () => {
    it("answers Prebid.js's request with a bid priced at the publisher's payout, its HTML and the winner's keys", async () => {
      const { body } = await auction(pbjsRequest([bannerImp(ids.display!.uid)]));
      expect(body).toMatchObject({
        id: 'auction-1',
        cur: 'USD',
        ext: { tmaxrequest: 1000, prebid: { auctiontimestamp: 1_760_000_000_000 } },
      });
      expect(body.seatbid[0]!.seat).toBe('adplane');
      expect(body.ext.responsetimemillis.adplane).toBeGreaterThanOrEqual(0);
      expect(body.ext.errors).toBeUndefined();
      const bid = onlyBid(body);
      // $5.00 campaign, 70% revenue share: the publisher earns $3.50
      expect(bid).toMatchObject({
        impid: 'div-banner',
        price: 3.5,
        w: 300,
        h: 250,
        mtype: 1,
        crid: String(ids.banner!.id),
        adomain: ['brand.example.com'],
      });
      expect(bid.id).toBeTruthy();
      expect(bid.adm).toContain('https://cdn.example.com/b300x250.png');
      expect(bid.adm).toMatch(/\/ev\?e=impression&amp;t=/);
      expect(bid.ext.origbidcpm).toBe(3.5);
      expect(bid.ext.prebid).toMatchObject({ type: 'banner', meta: { adaptercode: 'adplane', mediaType: 'banner' } });
      expect(bid.ext.prebid.bidid).toMatch(/^[0-9a-f-]{36}$/);
      // includewinners true, includebidderkeys false (Prebid.js's defaults), medium granularity (Prebid Server's);
      // where the cache answers on every targeted bid, as Prebid Server (Go) writes them with a cache configured
      const host = new URL(t.settings.publicHost).host;
      expect(bid.ext.prebid.targeting).toEqual({
        hb_pb: '3.50',
        hb_bidder: 'adplane',
        hb_size: '300x250',
        hb_cache_host: host,
        hb_cache_path: '/cache',
      });
      // no events asked: no event URLs
      expect((bid.ext.prebid as { events?: unknown }).events).toBeUndefined();
      expect(bid.ext.prebid.cache).toBeUndefined();
      expect(bid.exp).toBeUndefined();
      expect(bid.dur).toBeUndefined();
    });

    it("states the channel's time limit as tmaxrequest when the request gives no tmax", async () => {
      const { tmax: _tmax, ...request } = pbjsRequest([bannerImp(ids.display!.uid)]);
      const { body } = await auction(request);
      expect(body.ext.tmaxrequest).toBe(1000);
      onlyBid(body);
    });

    it('writes hb_pb in the granularity asked, the bidder keys, hb_format and keys cut to 20 characters', async () => {
      const bucket = async (pricegranularity: unknown) => {
        const { body } = await auction(
          pbjsRequest([bannerImp(ids.display!.uid)], {
            targeting: { pricegranularity, includebidderkeys: true, includeformat: true },
          }),
        );
        return onlyBid(body).ext.prebid.targeting!;
      };
      expect((await bucket('low')).hb_pb).toBe('3.50');
      const keys = await bucket({
        precision: 1,
        ranges: [
          { max: 3, increment: 1 },
          { max: 10, increment: 2 },
        ],
      });
      const host = new URL(t.settings.publicHost).host;
      expect(keys).toEqual({
        hb_pb: '3.0',
        hb_pb_adplane: '3.0',
        hb_bidder: 'adplane',
        hb_bidder_adplane: 'adplane',
        hb_size: '300x250',
        hb_size_adplane: '300x250',
        hb_format: 'banner',
        hb_format_adplane: 'banner',
        hb_cache_host: host,
        hb_cache_host_adplan: host,
        hb_cache_path: '/cache',
        hb_cache_path_adplan: '/cache',
      });
      // above the top range: capped at its max
      expect((await bucket({ ranges: [{ max: 2, increment: 0.5 }] })).hb_pb).toBe('2.00');
      const { body } = await auction(
        pbjsRequest([bannerImp(ids.display!.uid)], {
          targeting: { includewinners: false, includebidderkeys: true, mediatypepricegranularity: { banner: 'dense' } },
        }),
      );
      expect(onlyBid(body).ext.prebid.targeting).toEqual({
        hb_pb_adplane: '3.50',
        hb_bidder_adplane: 'adplane',
        hb_size_adplane: '300x250',
        hb_cache_host_adplan: host,
        hb_cache_path_adplan: '/cache',
      });
    });

    it('caches the bid JSON when asked (hb_cache_id) and serves it at /cache', async () => {
      const { body } = await auction(
        pbjsRequest([bannerImp(ids.display!.uid)], { cache: { bids: {} }, targeting: { includebidderkeys: true } }),
      );
      const bid = onlyBid(body);
      const cache = bid.ext.prebid.cache!.bids!;
      expect(cache.url).toBe(`${t.settings.publicHost}/cache?uuid=${cache.cacheId}`);
      const host = new URL(t.settings.publicHost).host;
      expect(bid.ext.prebid.targeting).toMatchObject({
        hb_cache_id: cache.cacheId,
        hb_cache_id_adplane: cache.cacheId,
        hb_cache_host: host,
        hb_cache_host_adplan: host,
        hb_cache_path: '/cache',
        hb_cache_path_adplan: '/cache',
      });
      expect(bid.exp).toBe(300);
      const got = await edgeRequest(publisher.app, { method: 'GET', url: `/cache?uuid=${cache.cacheId}` });
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toMatch(/^application\/json/);
      expect(got.json()).toMatchObject({ id: bid.id, impid: 'div-banner', price: 3.5, adm: bid.adm, crid: bid.crid });
    });

    it("answers an AMP page's Real Time Config call (/openrtb2/amp) with the winner's targeting keys, its bid cached for the Prebid Universal Creative", async () => {
      const query = new URLSearchParams({
        tag_id: ids.display!.uid,
        w: '320',
        h: '50',
        ms: '970x90, 300x250',
        slot: '/1111/amp_test',
        curl: 'https://news.example.com/amp/story',
        timeout: '3000',
        targeting: JSON.stringify({ section: 'sports' }),
        gdpr_consent: 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA',
        consent_type: '2',
        gdpr_applies: 'true',
        __amp_source_origin: PAGE,
      });
      const res = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/openrtb2/amp?${query}`,
        headers: { origin: 'https://news-example-com.cdn.ampproject.org' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://news-example-com.cdn.ampproject.org');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['amp-access-control-allow-source-origin']).toBe(PAGE);
      expect(res.headers['access-control-expose-headers']).toBe('AMP-Access-Control-Allow-Source-Origin');
      const { targeting } = res.json() as { targeting: Record<string, string> };
      // of the multi-size list, the banner that fits: 300x250 at $3.50 (medium granularity)
      expect(targeting).toMatchObject({
        hb_bidder: 'adplane',
        hb_pb: '3.50',
        hb_size: '300x250',
        hb_bidder_adplane: 'adplane',
        hb_cache_path: '/cache',
      });
      const cached = await edgeRequest(publisher.app, { method: 'GET', url: `/cache?uuid=${targeting.hb_cache_id}` });
      expect(cached.statusCode).toBe(200);
      expect(cached.json()).toMatchObject({ impid: 'amp', price: 3.5, w: 300, h: 250 });
      expect((cached.json() as { adm: string }).adm).toContain('/ev?e=impression');
    });

    it.each([
      ['no tag_id', 'w=300&h=250', /AMP requests require an AMP tag_id/],
      ['an unknown tag_id', 'tag_id=nosuchchannel00&w=300&h=250', /no AMP config found for tag_id nosuchchannel00/],
      ['targeting that is not JSON', 'tag_id=CHANNEL&targeting=%7Bnope', /targeting must be a JSON object/],
    ])('refuses an AMP call with %s: 400 naming it', async (_, q, message) => {
      const res = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/openrtb2/amp?${q.replace('CHANNEL', ids.display!.uid)}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(message);
    });

    it('bids in the channel format of a multi-format ad unit, and tells why it cannot bid on the wrong one', async () => {
      const multi = { ...bannerImp(ids.display!.uid), video: { w: 640, h: 360, mimes: ['video/mp4'] } };
      expect(onlyBid((await auction(pbjsRequest([multi]))).body).mtype).toBe(1);
      const { body } = await auction(pbjsRequest([videoImp(ids.display!.uid)]));
      expect(body.seatbid).toEqual([]);
      expect(body.ext.warnings!.adplane![0]!.message).toMatch(/is a display channel; the ad unit offers no banner/);
    });

    it('gives no bid under the floor the page sets (imp.bidfloor, USD)', async () => {
      const { body } = await auction(
        pbjsRequest([{ ...bannerImp(ids.display!.uid), bidfloor: 4, bidfloorcur: 'USD' }]),
      );
      expect(body.seatbid).toEqual([]);
      expect(body.ext.warnings!.adplane![0]).toMatchObject({ code: 10009 });
      expect(onlyBid((await auction(pbjsRequest([{ ...bannerImp(ids.display!.uid), bidfloor: 3 }]))).body).price).toBe(
        3.5,
      );
    });
  });

  describe('video', () => {
    it('answers the VAST in adm, with hb_uuid and the cache URL when the request asks for vastxml caching', async () => {
      const { body } = await auction(pbjsRequest([videoImp(ids.instream!.uid)], { cache: { vastxml: {} } }));
      const bid = onlyBid(body);
      // its duration as OpenRTB 2.6's bid.dur and as Prebid Server writes it (ext.prebid.video)
      expect(bid).toMatchObject({
        impid: 'div-video',
        price: 7,
        mtype: 2,
        w: 640,
        h: 360,
        crid: String(ids.video!.id),
        dur: 15,
      });
      expect((bid.ext.prebid as { video?: unknown }).video).toEqual({ duration: 15, primary_category: '' });
      expect(bid.adm).toMatch(/^<\?xml[^>]*>\s*<VAST version="4\.2"/);
      expect(bid.adm).toContain('https://cdn.example.com/spot.mp4');
      const vast = bid.ext.prebid.cache!.vastXml!;
      expect(vast.url).toBe(`${t.settings.publicHost}/cache?uuid=${vast.cacheId}`);
      expect(bid.ext.prebid).toMatchObject({
        type: 'video',
        targeting: {
          hb_pb: '7.00',
          hb_bidder: 'adplane',
          hb_size: '640x360',
          hb_uuid: vast.cacheId,
          hb_cache_path: '/cache',
        },
      });
      expect(bid.ext.prebid.targeting!.hb_cache_id).toBeUndefined();
      const got = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/cache?uuid=${vast.cacheId}`,
        headers: { origin: PAGE },
      });
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toMatch(/^application\/xml/);
      expect(got.headers['access-control-allow-origin']).toBe(PAGE);
      expect(got.body).toBe(bid.adm);
    });

    it('without caching, answers the VAST alone; returnCreative: false leaves it to the cache URL', async () => {
      const plain = onlyBid((await auction(pbjsRequest([videoImp(ids.instream!.uid)]))).body);
      expect(plain.adm).toContain('<VAST');
      expect(plain.ext.prebid.cache).toBeUndefined();
      expect(plain.ext.prebid.targeting!.hb_uuid).toBeUndefined();
      const both = onlyBid(
        (
          await auction(
            pbjsRequest([videoImp(ids.instream!.uid)], {
              cache: { bids: {}, vastxml: { returnCreative: false, ttlseconds: 60 } },
            }),
          )
        ).body,
      );
      expect(both.adm).toBeUndefined();
      expect(both.exp).toBe(60);
      expect(both.ext.prebid.targeting).toMatchObject({
        hb_uuid: both.ext.prebid.cache!.vastXml!.cacheId,
        hb_cache_id: both.ext.prebid.cache!.bids!.cacheId,
      });
      const xml = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/cache?uuid=${both.ext.prebid.cache!.vastXml!.cacheId}`,
      });
      expect(xml.body).toContain('<VAST');
    });
  });

  describe('which impressions are ours', () => {
    it('ignores impressions for other bidders and answers several of ours in one response', async () => {
      const other = {
        id: 'div-other',
        banner: { format: [{ w: 728, h: 90 }] },
        ext: { prebid: { bidder: { appnexus: { placementId: 13144370 } } } },
      };
      const { body } = await auction(pbjsRequest([bannerImp(ids.display!.uid), other, videoImp(ids.instream!.uid)]));
      expect(body.seatbid).toHaveLength(1);
      expect(body.seatbid[0]!.bid.map((b) => b.impid).sort()).toEqual(['div-banner', 'div-video']);
      expect(body.ext.errors).toBeUndefined();
    });

    it('reports an unknown channel as Prebid Server reports a bidder error, and still answers 200', async () => {
      const { body } = await auction(pbjsRequest([bannerImp('no-such-channel')]));
      expect(body.seatbid).toEqual([]);
      expect(body.ext.errors).toEqual({
        adplane: [{ code: 2, message: expect.stringContaining('unknown channel "no-such-channel"') }],
      });
    });

    it('reads the channel from an alias, from imp.ext.adplane and from a stored request id', async () => {
      const aliased = { ...bannerImp('x'), ext: { prebid: { bidder: { mybidder: { channel: ids.display!.uid } } } } };
      const viaAlias = await auction(pbjsRequest([aliased], { aliases: { mybidder: 'adplane' } }));
      expect(viaAlias.body.seatbid[0]!.seat).toBe('mybidder');
      expect(onlyBid(viaAlias.body).ext.prebid.targeting!.hb_bidder).toBe('mybidder');
      const legacy = { id: 'slot', banner: { w: 300, h: 250 }, ext: { adplane: { channel: ids.display!.uid } } };
      expect(onlyBid((await auction(pbjsRequest([legacy]))).body).w).toBe(300);
      // a stored-request-style impression states no media: the channel's format stands in
      const stored = { ...pbjsRequest([{ id: 'slot-1' }], { storedrequest: { id: ids.instream!.uid } }) };
      expect(onlyBid((await auction(stored)).body)).toMatchObject({ impid: 'slot-1', mtype: 2 });
      const perImp = {
        id: 'slot-2',
        banner: { format: [{ w: 300, h: 250 }] },
        ext: { prebid: { storedrequest: { id: ids.display!.uid } } },
      };
      expect(onlyBid((await auction(pbjsRequest([perImp]))).body).impid).toBe('slot-2');
    });

    it('answers without bids, with a warning, when no impression is for adplane; and no bid in a currency other than USD', async () => {
      const none = await auction(
        pbjsRequest([{ id: 'a', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: { rubicon: {} } } } }]),
      );
      expect(none.body.seatbid).toEqual([]);
      expect(none.body.ext.warnings!.general![0]!.message).toMatch(/no impression is for adplane/);
      const eur = await auction({ ...pbjsRequest([bannerImp(ids.display!.uid)]), cur: ['EUR'] });
      expect(eur.body.seatbid).toEqual([]);
      expect(eur.body.ext.errors!.adplane![0]!.code).toBe(9);
    });
  });

  describe('CORS, malformed requests, health', () => {
    it('echoes the Origin with credentials on the answer and on the preflight', async () => {
      const { res } = await auction(pbjsRequest([bannerImp(ids.display!.uid)]), { origin: PAGE });
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': PAGE,
        'access-control-allow-credentials': 'true',
        'content-type': 'application/json; charset=utf-8',
      });
      expect(res.headers.vary).toMatch(/Origin/);
      const pre = await edgeRequest(publisher.app, {
        method: 'OPTIONS',
        url: '/openrtb2/auction',
        headers: {
          origin: PAGE,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-custom',
        },
      });
      expect(pre.statusCode).toBe(204);
      expect(pre.headers).toMatchObject({
        'access-control-allow-origin': PAGE,
        'access-control-allow-credentials': 'true',
        'access-control-allow-headers': 'content-type,x-custom',
      });
      expect(pre.headers['access-control-allow-methods']).toContain('POST');
      const cachePre = await edgeRequest(publisher.app, {
        method: 'OPTIONS',
        url: '/cache',
        headers: { origin: PAGE, 'access-control-request-method': 'GET' },
      });
      expect(cachePre.statusCode).toBe(204);
      expect(cachePre.headers['access-control-allow-origin']).toBe(PAGE);
      // a GET where only POST is served: 405 and the methods, with CORS (not the console's 404 page)
      for (const url of ['/openrtb2/auction', '/cookie_sync']) {
        const get = await edgeRequest(publisher.app, { method: 'GET', url, headers: { origin: PAGE } });
        expect([get.statusCode, get.headers.allow, get.headers['access-control-allow-origin']], url).toEqual([
          405,
          'POST, OPTIONS',
          PAGE,
        ]);
      }
      // every other path answers its preflight too, as Prebid Server's CORS handler does
      for (const url of [
        '/setuid?bidder=adplane&uid=1',
        '/getuids',
        '/status',
        '/event?t=win&b=1&a=1',
        '/info/bidders',
        '/info/bidders/adplane',
        '/bidders/params',
        '/optout',
      ]) {
        const pre = await edgeRequest(publisher.app, {
          method: 'OPTIONS',
          url,
          headers: {
            origin: PAGE,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'x-custom',
          },
        });
        expect(
          [
            pre.statusCode,
            pre.headers['access-control-allow-origin'],
            pre.headers['access-control-allow-credentials'],
            pre.headers['access-control-allow-headers'],
          ],
          url,
        ).toEqual([204, PAGE, 'true', 'x-custom']);
        expect(pre.headers['access-control-allow-methods'], url).toContain('GET');
      }
    });

    /** A request that breaks nothing but what a case puts in it. */
    const valid = (over: Obj = {}, imp: Obj = {}) =>
      JSON.stringify({
        id: 'x',
        site: { page: PAGE },
        imp: [{ id: '1', banner: { format: [{ w: 300, h: 250 }] }, ...imp }],
        ...over,
      });
    it.each([
      ['not JSON', '{"id":', /^Invalid request: the body is not valid JSON/],
      ['not an object', '[1]', /^Invalid request: the body must be a JSON object/],
      ['no imp', JSON.stringify({ id: 'x', imp: [] }), /^Invalid request: imp must be a non-empty array/],
      // a number written as a string ("500") is read as the number, as Prebid Server Java (Jackson) and exchanges' readers do
      ['tmax not a number', valid({ tmax: 'soon' }), /^Invalid request: tmax must be a number/],
      [
        'channel a number',
        valid({}, { ext: { prebid: { bidder: { adplane: { channel: 42 } } } } }),
        /imp\[0\]\.ext\.prebid\.bidder\.adplane\.channel must be a channel uid/,
      ],
      [
        'no channel param',
        valid({}, { ext: { prebid: { bidder: { adplane: {} } } } }),
        /imp\[0\]\.ext\.prebid\.bidder\.adplane\.channel is required/,
      ],
      [
        'bad granularity',
        valid({ ext: { prebid: { targeting: { pricegranularity: 'coarse' } } } }),
        /ext\.prebid\.targeting\.pricegranularity must be one of/,
      ],
      [
        'cache ttl a string',
        valid({ ext: { prebid: { cache: { vastxml: { ttlseconds: 'long' } } } } }),
        /ext\.prebid\.cache\.vastxml\.ttlseconds/,
      ],
      [
        'too large',
        JSON.stringify({ id: 'x', imp: [{ id: '1' }], pad: 'x'.repeat(300 * 1024) }),
        /^Invalid request: the body is larger than 256 KB/,
      ],
      // what Prebid Server's own validation refuses (pbsRules.ts), from its invalid-request samples
      [
        'no site, app or dooh',
        JSON.stringify({ id: 'x', imp: [{ id: '1', banner: { format: [{ w: 300, h: 250 }] } }] }),
        /^Invalid request: site or app or dooh must be defined/,
      ],
      [
        'a site without id or page',
        valid({ site: { domain: 'example.com' } }),
        /^Invalid request: site must include at least one of site\.id or site\.page/,
      ],
      ['site.ext.amp 2', valid({ site: { page: PAGE, ext: { amp: 2 } } }), /site\.ext\.amp must be 0, 1 or absent/],
      [
        'an impression with no media',
        valid({}, { banner: undefined }),
        /^Invalid request: imp\[0\] must contain at least one of "banner", "video", "audio" or "native"/,
      ],
      ['a banner with no size', valid({}, { banner: { w: 300 } }), /imp\[0\]\.banner has no sizes/],
      ['an empty format list', valid({}, { banner: { format: [] } }), /imp\[0\]\.banner has no sizes/],
      [
        'a banner with wmax',
        valid({}, { banner: { format: [{ w: 300, h: 250 }], wmax: 400 } }),
        /imp\[0\]\.banner\.wmax is not supported/,
      ],
      [
        'a format with w alone',
        valid({}, { banner: { format: [{ w: 300 }] } }),
        /imp\[0\]\.banner\.format\[0\] must define non-zero "w" and "h"/,
      ],
      [
        'a format with a size and ratios',
        valid({}, { banner: { format: [{ w: 300, h: 250, wratio: 16 }] } }),
        /format\[0\] must define either \{w, h\} or \{wmin, wratio, hratio\}/,
      ],
      ['an empty format', valid({}, { banner: { format: [{}] } }), /format\[0\] must define \{w, h\}/],
      [
        'a video without mimes',
        valid({}, { banner: undefined, video: { mimes: [], w: 640, h: 360 } }),
        /imp\[0\]\.video\.mimes must contain at least one supported MIME type/,
      ],
      [
        'a negative bitrate',
        valid({}, { banner: undefined, video: { mimes: ['video/mp4'], minbitrate: -1 } }),
        /imp\[0\]\.video\.minbitrate must be a positive number/,
      ],
      ['an audio without mimes', valid({}, { banner: undefined, audio: {} }), /imp\[0\]\.audio\.mimes must contain/],
      [
        'a native without its request',
        valid({}, { banner: undefined, native: {} }),
        /imp\[0\]\.native\.request is required/,
      ],
      ['regs.gdpr 2', valid({ regs: { gdpr: 2 } }), /regs\.gdpr must be either 0 or 1/],
      ['regs.ext.gdpr a string', valid({ regs: { ext: { gdpr: '1' } } }), /regs\.ext\.gdpr must be either 0 or 1/],
      ['user.ext.consent a number', valid({ user: { ext: { consent: 8 } } }), /user\.ext\.consent must be a string/],
      ['a negative device width', valid({ device: { w: -1 } }), /device\.w must be a positive number/],
      [
        'a negative geo accuracy',
        valid({ device: { geo: { accuracy: -5 } } }),
        /device\.geo\.accuracy must be a positive number/,
      ],
      [
        'a cache asking for nothing',
        valid({ ext: { prebid: { cache: {} } } }),
        /ext\.prebid\.cache requires one of the "bids" or "vastxml" properties/,
      ],
    ])('answers %s with a 400 naming what is wrong', async (_what, body, message) => {
      const res = await post(body, { origin: PAGE });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['access-control-allow-origin']).toBe(PAGE);
      expect(res.body).toMatch(message);
    });

    it('counts the 400s in /metrics; a body that is not the gzip it says it is (?gzip=1) is one', async () => {
      const gz = await edgeRequest(publisher.app, {
        method: 'POST',
        url: '/openrtb2/auction?gzip=1',
        payload: Buffer.from([0x1f, 0x8b, 0x08]),
      });
      expect(gz.statusCode).toBe(400);
      expect(gz.body).toMatch(/not valid gzip/);
      const br = await post('{}', { 'content-encoding': 'br' });
      expect(br.statusCode).toBe(400);
      const metrics = await publisher.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/adplane_prebid_invalid_requests_total\{reason="invalid_json"\} [1-9]/);
      expect(metrics.body).toMatch(/adplane_prebid_invalid_requests_total\{reason="invalid_request"\} [1-9]/);
      expect(metrics.body).toMatch(/adplane_prebid_invalid_requests_total\{reason="invalid_gzip"\} [1-9]/);
      expect(metrics.body).toMatch(/adplane_prebid_invalid_requests_total\{reason="unsupported_encoding"\} [1-9]/);
    });

    it("reads a body gzipped by Prebid.js's endpointCompression (?gzip=1) or with Content-Encoding, and gzips the answer for a browser", async () => {
      const request = JSON.stringify(pbjsRequest([bannerImp(ids.display!.uid)]));
      for (const [url, headers] of [
        ['/openrtb2/auction?gzip=1', {}],
        ['/openrtb2/auction', { 'content-encoding': 'gzip' }],
      ] as const) {
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url,
          payload: gzipSync(request),
          headers: { 'content-type': 'text/plain', 'accept-encoding': 'gzip, deflate, br', origin: PAGE, ...headers },
        });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-encoding']).toBe('gzip');
        expect(String(res.headers.vary)).toMatch(/Origin/);
        expect(String(res.headers.vary)).toMatch(/Accept-Encoding/);
        expect(onlyBid(JSON.parse(gunzipSync(res.rawPayload).toString('utf8')) as PbsResponse).price).toBe(3.5);
      }
    });

    it('answers /cache for an unknown uuid with 404, without one with 400; /status with 204 No Content, as Prebid Server without a status_response', async () => {
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: '/cache?uuid=00000000-0000-0000-0000-000000000000' }))
          .statusCode,
      ).toBe(404);
      expect((await edgeRequest(publisher.app, { method: 'GET', url: '/cache' })).statusCode).toBe(400);
      const status = await edgeRequest(publisher.app, { method: 'GET', url: '/status' });
      expect(status.statusCode).toBe(204);
      expect(status.body).toBe('');
    });

    it("stores what a Prebid Cache client posts to /cache (Prebid.js cache.url), and serves it as the auction's entries", async () => {
      const vast = '<VAST version="4.2"><Ad id="client"/></VAST>';
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: '/cache',
        headers: { 'content-type': 'text/plain', origin: PAGE },
        payload: JSON.stringify({
          puts: [
            { type: 'xml', value: vast, ttlseconds: 60, bidid: 'b1', bidder: 'other', key: 'chosen-by-caller' },
            { type: 'json', value: { adm: '<div/>', price: 1.5 } },
          ],
        }),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['access-control-allow-origin']).toBe(PAGE);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      const { responses } = res.json() as { responses: { uuid: string }[] };
      expect(responses).toHaveLength(2);
      // the caller's own key is not honoured: a random UUID, as Prebid Cache's defaults
      expect(responses[0]!.uuid).toMatch(/^[0-9a-f-]{36}$/);
      const xml = await edgeRequest(publisher.app, { method: 'GET', url: `/cache?uuid=${responses[0]!.uuid}` });
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expect(xml.body).toBe(vast);
      // anyone may post a document: a browser sent to its URL runs nothing of it on our origin
      expect(xml.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
      expect(xml.headers['x-content-type-options']).toBe('nosniff');
      const json = await edgeRequest(publisher.app, { method: 'GET', url: `/cache?uuid=${responses[1]!.uuid}` });
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.json()).toEqual({ adm: '<div/>', price: 1.5 });
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: '/cache?uuid=chosen-by-caller' })).statusCode,
      ).toBe(404);
      const metrics = await publisher.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/adplane_prebid_cache_writes_total\{result="stored"\} 2/);
    });

    it("keeps the auction's cached bids through a flood of posted documents (those live apart, in a smaller store)", async () => {
      const { body } = await auction(pbjsRequest([bannerImp(ids.display!.uid)], { cache: { bids: {} } }));
      const cacheId = onlyBid(body).ext.prebid.cache!.bids!.cacheId;
      const big = `<VAST>${'x'.repeat(90_000)}</VAST>`;
      for (let i = 0; i < 100; i++) {
        // (from many addresses: one address alone is held to CACHE_WRITES_PER_ADDRESS, below)
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url: '/cache',
          remoteAddress: `198.51.100.${i}`,
          payload: JSON.stringify({
            puts: [
              { type: 'xml', value: big },
              { type: 'xml', value: big },
            ],
          }),
        });
        expect(res.statusCode).toBe(200);
      }
      expect((await edgeRequest(publisher.app, { method: 'GET', url: `/cache?uuid=${cacheId}` })).statusCode).toBe(200);
    });

    it.each([
      ['not JSON', '{puts', /not valid JSON/],
      ['no puts', '{}', /"puts" array/],
      ['empty puts', '{"puts":[]}', /must not be empty/],
      [
        'eleven puts',
        JSON.stringify({ puts: Array.from({ length: 11 }, () => ({ type: 'xml', value: '<VAST/>' })) }),
        /at most 10/,
      ],
      ['an unknown type', '{"puts":[{"type":"html","value":"<p/>"}]}', /puts\[0\]\.type must be "xml" or "json"/],
      ['xml that is not a string', '{"puts":[{"type":"xml","value":{"a":1}}]}', /puts\[0\]\.value must be a string/],
      ['a missing value', '{"puts":[{"type":"xml","value":"<VAST/>"},{"type":"json"}]}', /puts\[1\]\.value is missing/],
      [
        'a value over 100 KB',
        JSON.stringify({ puts: [{ type: 'xml', value: `<VAST>${'x'.repeat(110_000)}</VAST>` }] }),
        /puts\[0\]\.value is larger than 100 KB/,
      ],
      ['a negative ttl', '{"puts":[{"type":"xml","value":"<VAST/>","ttlseconds":-1}]}', /ttlseconds/],
    ])('refuses a POST /cache with %s: 400 naming the field, nothing stored', async (_, payload, message) => {
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: '/cache',
        headers: { 'content-type': 'text/plain', origin: PAGE },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(message);
      expect(res.headers['access-control-allow-origin']).toBe(PAGE);
      // still the documents of the tests before (2, then a flood of 200: 36 MB, more than the auction's 32 MB store holds): a refused request stores none of its puts
      expect((await publisher.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
        /adplane_prebid_cache_writes_total\{result="stored"\} 202\n/,
      );
    });

    it('holds one address to CACHE_WRITES_PER_ADDRESS writes in 10 s (429, Retry-After), whatever X-Device-IP it names; others write on', async () => {
      const post = (remoteAddress: string, headers: Record<string, string> = {}) =>
        edgeRequest(publisher.app, {
          method: 'POST',
          url: '/cache',
          remoteAddress,
          headers: { origin: PAGE, ...headers },
          payload: '{"puts":[{"type":"xml","value":"<VAST/>"}]}',
        });
      for (let i = 0; i < CACHE_WRITES_PER_ADDRESS; i++)
        expect((await post('192.0.2.7', { 'x-device-ip': `10.9.9.${i}` })).statusCode).toBe(200);
      const limited = await post('192.0.2.7', { 'x-device-ip': '10.9.9.200' });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBe('10');
      expect(limited.headers['access-control-allow-origin']).toBe(PAGE);
      expect(limited.body).toMatch(/more than 30 cache writes from this address/);
      expect((await post('192.0.2.8')).statusCode).toBe(200);
      expect((await publisher.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
        /adplane_prebid_cache_writes_total\{result="rate_limited"\} 1\n/,
      );
    });

    it("answers Prebid Server's bidder information: the bidder list, adplane's media types, its parameters' JSON Schema", async () => {
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: '/info/bidders?enabledonly=true' })).json(),
      ).toEqual(['adplane']);
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: '/info/bidders?baseadaptersonly=maybe' })).statusCode,
      ).toBe(400);
      expect((await edgeRequest(publisher.app, { method: 'GET', url: '/info/bidders/all' })).json()).toEqual({
        adplane: expect.objectContaining({ status: 'ACTIVE' }),
      });
      expect((await edgeRequest(publisher.app, { method: 'GET', url: '/info/bidders/adplane' })).json()).toEqual({
        status: 'ACTIVE',
        usesHttps: true,
        capabilities: { app: { mediaTypes: ['banner', 'video'] }, site: { mediaTypes: ['banner', 'video'] } },
      });
      const unknown = await edgeRequest(publisher.app, { method: 'GET', url: '/info/bidders/appnexus' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toBe('Unknown bidder: appnexus\n');
      const params = (await edgeRequest(publisher.app, { method: 'GET', url: '/bidders/params' })).json() as Record<
        string,
        object
      >;
      expect(Object.keys(params)).toEqual(['adplane']);
      // the schema says what the auction takes: a channel uid, and nothing without one
      const validate = new AjvDraft04().compile(params.adplane!);
      expect(validate({ channel: ids.display!.uid })).toBe(true);
      expect(validate({})).toBe(false);
      expect(validate({ channel: 7 })).toBe(false);
      expect(validate({ channel: '   ' })).toBe(false);
      expect(validate({ channel: 'x'.repeat(65) })).toBe(false);
      const refused = await post(
        pbjsRequest([{ ...bannerImp(ids.display!.uid), ext: { prebid: { bidder: { adplane: { channel: 7 } } } } }]),
      );
      expect(refused.statusCode).toBe(400);
    });

    it('answers the same from the raw server, cross-origin', async () => {
      const live = await buildTestApp(t.store);
      try {
        await live.listen({ port: 0, host: '127.0.0.1' });
        await live.edge.snapshots.rebuild();
        const base = `http://127.0.0.1:${(live.server.address() as AddressInfo).port}`;
        const res = await fetch(`${base}/openrtb2/auction`, {
          method: 'POST',
          body: JSON.stringify(pbjsRequest([videoImp(ids.instream!.uid)], { cache: { vastxml: {} } })),
          headers: { 'content-type': 'text/plain', origin: PAGE },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('access-control-allow-credentials')).toBe('true');
        const bid = onlyBid((await res.json()) as PbsResponse);
        const xml = await fetch(bid.ext.prebid.cache!.vastXml!.url.replace(t.settings.publicHost, base));
        expect(xml.status).toBe(200);
        expect(await xml.text()).toBe(bid.adm);
        const status = await fetch(`${base}/status`);
        expect(status.status).toBe(204);
        expect(await status.text()).toBe('');
        expect((await fetch(`${base}/openrtb2/auction`, { method: 'POST', body: 'nope' })).status).toBe(400);
      } finally {
        await live.close();
      }
    });
  });
  describe('user sync (cookie_sync, setuid, getuids)', () => {
    /** What Prebid.js posts to s2sConfig.syncEndpoint, from the page, with credentials. */
    const syncBody = (extra: Obj = {}) =>
      JSON.stringify({
        uuid: 'u-1',
        bidders: ['adplane'],
        account: 'acct-1',
        filterSettings: { image: { bidders: '*', filter: 'include' } },
        gdpr: 0,
        us_privacy: '1---',
        ...extra,
      });
    const cookieSync = (payload: string, headers: Record<string, string> = {}) =>
      edgeRequest(publisher.app, {
        method: 'POST',
        url: '/cookie_sync',
        payload,
        headers: { 'content-type': 'text/plain', origin: PAGE, ...headers },
      });
    const uidsOf = (setCookie: unknown) => /^(uids=[^;]+);/.exec(String(setCookie))![1]!;

    it("gives a new browser its adplane id: cookie_sync names the pixel, setuid stores it in Prebid Server's uids cookie, getuids reads it", async () => {
      const sync = await cookieSync(syncBody());
      expect(sync.statusCode, sync.body).toBe(200);
      expect(sync.headers).toMatchObject({
        'access-control-allow-origin': PAGE,
        'access-control-allow-credentials': 'true',
        'content-type': 'application/json; charset=utf-8',
      });
      const answer = sync.json() as {
        status: string;
        bidder_status: {
          bidder: string;
          no_cookie: boolean;
          usersync: { url: string; type: string; supportCORS: boolean };
        }[];
      };
      expect(answer.status).toBe('no_cookie');
      expect(answer.bidder_status).toHaveLength(1);
      const [entry] = answer.bidder_status;
      expect(entry).toMatchObject({
        bidder: 'adplane',
        no_cookie: true,
        usersync: { type: 'redirect', supportCORS: false },
      });
      const url = new URL(entry!.usersync.url);
      expect(`${url.protocol}//${url.host}`).toBe(t.settings.publicHost);
      expect(url.pathname).toBe('/setuid');
      const uid = url.searchParams.get('uid')!;
      expect(uid).toMatch(/^[\w-]{22}$/);

      // the pixel Prebid.js fires
      const set = await edgeRequest(publisher.app, { method: 'GET', url: `${url.pathname}${url.search}` });
      expect(set.statusCode).toBe(200);
      expect(set.headers['content-type']).toBe('image/gif');
      expect(set.rawPayload.subarray(0, 6).toString('latin1')).toBe('GIF89a');
      expect(String(set.headers['set-cookie'])).toMatch(
        /; Path=\/; Max-Age=7776000; Expires=.+; SameSite=None; Secure$/,
      );
      const cookie = uidsOf(set.headers['set-cookie']);

      const got = await edgeRequest(publisher.app, {
        method: 'GET',
        url: '/getuids',
        headers: { cookie, origin: PAGE },
      });
      expect(got.json()).toEqual({ buyeruids: { adplane: uid } });
      // for the browser itself: no other site's page may read the ids
      expect(got.headers['access-control-allow-origin']).toBeUndefined();
      // the browser has its id: nothing more to sync
      expect((await cookieSync(syncBody(), { cookie })).json()).toEqual({ status: 'ok', bidder_status: [] });
      expect((await edgeRequest(publisher.app, { method: 'GET', url: '/getuids' })).json()).toEqual({});
    });

    it('syncs nothing where the GDPR applies or the viewer opted out of sale, and refuses what Prebid Server refuses', async () => {
      expect(
        (await cookieSync(syncBody({ gdpr: 1, gdpr_consent: 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA' }))).json(),
      ).toEqual({ status: 'no_cookie', bidder_status: [] });
      expect((await cookieSync(syncBody({ us_privacy: '1YYN' }))).json()).toEqual({
        status: 'no_cookie',
        bidder_status: [],
      });
      expect((await cookieSync(syncBody({ bidders: ['appnexus'] }))).json()).toEqual({
        status: 'no_cookie',
        bidder_status: [],
      });
      expect(
        (await cookieSync(syncBody({ filterSettings: { image: { bidders: '*', filter: 'exclude' } } }))).json(),
      ).toEqual({ status: 'no_cookie', bidder_status: [] });
      const optedOut = `uids=${Buffer.from(JSON.stringify({ tempUIDs: {}, optout: true })).toString('base64url')}`;
      expect((await cookieSync(syncBody(), { cookie: optedOut })).statusCode).toBe(401);
      expect(
        (
          await edgeRequest(publisher.app, {
            method: 'GET',
            url: '/setuid?bidder=adplane&uid=x',
            headers: { cookie: optedOut },
          })
        ).statusCode,
      ).toBe(401);
      const gdpr = await edgeRequest(publisher.app, {
        method: 'GET',
        url: '/setuid?bidder=adplane&uid=abc&gdpr=1&gdpr_consent=CO',
      });
      expect(gdpr.statusCode).toBe(451);
      expect(gdpr.headers['set-cookie']).toBeUndefined();
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: '/setuid?bidder=rubicon&uid=abc' })).statusCode,
      ).toBe(400);
      const bad = await cookieSync(syncBody({ bidders: 'adplane' }));
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toBe('Invalid request: bidders must be an array of bidder codes\n');
      expect((await cookieSync('{nope')).statusCode).toBe(400);
      // no body: the defaults (every bidder adplane syncs)
      expect((await edgeRequest(publisher.app, { method: 'POST', url: '/cookie_sync' })).json()).toMatchObject({
        status: 'no_cookie',
        bidder_status: [{ bidder: 'adplane' }],
      });
      expect(
        (await edgeRequest(publisher.app, { method: 'POST', url: '/cookie_sync', payload: '' })).json(),
      ).toMatchObject({ bidder_status: [{ bidder: 'adplane' }] });
      const pre = await edgeRequest(publisher.app, {
        method: 'OPTIONS',
        url: '/cookie_sync',
        headers: { origin: PAGE, 'access-control-request-method': 'POST' },
      });
      expect(pre.statusCode).toBe(204);
      expect((await publisher.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
        /adplane_prebid_user_syncs_total\{call="setuid",result="451"\} 1\n/,
      );
    });

    it("counts the browser's adplane id as the viewer of a frequency cap, from any address, except where the GDPR applies", async () => {
      const creative = await publisher.create('capped', 'creatives', {
        name: 'Capped banner',
        format: 'display',
        displayType: 'image',
        imageUrl: 'https://cdn.example.com/capped.png',
        width: 300,
        height: 250,
        clickUrl: 'https://brand.example.com/',
        approval: 'approved',
      });
      await publisher.create('cappedCampaign', 'campaigns', {
        name: 'Once per browser',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 40_000_000,
        channelScope: 'all',
        pacing: 'asap',
        frequencyCap: { count: 1, periodHours: 24 },
        creativeIds: [creative.id],
      });
      await publisher.app.edge.snapshots.rebuild();
      const uids = (uid: string) =>
        `uids=${Buffer.from(JSON.stringify({ tempUIDs: { adplane: { uid, expires: new Date(Date.now() + 86_400_000).toISOString() } } })).toString('base64url')}`;
      /** The winning creative of a banner auction from `ip`, its impression fired (the cap counts impressions). */
      const winner = async (ip: string, headers: Record<string, string>, regs?: Obj) => {
        const request = pbjsRequest([bannerImp(ids.display!.uid)]);
        (request.device as Obj).ip = ip;
        if (regs) request.regs = regs;
        const bid = onlyBid((await auction(request, headers)).body);
        const impression = /https?:\/\/[^"'\s]*\/ev\?e=impression&amp;t=[^"'\s]+/
          .exec(bid.adm!)![0]
          .replaceAll('&amp;', '&');
        expect(
          (await edgeRequest(publisher.app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) }))
            .statusCode,
        ).toBe(200);
        return Number(bid.crid);
      };
      expect(await winner('8.8.4.1', { cookie: uids('browser-1') })).toBe(creative.id);
      // the same browser from another address: capped, the next campaign wins
      expect(await winner('8.8.4.2', { cookie: uids('browser-1') })).not.toBe(creative.id);
      // the app's explicit id for adplane counts the same
      const request = pbjsRequest([bannerImp(ids.display!.uid)]);
      Object.assign(request, {
        device: { ...(request.device as Obj), ip: '8.8.4.3' },
        user: { ext: { prebid: { buyeruids: { adplane: 'browser-1' } } } },
      });
      expect(onlyBid((await auction(request)).body).crid).not.toBe(String(creative.id));
      // another browser still gets it
      expect(await winner('8.8.4.4', { cookie: uids('browser-2') })).toBe(creative.id);
      // where the GDPR applies the id is not used: the address and user agent are the viewer
      expect(await winner('8.8.4.5', { cookie: uids('browser-2') }, { gdpr: 1 })).toBe(creative.id);
    });

    it('opts a browser out on its page (nothing synced or stored after), and back in only from that page', async () => {
      const page = await edgeRequest(publisher.app, { method: 'GET', url: '/optout' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['set-cookie']).toBeUndefined();
      expect(page.body).toContain('adplane keeps no id for this browser.');
      const form = (optout: string, headers: Record<string, string> = {}) =>
        edgeRequest(publisher.app, {
          method: 'POST',
          url: '/optout',
          payload: `optout=${optout}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        });
      const out = await form('1', { 'sec-fetch-site': 'same-origin' });
      expect(out.statusCode).toBe(303);
      expect(out.headers.location).toBe('/optout');
      const cookie = uidsOf(out.headers['set-cookie']);
      expect(String(out.headers['set-cookie'])).toContain('; Max-Age=34560000;');
      // each visit to the page renews the opt-out
      const again = await edgeRequest(publisher.app, { method: 'GET', url: '/optout', headers: { cookie } });
      expect(again.body).toContain('This browser is opted out');
      expect(uidsOf(again.headers['set-cookie'])).toBe(cookie);
      expect((await cookieSync(syncBody(), { cookie })).statusCode).toBe(401);
      expect(
        (
          await edgeRequest(publisher.app, {
            method: 'GET',
            url: '/setuid?bidder=adplane&uid=again',
            headers: { cookie },
          })
        ).statusCode,
      ).toBe(401);
      // another site may not opt the browser back in for it, nor out
      const forced = await form('0', { cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' });
      expect(forced.statusCode).toBe(403);
      expect(forced.headers['set-cookie']).toBeUndefined();
      expect((await form('1', { origin: 'https://evil.example' })).statusCode).toBe(403);
      expect((await form(`1&pad=${'x'.repeat(5000)}`, { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(413);
      const back = await form('0', { cookie, 'sec-fetch-site': 'same-origin' });
      expect(back.statusCode).toBe(303);
      expect((await cookieSync(syncBody(), { cookie: uidsOf(back.headers['set-cookie']) })).json()).toMatchObject({
        bidder_status: [{ bidder: 'adplane' }],
      });
      expect((await form('maybe')).statusCode).toBe(400);
    });

    it('sets the cookie from the raw server too', async () => {
      const live = await buildTestApp(t.store);
      try {
        await live.listen({ port: 0, host: '127.0.0.1' });
        const base = `http://127.0.0.1:${(live.server.address() as AddressInfo).port}`;
        const set = await fetch(`${base}/setuid?bidder=adplane&uid=raw-1&f=b`, { headers: { origin: PAGE } });
        expect(set.status).toBe(200);
        expect(set.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(set.headers.get('access-control-allow-origin')).toBe(PAGE);
        const cookie = uidsOf(set.headers.get('set-cookie'));
        expect(await (await fetch(`${base}/getuids`, { headers: { cookie } })).json()).toEqual({
          buyeruids: { adplane: 'raw-1' },
        });
        // a chunked body is read too: its gdpr=1 is heard
        const chunked = await fetch(`${base}/cookie_sync`, {
          method: 'POST',
          body: new Blob([syncBody({ gdpr: 1, gdpr_consent: 'CO' })]).stream(),
          duplex: 'half',
          headers: { 'content-type': 'text/plain' },
        } as RequestInit);
        expect(await chunked.json()).toEqual({ status: 'no_cookie', bidder_status: [] });
        const sync = await fetch(`${base}/cookie_sync`, {
          method: 'POST',
          body: syncBody(),
          headers: { 'content-type': 'text/plain', cookie },
        });
        expect(await sync.json()).toEqual({ status: 'ok', bidder_status: [] });
      } finally {
        await live.close();
      }
    });
  });
});
