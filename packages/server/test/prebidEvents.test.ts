import { describe, expect, it } from 'vitest';
import { prebidPublisher } from './tenantFixture.js';
import { forEachStore } from './helpers.js';

/**
 * Prebid Server's events (GET /event and ext.prebid.events), its seat non-bids
 * (ext.prebid.returnallbidstatus), its /status and its cookie_sync filters, through the real app over
 * real HTTP (the raw edge server a page reaches), as Prebid.js and Prebid Server's clients call them.
 */
const PAGE = 'https://news.example.com';
type Obj = Record<string, unknown>;

interface EventBid {
  id: string;
  impid: string;
  price: number;
  adm?: string;
  ext: {
    prebid: { bidid: string; type: string; events?: { win: string; imp: string }; targeting?: Record<string, string> };
  };
}
interface Answer {
  seatbid: { seat: string; bid: EventBid[] }[];
  ext: {
    seatnonbid?: { seat: string; nonbid: { impid: string; statuscode: number; ext?: { prebid: { bid: Obj } } }[] }[];
    prebid: { auctiontimestamp: number };
  };
}

function pbjsRequest(imps: Obj[], prebid: Obj = {}, top: Obj = {}): Obj {
  return {
    id: 'auction-ev',
    imp: imps,
    site: { page: `${PAGE}/story`, domain: 'news.example.com', publisher: { id: 'acct-1' } },
    device: {
      ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
    },
    tmax: 1000,
    ext: {
      prebid: {
        auctiontimestamp: 1_760_000_000_000,
        targeting: { includewinners: true, includebidderkeys: false },
        ...prebid,
      },
    },
    ...top,
  };
}
const bannerImp = (channel: string, id = 'div-banner', extra: Obj = {}): Obj => ({
  id,
  banner: { format: [{ w: 300, h: 250 }] },
  secure: 1,
  ext: { prebid: { bidder: { adplane: { channel } } } },
  ...extra,
});
const videoImp = (channel: string, id = 'div-video'): Obj => ({
  id,
  video: { mimes: ['video/mp4'], protocols: [2, 3], w: 640, h: 360, plcmt: 1 },
  secure: 1,
  ext: { prebid: { bidder: { adplane: { channel } } } },
});

