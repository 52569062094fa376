import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prebidPublisher } from './tenantFixture.js';
import { forEachStore } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * The wire format real Prebid clients use, through the real app: the requests are fixtures shaped
 * as Prebid.js's prebidServerBidAdapter builds them (modules/prebidServerBidAdapter/ortbConverter.js
 * with libraries/pbsExtensions: imp.id the ad unit code, imp.ext.prebid.bidder.<code>, imp.ext.tid /
 * gpid / data, ext.prebid.targeting { includewinners, includebidderkeys }, ext.prebid.channel,
 * createtids, floors, pageviewids, source.ext.schain, user.ext.eids, device.sua), and the checks are
 * on the fields Prebid.js reads back (libraries/pbsExtensions/processors/pbs.js, video.js,
 * mediaType.js and libraries/ortbConverter/processors/default.js): seatbid[].seat (matched to the
 * bidder code on the page), bid.impid, price, w/h, crid, mtype / ext.prebid.type, adm, exp,
 * ext.prebid.targeting, ext.prebid.meta, ext.prebid.bidid, ext.prebid.cache.vastXml {url, cacheId}
 * (else hb_uuid + hb_cache_host + hb_cache_path), response cur and ext.responsetimemillis.<code>.
 */
type Obj = Record<string, unknown>;
const fixture = (name: string, channel: string): Obj =>
  JSON.parse(
    readFileSync(new URL(`./fixtures/prebid/${name}`, import.meta.url), 'utf8').replaceAll('__CHANNEL__', channel),
  ) as Obj;
const PAGE = 'https://news.example.com';

interface WireBid {
  id: string;
  impid: string;
  price: number;
  adm?: string;
  crid: string;
  w: number;
  h: number;
  mtype: number;
  exp?: number;
  ext: {
    prebid: {
      type: string;
      bidid: string;
      meta: Obj;
      targeting: Record<string, string>;
      cache?: { vastXml?: { url: string; cacheId: string } };
    };
  };
}
interface WireResponse {
  id: string;
  cur: string;
  seatbid: { seat: string; bid: WireBid[] }[];
  ext: { responsetimemillis: Record<string, number>; debug?: { resolvedrequest: Obj }; errors?: unknown };
}

