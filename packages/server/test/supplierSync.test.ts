import { domainToASCII } from 'node:url';
import { type BidRequest, type BidResponse, type VastVersion } from '@adplane/shared';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * User matching with a supplier (DSP mode), through the real app: the supplier's user-sync URL is
 * checked on save; `GET /rtb/sync/<uid>` gives the browser adplane's id and sends it on to the
 * supplier with the id and the privacy signals in the URL's macros, or answers a plain pixel where no
 * id may be used; and the id the supplier then sends back as `user.buyeruid` is one viewer to a
 * frequency cap from any address.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const SYNC_URL =
  'https://sync.tidewater.test/match?dsp=adplane&uid=${UID}&gdpr=${GDPR}&consent={GDPR_CONSENT}&ccpa=[US_PRIVACY]&gpp_sid=$GPP_SID';
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** The `uids` cookie a response sets, as a Cookie header ('' without one). */
function uidsCookie(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? '');
  const m = /(?:^|\n)(uids=[^;]+)/.exec(header);
  return m ? m[1]! : '';
}
const idIn = (cookie: string): string =>
  (
    JSON.parse(Buffer.from(cookie.slice('uids='.length), 'base64url').toString('utf8')) as {
      tempUIDs: { adplane: { uid: string } };
    }
  ).tempUIDs.adplane.uid;

forEachStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  const suppliers: Record<string, { id: number; uid: string }> = {};

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
    suppliers.matched = await createAs(app, cookie, 'sups', {
      name: 'Tidewater SSP',
      formats: ['video', 'display'],
      userSyncUrl: SYNC_URL,
    });
    suppliers.plain = await createAs(app, cookie, 'sups', { name: 'No sync SSP', formats: ['display'] });
    suppliers.paused = await createAs(app, cookie, 'sups', {
      name: 'Paused SSP',
      status: 0,
      formats: ['display'],
      userSyncUrl: 'https://paused.test/s?u=${UID}',
    });
    await app.edge.snapshots.rebuild();
  });
  afterAll(async () => {
    await app.close();
  });

  const sync = (uid: string, query = '', headers: Record<string, string> = {}) =>
    edgeRequest(app, { method: 'GET', url: `/rtb/sync/${uid}${query}`, headers });

  describe('the user-sync URL of a supplier', () => {
    it('is refused on save without the id macro or as something other than an http(s) URL, naming the field', async () => {
      for (const [userSyncUrl, reason] of [
        ['https://sync.example.test/match?dsp=adplane', 'must carry the id macro'],
        ['javascript:alert(1)//${UID}', 'must be an http(s) URL'],
        ['https://exa mple.test/${UID}', 'must be an http(s) URL'],
        [`https://sync.example.test/${'a'.repeat(2048)}?u=\${UID}`, 'must be at most 2048 characters'],
      ]) {
        const res = await as(app, cookie, {
          method: 'POST',
          url: '/api/demand/sups',
          payload: { name: `Bad sync ${reason}`, formats: ['display'], userSyncUrl },
        });
        expect(res.statusCode, userSyncUrl).toBe(400);
        expect(res.body).toContain('userSyncUrl');
        expect(res.body).toContain(reason);
      }
      const list = await as(app, cookie, { method: 'GET', url: '/api/demand/sups?search=Bad%20sync' });
      expect(list.statusCode).toBe(200);
      expect((list.json() as { items: unknown[] }).items).toHaveLength(0);
    });

    it('is kept as written, and empty when not given', async () => {
      const read = async (id: number) =>
        (await as(app, cookie, { method: 'GET', url: `/api/demand/sups/${id}` })).json() as { userSyncUrl: string };
      expect((await read(suppliers.matched!.id)).userSyncUrl).toBe(SYNC_URL);
      expect((await read(suppliers.plain!.id)).userSyncUrl).toBe('');
    });
  });

  describe('GET /rtb/sync/<supplier uid>', () => {
    it("gives a new browser adplane's id and sends it to the supplier with the privacy signals filled in", async () => {
      const res = await sync(suppliers.matched!.uid, '?gdpr=0&gdpr_consent=&us_privacy=1YNN&gpp_sid=7,8');
      expect(res.statusCode).toBe(302);
      expect(res.headers['cache-control']).toBe('no-store');
      const set = String(res.headers['set-cookie']);
      expect(set).toContain('; SameSite=None; Secure');
      const id = idIn(uidsCookie(res.headers['set-cookie']));
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(res.headers.location).toBe(
        `https://sync.tidewater.test/match?dsp=adplane&uid=${id}&gdpr=0&consent=&ccpa=1YNN&gpp_sid=7%2C8`,
      );
    });

    it('sends the browser to a URL a Location header can hold when the supplier wrote it in other scripts', async () => {
      const unicode = await createAs(app, cookie, 'sups', {
        name: 'Unicode SSP',
        formats: ['display'],
        userSyncUrl: 'https://sÿnc.exämple.test/mätch?u=${UID}&n=ü',
      });
      await app.edge.snapshots.rebuild();
      const res = await sync(unicode.uid);
      expect(res.statusCode).toBe(302);
      const id = idIn(uidsCookie(res.headers['set-cookie']));
      expect(res.headers.location).toBe(`https://${domainToASCII('sÿnc.exämple.test')}/m%C3%A4tch?u=${id}&n=%C3%BC`);
      expect(res.headers.location).toMatch(/^[\x21-\x7e]+$/);
    });

    it('keeps the id a browser already has, from this supplier or any other sync', async () => {
      const first = await sync(suppliers.matched!.uid);
      const browser = uidsCookie(first.headers['set-cookie']);
      const again = await sync(suppliers.matched!.uid, '', { cookie: browser });
      expect(again.statusCode).toBe(302);
      expect(idIn(uidsCookie(again.headers['set-cookie']))).toBe(idIn(browser));
      // the id of Prebid Server's user sync is the same id
      const stored = await edgeRequest(app, { method: 'GET', url: '/setuid?bidder=adplane&uid=from-prebid&f=i' });
      const fromPrebid = await sync(suppliers.matched!.uid, '', { cookie: uidsCookie(stored.headers['set-cookie']) });
      expect(fromPrebid.headers.location).toContain('&uid=from-prebid&');
    });

    it('answers a plain pixel, with no id and nowhere to go, where no id may be used or there is nothing to sync', async () => {
      const optedOut = `uids=${Buffer.from(JSON.stringify({ tempUIDs: {}, optout: true })).toString('base64url')}`;
      for (const [uid, query, headers] of [
        [suppliers.matched!.uid, '?gdpr=1&gdpr_consent=CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA', {}],
        [suppliers.matched!.uid, '?gpp=DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA&gpp_sid=2', {}],
        [suppliers.matched!.uid, '?us_privacy=1YYN', {}],
        [suppliers.matched!.uid, '', { cookie: optedOut }],
        [suppliers.plain!.uid, '', {}],
        [suppliers.paused!.uid, '', {}],
      ] as const) {
        const res = await sync(uid, query, headers);
        expect(res.statusCode, `${uid}${query}`).toBe(200);
        expect(res.headers['content-type']).toBe('image/gif');
        expect(res.rawPayload.equals(GIF)).toBe(true);
        expect(res.headers['set-cookie']).toBeUndefined();
        expect(res.headers.location).toBeUndefined();
      }
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      for (const result of ['gdpr', 'us_privacy', 'optout', 'no_url', 'paused'])
        expect(metrics).toMatch(new RegExp(`adplane_supplier_syncs_total\\{result="${result}"\\} [1-9]`));
    });

    it('answers 400 to a gdpr that is not 0 or 1, and 404 to a uid that is no supplier', async () => {
      const bad = await sync(suppliers.matched!.uid, '?gdpr=yes');
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('gdpr');
      expect((await sync('no-such-supplier')).statusCode).toBe(404);
    });
  });

  describe('the sync pixel on the ads we win', () => {
    const UA =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
    beforeAll(async () => {
      const creative = await createAs(app, cookie, 'creatives', {
        name: 'Sync spot',
        format: 'video',
        videoSource: 'media',
        approval: 'approved',
        clickUrl: 'https://brand.test/spot',
        adomain: ['brand.test'],
        duration: 15,
        mediaFiles: [
          {
            url: 'https://cdn.brand.test/sync-spot.mp4',
            mime: 'video/mp4',
            duration: 15,
            width: 640,
            height: 360,
            bitrate: 800,
          },
        ],
      });
      const banner = await createAs(app, cookie, 'creatives', {
        name: 'Sync banner',
        format: 'display',
        displayType: 'image',
        imageUrl: 'https://cdn.brand.test/sync.png',
        width: 320,
        height: 50,
        clickUrl: 'https://brand.test/',
        adomain: ['brand.test'],
        approval: 'approved',
      });
      await createAs(app, cookie, 'campaigns', {
        name: 'Sync campaign',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 30_000_000,
        channelScope: 'all',
        pacing: 'asap',
        creativeIds: [creative.id, banner.id],
      });
      await app.edge.snapshots.rebuild();
    });
    /** Our bid's adm for one impression on `supplier`'s request. */
    const adm = async (supplier: string, imp: object, extra: Partial<BidRequest> = {}): Promise<string> => {
      const request = {
        id: `sync-${Math.random()}`,
        imp: [{ id: '1', ...imp }],
        site: { domain: 'news.example.com', page: 'https://news.example.com/a' },
        device: { ip: '8.8.8.9', ua: UA },
        ...extra,
      };
      const res = await edgeRequest(app, {
        method: 'POST',
        url: `/rtb/bid/${supplier}`,
        payload: request,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as BidResponse).seatbid![0]!.bid[0]!.adm!;
    };
    const video = { video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3, 5, 6, 7, 8], maxduration: 30 } };
    const banner = { banner: { w: 320, h: 50 } };

    it('adds it to a VAST ad won on a request without our id, as one more valid <Impression> with the privacy signals', async () => {
      const xml = await adm(suppliers.matched!.uid, video, { regs: { gdpr: 0, us_privacy: '1YNN' } });
      expect(xml).toContain(
        `<Impression><![CDATA[${app.edge.deps!.origin}/rtb/sync/${suppliers.matched!.uid}?gdpr=0&us_privacy=1YNN]]></Impression>`,
      );
      expect(schemaErrors(/<VAST version="([\d.]+)"/.exec(xml)![1]! as VastVersion, xml)).toBe('');
    });

    it('adds it to a banner as one more pixel', async () => {
      const html = await adm(suppliers.matched!.uid, banner);
      expect(html).toContain(
        `<img src="${app.edge.deps!.origin}/rtb/sync/${suppliers.matched!.uid}" width="1" height="1"`,
      );
    });

    it('adds it once per response, however many ads it holds', async () => {
      const request = {
        id: 'two-imps',
        imp: [
          { id: '1', ...banner },
          { id: '2', ...banner },
        ],
        site: { domain: 'news.example.com', page: 'https://news.example.com/a' },
        device: { ip: '8.8.8.9', ua: UA },
      };
      const res = await edgeRequest(app, {
        method: 'POST',
        url: `/rtb/bid/${suppliers.matched!.uid}`,
        payload: request,
        headers: { 'content-type': 'application/json' },
      });
      const bids = (res.json() as BidResponse).seatbid!.flatMap((seat) => seat.bid);
      expect(bids).toHaveLength(2);
      expect(bids.filter((b) => b.adm!.includes('/rtb/sync/'))).toHaveLength(1);
    });

    it('leaves it out when the request carries our id, where no id may be used, in an app, and for a supplier without a sync URL', async () => {
      for (const [supplier, extra] of [
        [
          suppliers.matched!.uid,
          {
            site: undefined,
            app: {
              bundle: 'com.example.news',
              storeurl: 'https://play.google.com/store/apps/details?id=com.example.news',
            },
          },
        ],
        [suppliers.matched!.uid, { regs: { coppa: 1 } }],
        [suppliers.matched!.uid, { user: { buyeruid: 'known-browser' } }],
        [suppliers.matched!.uid, { user: { ext: { prebid: { buyeruids: { adplane: 'known-browser' } } } } }],
        [
          suppliers.matched!.uid,
          { regs: { gdpr: 1 }, user: { consent: 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA' } },
        ],
        [suppliers.matched!.uid, { regs: { us_privacy: '1YYN' } }],
        [suppliers.plain!.uid, {}],
      ] as const) {
        const markup = await adm(supplier, banner, extra as Partial<BidRequest>);
        expect(markup, JSON.stringify(extra)).toContain('/ev?e=impression');
        expect(markup, JSON.stringify(extra)).not.toContain('/rtb/sync/');
      }
    });
  });

  it('counts the id the supplier sends back as user.buyeruid as one viewer to a frequency cap, from any address', async () => {
    const creative = await createAs(app, cookie, 'creatives', {
      name: 'Matched banner',
      format: 'display',
      displayType: 'image',
      imageUrl: 'https://cdn.brand.test/matched.png',
      width: 300,
      height: 250,
      clickUrl: 'https://brand.test/',
      adomain: ['brand.test'],
      approval: 'approved',
    });
    await createAs(app, cookie, 'campaigns', {
      name: 'Once per matched browser',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 40_000_000,
      channelScope: 'all',
      pacing: 'asap',
      frequencyCap: { count: 1, periodHours: 24 },
      creativeIds: [creative.id],
    });
    await app.edge.snapshots.rebuild();
    const id = idIn(uidsCookie((await sync(suppliers.matched!.uid)).headers['set-cookie']));

    /** The creative our bid carries for a request from `ip` with `buyeruid` (0 for no bid), its impression fired. */
    const won = async (ip: string, buyeruid: string): Promise<number> => {
      const request: BidRequest = {
        id: `matched-${ip}`,
        imp: [{ id: '1', banner: { w: 300, h: 250 } }],
        site: { domain: 'news.example.com', page: 'https://news.example.com/a' },
        device: {
          ip,
          ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
        },
        user: { buyeruid },
      };
      const res = await edgeRequest(app, {
        method: 'POST',
        url: `/rtb/bid/${suppliers.matched!.uid}`,
        payload: request,
        headers: { 'content-type': 'application/json' },
      });
      if (res.statusCode === 204) return 0;
      expect(res.statusCode, res.body).toBe(200);
      const bid = (res.json() as BidResponse).seatbid![0]!.bid[0]!;
      const impression = /https?:\/\/[^"'\s]*\/ev\?e=impression&amp;t=[^"'\s]+/
        .exec(bid.adm!)![0]
        .replaceAll('&amp;', '&');
      expect(
        (await edgeRequest(app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) })).statusCode,
      ).toBe(200);
      return Number(bid.crid);
    };
    expect(await won('8.8.8.1', id)).toBe(creative.id);
    // the same browser through the supplier from another address: capped
    expect(await won('8.8.8.2', id)).not.toBe(creative.id);
    // another browser still gets it
    expect(await won('8.8.8.3', 'another-browser')).toBe(creative.id);
  });
});