forEachStore((t) => {
  const publisher = prebidPublisher(
    t,
    { label: 'Events', imageUrl: 'https://cdn.example.com/e300x250.png', mediaUrl: 'https://cdn.example.com/spot.mp4' },
    async (publisher) => {
      await publisher.prebidChannel('counted', 'Events counted', { format: 'display' });
    },
  );
  const { ids } = publisher;

  /** A URL the edge wrote (its public host) as this test server answers it. */
  const local = (url: string) => url.replace(t.settings.publicHost, publisher.base);
  const auction = async (body: Obj): Promise<Answer> => {
    const res = await fetch(`${publisher.base}/openrtb2/auction`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Answer;
  };
  const imps = (channel: number) => publisher.countedImpressions(`channel_id = ${channel}`);

  describe('GET /status', () => {
    it('answers 204 No Content once ready, as Prebid Server without a status_response', async () => {
      const res = await fetch(`${publisher.base}/status`);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
    });
  });

  describe('ext.prebid.events and GET /event', () => {
    it("gives each banner bid Prebid Server's win and imp URLs (none to a video bid, none without events)", async () => {
      const body = await auction(
        pbjsRequest([bannerImp(ids.display!.uid), videoImp(ids.instream!.uid)], { events: {}, integration: 'pbjs' }),
      );
      const bids = body.seatbid.flatMap((s) => s.bid);
      const banner = bids.find((b) => b.impid === 'div-banner')!;
      const video = bids.find((b) => b.impid === 'div-video')!;
      expect(video.ext.prebid.events).toBeUndefined();
      const { win, imp } = banner.ext.prebid.events!;
      const w = new URL(win);
      expect(`${w.origin}${w.pathname}`).toBe(`${t.settings.publicHost}/event`);
      // t, b, a first as Prebid Server writes them, then bidder, int, ts; adplane's token last
      expect(win).toMatch(/\/event\?t=win&b=[0-9a-f-]{36}&a=acct-1&bidder=adplane&int=pbjs&ts=1760000000000&tk=/);
      expect(w.searchParams.get('b')).toBe(banner.ext.prebid.bidid);
      expect(imp).toBe(win.replace('?t=win&', '?t=imp&'));
      // without ext.prebid.events: none
      const plain = await auction(pbjsRequest([bannerImp(ids.display!.uid)]));
      expect(plain.seatbid[0]!.bid[0]!.ext.prebid.events).toBeUndefined();
      // the account is the channel when the request names no publisher
      const anonymous = await auction(
        pbjsRequest([bannerImp(ids.display!.uid)], { events: {} }, { site: { page: `${PAGE}/x` } }),
      );
      expect(new URL(anonymous.seatbid[0]!.bid[0]!.ext.prebid.events!.win).searchParams.get('a')).toBe(
        ids.display!.uid,
      );
    });

    it('counts the impression once across our own tracker and t=imp; t=win counts nothing', async () => {
      const channel = ids.counted!.id;
      const before = await imps(channel);
      const first = (await auction(pbjsRequest([bannerImp(ids.counted!.uid)], { events: {} }))).seatbid[0]!.bid[0]!;
      const { win, imp } = first.ext.prebid.events!;
      // Prebid.js fires the win URL as a pixel: Prebid Server's 204 without f, nothing counted
      const won = await fetch(local(win), { headers: { origin: PAGE } });
      expect(won.status).toBe(204);
      expect(won.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(await imps(channel)).toBe(before);
      // the imp event as an image (f=i): a 1x1 GIF, the impression counted
      const pixel = await fetch(`${local(imp)}&f=i`);
      expect(pixel.status).toBe(200);
      expect(pixel.headers.get('content-type')).toBe('image/gif');
      expect((await pixel.arrayBuffer()).byteLength).toBeGreaterThan(0);
      expect(await imps(channel)).toBe(before + 1);
      // the markup's own impression pixel, then the imp event again: replays, counted once
      const token = new URL(imp).searchParams.get('tk')!;
      expect((await fetch(`${publisher.base}/ev?e=impression&t=${encodeURIComponent(token)}`)).status).toBe(200);
      expect((await fetch(local(imp))).status).toBe(204);
      expect(await imps(channel)).toBe(before + 1);

      // the other way round: our tracker first, then t=imp: still one
      const second = (await auction(pbjsRequest([bannerImp(ids.counted!.uid)], { events: {} }))).seatbid[0]!.bid[0]!;
      const adm = second.adm!.replaceAll('&amp;', '&');
      const tracker = /src="([^"]*\/ev\?e=impression&t=[^"]+)"/.exec(adm)![1]!;
      expect((await fetch(local(tracker))).status).toBe(200);
      expect((await fetch(local(second.ext.prebid.events!.imp))).status).toBe(204);
      expect(await imps(channel)).toBe(before + 2);
    });

    it('refuses bad input with a 4xx naming the parameter, a forged token with 403, and never counts them', async () => {
      const bid = (await auction(pbjsRequest([bannerImp(ids.counted!.uid)], { events: {} }))).seatbid[0]!.bid[0]!;
      const imp = new URL(local(bid.ext.prebid.events!.imp));
      const channel = ids.counted!.id;
      const before = await imps(channel);
      const call = async (change: (q: URLSearchParams) => void) => {
        const q = new URLSearchParams(imp.search);
        change(q);
        const res = await fetch(`${publisher.base}/event?${q}`);
        return { status: res.status, text: await res.text() };
      };
      expect(await call((q) => q.delete('t'))).toEqual({
        status: 400,
        text: "invalid request: parameter 't' is required\n",
      });
      expect(await call((q) => q.set('t', 'click'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("unknown type: 'click'"),
      });
      expect(await call((q) => q.delete('b'))).toEqual({
        status: 400,
        text: "invalid request: parameter 'b' is required\n",
      });
      expect(await call((q) => q.set('ts', 'yesterday'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("parameter 'ts'"),
      });
      expect(await call((q) => q.set('f', 'png'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("parameter 'f'"),
      });
      expect(await call((q) => q.set('x', '2'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("parameter 'x'"),
      });
      expect(await call((q) => q.set('int', 'a b'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("parameter 'int'"),
      });
      expect(await call((q) => q.set('vtype', 'start'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("'vtype'"),
      });
      // every bad parameter at once, a line each
      expect(
        (
          await call((q) => {
            q.delete('t');
            q.delete('b');
          })
        ).text
          .split('\n')
          .filter(Boolean),
      ).toHaveLength(2);
      // no account: Prebid Server's 401 naming it
      expect(await call((q) => q.delete('a'))).toEqual({
        status: 401,
        text: "Account 'a' is required query parameter and can't be empty\n",
      });
      // adplane's token: required, and only a valid one counts
      expect(await call((q) => q.delete('tk'))).toMatchObject({
        status: 400,
        text: expect.stringContaining("parameter 'tk' is required"),
      });
      const tk = imp.searchParams.get('tk')!;
      expect(await call((q) => q.set('tk', `${tk.slice(0, -4)}AAAA`))).toMatchObject({
        status: 403,
        text: expect.stringContaining("'tk'"),
      });
      expect(await call((q) => q.set('tk', 'x'.repeat(5000)))).toMatchObject({ status: 403 });
      // analytics off (x=0): 204 at once, nothing counted
      expect(await call((q) => q.set('x', '0'))).toEqual({ status: 204, text: '' });
      expect(await imps(channel)).toBe(before);
      // odd input never fails the edge
      for (const odd of ['%', 't=%ZZ', 'a=&b=&t=', `t=imp&b=1&a=1&tk=${'.'.repeat(3000)}`, 'n=%00&t=imp']) {
        expect((await fetch(`${publisher.base}/event?${odd}`)).status).toBeLessThan(500);
      }
      // a HEAD (a link checker, a preview) is answered and counts nothing
      expect((await fetch(imp.href, { method: 'HEAD' })).status).toBe(204);
      expect(await imps(channel)).toBe(before);
      // a valid token with junk notices still counts its impression once
      expect((await call((q) => q.set('n', 'b=https%3A%2F%2Fevil.example%2F&bs=AAAA&code=999'))).status).toBe(204);
      expect(await imps(channel)).toBe(before + 1);
    });

    it('refuses ext.prebid.events and ext.prebid.integration of the wrong type with a 400 naming them', async () => {
      for (const [prebid, field] of [
        [{ events: true }, 'ext.prebid.events'],
        [{ integration: 7 }, 'ext.prebid.integration'],
        [{ returnallbidstatus: 'yes' }, 'ext.prebid.returnallbidstatus'],
      ] as const) {
        const res = await fetch(`${publisher.base}/openrtb2/auction`, {
          method: 'POST',
          body: JSON.stringify(pbjsRequest([bannerImp(ids.display!.uid)], prebid)),
        });
        expect(res.status).toBe(400);
        expect(await res.text()).toContain(field);
      }
    });
  });

  describe('ext.prebid.returnallbidstatus: ext.seatnonbid', () => {
    it("lists each impression of ours without a bid, with Prebid Server's non-bid status", async () => {
      const floored = bannerImp(ids.display!.uid, 'floored', { bidfloor: 50, bidfloorcur: 'USD' });
      const request = pbjsRequest(
        [
          bannerImp(ids.display!.uid, 'filled'),
          bannerImp('no-such-channel', 'unknown'),
          videoImp(ids.display!.uid, 'wrong-format'),
          { ...bannerImp(ids.display!.uid, 'no-demand'), banner: { format: [{ w: 728, h: 90 }] } },
          floored,
        ],
        { returnallbidstatus: true },
      );
      const body = await auction(request);
      expect(body.seatbid[0]!.bid.map((b) => b.impid)).toEqual(['filled']);
      expect(body.ext.seatnonbid).toHaveLength(1);
      const [seat] = body.ext.seatnonbid!;
      expect(seat!.seat).toBe('adplane');
      const byImp = Object.fromEntries(seat!.nonbid.map((n) => [n.impid, n]));
      expect(Object.keys(byImp).sort()).toEqual(['floored', 'no-demand', 'unknown', 'wrong-format']);
      expect(byImp.unknown!.statuscode).toBe(100);
      expect(byImp['wrong-format']!.statuscode).toBe(202);
      expect(byImp['no-demand']!.statuscode).toBe(0);
      // below the floor: 301, with the refused bid as Prebid Server describes it
      expect(byImp.floored).toMatchObject({
        statuscode: 301,
        ext: {
          prebid: {
            bid: {
              price: 3.5,
              w: 300,
              h: 250,
              mtype: 1,
              origbidcpm: 3.5,
              origbidcur: 'USD',
              adomain: ['brand.example.com'],
            },
          },
        },
      });
      // not asked: none
      const quiet = await auction({ ...request, ext: { prebid: { targeting: {} } } });
      expect(quiet.ext.seatnonbid).toBeUndefined();
      // every impression filled: none
      expect(
        (await auction(pbjsRequest([bannerImp(ids.display!.uid)], { returnallbidstatus: true }))).ext.seatnonbid,
      ).toBeUndefined();
      // a currency no rate converts: not decided, 205
      const foreign = await auction(
        pbjsRequest([bannerImp(ids.display!.uid, 'far')], { returnallbidstatus: true }, { cur: ['XTS'] }),
      );
      expect(foreign.ext.seatnonbid).toEqual([{ seat: 'adplane', nonbid: [{ impid: 'far', statuscode: 205 }] }]);
    });
  });

  describe('cookie_sync filterSettings, as Prebid Server reads them', () => {
    const sync = async (body: Obj) => {
      const res = await fetch(`${publisher.base}/cookie_sync`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'text/plain', origin: PAGE },
      });
      return { status: res.status, body: res.status === 200 ? ((await res.json()) as Obj) : await res.text() };
    };

    it('gives no sync to adplane excluded for its only type (image), says why with debug, and ignores the iframe filter', async () => {
      const excluded = { bidders: ['adplane'], filterSettings: { image: { bidders: ['adplane'], filter: 'exclude' } } };
      expect(await sync(excluded)).toEqual({ status: 200, body: { status: 'no_cookie', bidder_status: [] } });
      // iframe allowed: adplane has no iframe sync, so still none
      expect(
        await sync({
          ...excluded,
          debug: true,
          filterSettings: { ...excluded.filterSettings, iframe: { bidders: '*', filter: 'include' } },
        }),
      ).toEqual({
        status: 200,
        body: { status: 'no_cookie', bidder_status: [], debug: [{ bidder: 'adplane', error: 'Type not supported' }] },
      });
      expect(
        await sync({
          ...excluded,
          debug: true,
          filterSettings: { ...excluded.filterSettings, iframe: { bidders: '*', filter: 'exclude' } },
        }),
      ).toMatchObject({
        body: { bidder_status: [], debug: [{ bidder: 'adplane', error: 'Rejected by request filter' }] },
      });
      // an iframe filter alone never stops the pixel; `all` is not read (Prebid.js splits it into iframe and image)
      const pixel = await sync({
        bidders: ['adplane'],
        filterSettings: { iframe: { bidders: '*', filter: 'exclude' } },
      });
      expect(pixel.body).toMatchObject({
        bidder_status: [{ bidder: 'adplane', no_cookie: true, usersync: { type: 'redirect', supportCORS: false } }],
      });
      expect(
        (await sync({ bidders: ['adplane'], filterSettings: { all: { bidders: '*', filter: 'exclude' } } })).body,
      ).toMatchObject({ bidder_status: [{ bidder: 'adplane' }] });
    });

    it('refuses a malformed filter with a 400 naming it', async () => {
      expect(await sync({ filterSettings: { image: { bidders: '*' } } })).toEqual({
        status: 400,
        body: "Invalid request: filterSettings image.filter must be 'include' or 'exclude'\n",
      });
      expect(await sync({ filterSettings: { iframe: { bidders: 'adplane', filter: 'include' } } })).toEqual({
        status: 400,
        body: "Invalid request: filterSettings iframe.bidders must be '*' or an array of bidder codes\n",
      });
    });
  });
});