forEachStore((t) => {
  const publisher = prebidPublisher(t, {
    label: 'Wire',
    imageUrl: 'https://cdn.example.com/w300x250.png',
    mediaUrl: 'https://cdn.example.com/wire.mp4',
    clickUrl: 'https://brand.example.com/',
    listen: false,
  });
  const { ids } = publisher;

  const auction = async (body: Obj) => {
    const res = await edgeRequest(publisher.app, {
      method: 'POST',
      url: '/openrtb2/auction',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
    expect(res.statusCode, res.body).toBe(200);
    return { res, body: res.json() as WireResponse };
  };

  describe("Prebid.js's prebidServerBidAdapter request", () => {
    it('banner: a bid Prebid.js matches to its ad unit and bidder, with the winner keys, CORS for the page', async () => {
      const request = fixture('pbjs-banner-request.json', ids.display!.uid);
      const { res, body } = await auction(request);
      expect(res.headers['access-control-allow-origin']).toBe(PAGE);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(body.id).toBe(request.id);
      expect(body.cur).toBe('USD');
      expect(body.ext.responsetimemillis.adplane).toBeGreaterThanOrEqual(0);
      expect(body.ext.debug).toBeUndefined();
      expect(body.seatbid).toHaveLength(1);
      expect(body.seatbid[0]!.seat).toBe('adplane');
      const bid = body.seatbid[0]!.bid[0]!;
      expect(bid).toMatchObject({
        impid: 'div-gpt-ad-1460505748561-0',
        price: 3.5,
        w: 300,
        h: 250,
        mtype: 1,
        crid: String(ids.banner!.id),
      });
      expect(bid.adm).toContain('https://cdn.example.com/w300x250.png');
      expect(bid.ext.prebid).toMatchObject({ type: 'banner', meta: { adaptercode: 'adplane' } });
      expect(typeof bid.ext.prebid.bidid).toBe('string');
      // hb_cache_host / hb_cache_path on every targeted bid, as Prebid Server (Go) writes them with a cache configured
      expect(bid.ext.prebid.targeting).toEqual({
        hb_pb: '3.50',
        hb_bidder: 'adplane',
        hb_size: '300x250',
        hb_cache_host: new URL(t.settings.publicHost).host,
        hb_cache_path: '/cache',
      });
    });

    it('video with ext.prebid.cache.vastxml {returnCreative: false}: the VAST by URL (cache.vastXml and the hb_uuid/hb_cache_host/hb_cache_path fallback), hb_pb in the custom granularity', async () => {
      const { body } = await auction(fixture('pbjs-video-request.json', ids.instream!.uid));
      const bid = body.seatbid[0]!.bid[0]!;
      expect(bid).toMatchObject({ impid: 'video-instream', price: 7, mtype: 2, exp: 300 });
      expect(bid.ext.prebid.type).toBe('video');
      // returnCreative: false: no adm, the page loads the VAST from the cache
      expect(bid.adm).toBeUndefined();
      const vast = bid.ext.prebid.cache!.vastXml!;
      expect(vast.url).toBe(`${t.settings.publicHost}/cache?uuid=${vast.cacheId}`);
      const keys = bid.ext.prebid.targeting;
      // custom ranges: 7.00 falls in [5, 20] by 0.50
      expect(keys).toMatchObject({
        hb_pb: '7.00',
        hb_bidder: 'adplane',
        hb_size: '640x360',
        hb_uuid: vast.cacheId,
        hb_cache_path: '/cache',
      });
      // what Prebid.js builds when cache.vastXml is missing: https://<hb_cache_host><hb_cache_path>?uuid=<hb_uuid>
      const fallback = new URL(`https://${keys.hb_cache_host}${keys.hb_cache_path}?uuid=${keys.hb_uuid}`);
      const served = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `${fallback.pathname}${fallback.search}`,
        headers: { origin: PAGE },
      });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toMatch(/^application\/xml/);
      expect(served.headers['access-control-allow-origin']).toBe(PAGE);
      expect(served.body).toContain('<VAST');
      expect(served.body).toContain('https://cdn.example.com/wire.mp4');
    });

    it("debug (Prebid.js's debug config sends ext.prebid.debug: true; test: 1 too): ext.debug.resolvedrequest, as Prebid Server answers", async () => {
      const request = fixture('pbjs-banner-request.json', ids.display!.uid);
      const prebid = (request.ext as { prebid: Obj }).prebid;
      const debugged = { ...request, ext: { ...(request.ext as Obj), prebid: { ...prebid, debug: true } } };
      const { body } = await auction(debugged);
      expect(body.ext.debug!.resolvedrequest).toMatchObject({
        id: request.id,
        imp: [{ id: 'div-gpt-ad-1460505748561-0' }],
      });
      expect(body.seatbid).toHaveLength(1);
      const { body: tested } = await auction({ ...request, test: 1 });
      expect(tested.ext.debug!.resolvedrequest).toMatchObject({ id: request.id, test: 1 });
      // a debug flag of the wrong type is refused, as Prebid Server's JSON decoding refuses it
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: '/openrtb2/auction',
        payload: JSON.stringify({ ...request, ext: { prebid: { ...prebid, debug: 'yes' } } }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/ext\.prebid\.debug/);
    });

    it('reads the bidder code in any case, as Prebid Server matches bidder names, and answers under the code the page used', async () => {
      const request = fixture('pbjs-banner-request.json', ids.display!.uid);
      const imp = (request.imp as Obj[])[0]!;
      const ext = imp.ext as { prebid: Obj };
      const mixed = {
        ...request,
        imp: [
          { ...imp, ext: { ...ext, prebid: { ...ext.prebid, bidder: { AdPlane: { channel: ids.display!.uid } } } } },
        ],
      };
      const { body } = await auction(mixed);
      expect(body.seatbid.map((s) => s.seat)).toEqual(['AdPlane']);
      expect(body.seatbid[0]!.bid[0]!.ext.prebid.targeting).toMatchObject({ hb_bidder: 'AdPlane', hb_pb: '3.50' });
      expect(body.ext.responsetimemillis).toHaveProperty('AdPlane');
    });
  });

  describe("Prebid Server's AMP answer", () => {
    it("carries the bid response's ext under ortb2.ext beside the targeting keys", async () => {
      const query = new URLSearchParams({
        tag_id: ids.display!.uid,
        w: '300',
        h: '250',
        curl: `${PAGE}/amp/story`,
        timeout: '1000',
      });
      const res = await edgeRequest(publisher.app, { method: 'GET', url: `/openrtb2/amp?${query}` });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as {
        targeting: Record<string, string>;
        ortb2: { ext: { responsetimemillis: Record<string, number>; tmaxrequest: number } };
      };
      expect(answer.targeting).toMatchObject({ hb_bidder: 'adplane', hb_pb: '3.50', hb_size: '300x250' });
      expect(answer.ortb2.ext.responsetimemillis.adplane).toBeGreaterThanOrEqual(0);
      expect(answer.ortb2.ext.tmaxrequest).toBe(1000);
    });
  });
});
