import { describe, expect, it } from 'vitest';
import { type VastVersion } from '../src/edge/vast/vastVersion.js';
import { onSqliteStore } from './helpers.js';
import { prebidPublisher } from './tenantFixture.js';
import { clientAds, schemaErrors } from './vastSchema.js';

/**
 * Prebid Server's POST /vtrack (docs/prebid.md, "Storing VAST with the impression event"), through the
 * real app over real HTTP, as Prebid.js's videoCache posts it with `cache: { url: '<pbs>/vtrack?a=…',
 * vasttrack: true }`: our own video bid's VAST (from a real /openrtb2/auction answer) is stored with
 * Prebid Server's impression event carrying its token, served at GET /cache?uuid=, still valid for its
 * VAST version's XSD and read by @dailymotion/vast-client; the impression counts once across /event
 * and /ev; another bidder's VAST is stored as posted; bad input is a 400 naming the field.
 */
const PAGE = 'https://news.example.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
type Obj = Record<string, unknown>;

interface VideoBid {
  impid: string;
  adm?: string;
  ext: { prebid: { bidid: string; type: string } };
}

const FOREIGN = `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="other"><InLine><AdSystem>other</AdSystem><AdTitle>Other</AdTitle><Impression><![CDATA[https://other.example.com/imp?x=1]]></Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://cdn.other.example.com/a.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;

function pbjsRequest(imps: Obj[], prebid: Obj = {}): Obj {
  return {
    id: 'auction-vtrack',
    imp: imps,
    site: { page: `${PAGE}/story`, domain: 'news.example.com', publisher: { id: 'acct-1' } },
    device: { ua: UA, ip: '8.8.8.8' },
    tmax: 1000,
    ext: {
      prebid: {
        auctiontimestamp: 1_760_000_000_000,
        targeting: { includewinners: true, includebidderkeys: false },
        ...prebid,
      },
    },
  };
}
const videoImp = (channel: string, id: string): Obj => ({
  id,
  video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6, 7, 8], w: 640, h: 360, plcmt: 1 },
  secure: 1,
  ext: { prebid: { bidder: { adplane: { channel } } } },
});

/** A put as Prebid.js's videoCache writes it with vasttrack (its bid request id as bidid). */
const put = (value: unknown, extra: Obj = {}): Obj => ({
  type: 'xml',
  value,
  ttlseconds: 315,
  bidder: 'adplane',
  bidid: 'req-1',
  aid: 'auction-1',
  timestamp: 1_760_000_000_000,
  ...extra,
});

/** The impression URLs of a VAST document, in order (CDATA). */
const impressionsOf = (xml: string): string[] =>
  [...xml.matchAll(/<Impression[^>]*><!\[CDATA\[([^\]]*)\]\]><\/Impression>/g)].map((m) => m[1]!);

onSqliteStore((t) => {
  const publisher = prebidPublisher(
    t,
    {
      label: 'Vtrack',
      imageUrl: 'https://cdn.example.com/v300x250.png',
      mediaUrl: 'https://cdn.example.com/vtrack.mp4',
    },
    async (publisher) => {
      await publisher.prebidChannel('v2', 'Vtrack 2.0', { format: 'video', vastVersion: '2.0' });
      await publisher.prebidChannel('v3', 'Vtrack 3.0', { format: 'video', vastVersion: '3.0' });
      await publisher.prebidChannel('counted', 'Vtrack counted', { format: 'video', vastVersion: '4.1' });
    },
  );
  const { ids } = publisher;

  const local = (url: string) => url.replace(t.settings.publicHost, publisher.base);
  const auction = async (body: Obj): Promise<VideoBid[]> => {
    const res = await fetch(`${publisher.base}/openrtb2/auction`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { seatbid?: { bid: VideoBid[] }[] }).seatbid?.flatMap((s) => s.bid) ?? [];
  };
  const vtrack = (body: unknown, query = '?a=acct-1&int=pbjs', raw = false) =>
    fetch(`${publisher.base}/vtrack${query}`, {
      method: 'POST',
      body: raw ? (body as string) : JSON.stringify(body),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
  const cached = async (uuid: string): Promise<string> => {
    const res = await fetch(`${publisher.base}/cache?uuid=${uuid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/xml');
    return res.text();
  };
  const uuidsOf = async (res: Response): Promise<string[]> => {
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { responses: { uuid: string }[] };
    return body.responses.map((r) => r.uuid);
  };
  const imps = (channel: number) => publisher.countedImpressions(`channel_id = ${channel}`);

  describe('POST /vtrack', () => {
    it("stores our video bid's VAST with Prebid Server's impression event (its token), another bidder's as posted", async () => {
      const channels: [VastVersion, string][] = [
        ['2.0', ids.v2!.uid],
        ['3.0', ids.v3!.uid],
        ['4.2', ids.instream!.uid],
      ];
      const bids = await auction(pbjsRequest(channels.map(([v, uid]) => videoImp(uid, `video-${v}`))));
      expect(bids).toHaveLength(channels.length);
      for (const [version] of channels) {
        const ours = bids.find((b) => b.impid === `video-${version}`)!.adm!;
        expect(ours).not.toContain('/event?');
        const res = await vtrack({
          puts: [put(ours, { bidid: `req-${version}` }), put(FOREIGN, { bidder: 'otherbidder', bidid: 'req-x' })],
        });
        expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
        expect(res.headers.get('access-control-allow-credentials')).toBe('true');
        const [uuid, foreignUuid] = await uuidsOf(res);
        expect(uuid).not.toBe(foreignUuid);
        const xml = await cached(uuid!);
        expect(schemaErrors(version, xml), `${version}: ${xml}`).toBe('');
        const urls = impressionsOf(xml);
        expect(urls[0], version).toContain('/ev?e=impression');
        const event = urls[1]!;
        expect(event, version).toMatch(
          new RegExp(
            `/event\\?t=imp&b=req-${version.replace('.', '\\.')}&a=acct-1&bidder=adplane&f=b&int=pbjs&ts=1760000000000&tk=`,
          ),
        );
        expect(new URL(event).origin).toBe(new URL(t.settings.publicHost).origin);
        // the token is our own tracker's: /event counts it with the pixel, once
        expect(new URL(event).searchParams.get('tk')).toBe(new URL(urls[0]!).searchParams.get('t'));
        expect(urls.filter((u) => u.includes('/event?'))).toHaveLength(1);
        // nothing else changed: the posted VAST with one more <Impression>
        expect(xml.replace(/<Impression><!\[CDATA\[[^\]]*\/event\?[^\]]*\]\]><\/Impression>/, '')).toBe(ours);
        const { ads } = clientAds(xml);
        expect(ads, version).toHaveLength(1);
        expect((ads[0]!.impressionURLTemplates as { url: string }[]).map((i) => i.url)).toEqual(
          expect.arrayContaining([urls[0], event]),
        );
        // another bidder's VAST: stored as posted
        expect(await cached(foreignUuid!)).toBe(FOREIGN);
      }
    });

    it('counts the impression once, whether the player fires the stored event or our tracker first', async () => {
      const channel = ids.counted!.id;
      const before = await imps(channel);
      for (const eventFirst of [true, false]) {
        const [bid] = await auction(pbjsRequest([videoImp(ids.counted!.uid, 'counted')]));
        const [uuid] = await uuidsOf(await vtrack({ puts: [put(bid!.adm, { bidid: bid!.ext.prebid.bidid })] }));
        const xml = await cached(uuid!);
        expect(schemaErrors('4.1', xml)).toBe('');
        const [ours, event] = impressionsOf(xml);
        const fire = async (url: string, status: number) => expect((await fetch(local(url))).status).toBe(status);
        if (eventFirst) {
          // the stored event alone counts the impression (its token is the bid's)
          await fire(event!, 204);
          expect(await imps(channel)).toBe(before + 1);
          await fire(ours!, 200);
        } else {
          await fire(ours!, 200);
          await fire(event!, 204);
        }
        await fire(event!, 204);
      }
      expect(await imps(channel)).toBe(before + 2);
    });

    it('adds no second event to a VAST that has one (an auction with ext.prebid.events), none for a forged token', async () => {
      const [bid] = await auction(pbjsRequest([videoImp(ids.instream!.uid, 'with-events')], { events: {} }));
      expect(impressionsOf(bid!.adm!).filter((u) => u.includes('/event?'))).toHaveLength(1);
      const forged = FOREIGN.replace(
        'https://other.example.com/imp?x=1',
        `${t.settings.publicHost}/ev?e=impression&t=forged.token`,
      );
      const [a, b] = await uuidsOf(await vtrack({ puts: [put(bid!.adm), put(forged)] }));
      expect(await cached(a!)).toBe(bid!.adm);
      expect(await cached(b!)).toBe(forged);
    });

    it('finds our impression as a player reads the VAST: the event goes in our ad, past a commented-out <Impression> and another ad', async () => {
      const [bid] = await auction(pbjsRequest([videoImp(ids.instream!.uid, 'read-as-xml')]));
      const ours = bid!.adm!;
      const adAt = ours.indexOf('<Ad');
      const ahead = `<!-- was: <Impression>https://old.example.com/imp</Impression> -->${FOREIGN.slice(FOREIGN.indexOf('<Ad'), FOREIGN.indexOf('</VAST>'))}`;
      const posted = ours.slice(0, adAt) + ahead + ours.slice(adAt);
      const [uuid] = await uuidsOf(await vtrack({ puts: [put(posted)] }));
      const xml = await cached(uuid!);
      const event = /<Impression><!\[CDATA\[([^\]]*\/event\?[^\]]*)\]\]><\/Impression>/.exec(xml)!;
      expect(event, xml).not.toBeNull();
      // the posted VAST byte for byte but for the event, right after our ad's first <Impression>
      expect(xml.slice(0, event.index) + xml.slice(event.index + event[0].length)).toBe(posted);
      const oursFirst = posted.indexOf('</Impression>', adAt + ahead.length) + '</Impression>'.length;
      expect(event.index).toBe(oursFirst);
      const { ads } = clientAds(xml);
      const urlsOf = (ad: Record<string, unknown>) =>
        (ad.impressionURLTemplates as { url: string }[]).map((i) => i.url);
      expect(ads).toHaveLength(2);
      expect(urlsOf(ads[0]!)).toEqual(['https://other.example.com/imp?x=1']);
      expect(urlsOf(ads[1]!)).toContain(event[1]);
    });

    it('answers no uuids for no puts, as Prebid Server', async () => {
      expect(await uuidsOf(await vtrack({ puts: [] }))).toEqual([]);
    });

    it('refuses what Prebid Server refuses, with a 400 naming the field', async () => {
      // the account first, before the body is read: Prebid Server's 400 (not /event's 401)
      for (const query of ['', '?a=', '?int=pbjs']) {
        const res = await vtrack({ puts: [put(FOREIGN)] }, query);
        expect(res.status).toBe(400);
        expect(await res.text()).toContain("Account 'a' is required query parameter and can't be empty");
        expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
      }
      const badInt = await vtrack({ puts: [put(FOREIGN)] }, '?a=acct-1&int=no%20spaces');
      expect(badInt.status).toBe(400);
      expect(await badInt.text()).toContain('Invalid integration type');
      const cases: [unknown, string, boolean?][] = [
        ['', 'request body is empty', true],
        ['{"puts": [', 'not valid JSON', true],
        [[], 'the body must be a JSON object'],
        [{ puts: {} }, 'puts must be an array'],
        [{ puts: [put(FOREIGN), put(FOREIGN, { bidid: '' })] }, "puts[1].bidid: 'bidid' is required field"],
        [{ puts: [put(FOREIGN, { bidder: undefined })] }, "puts[0].bidder: 'bidder' is required field"],
        [{ puts: [put(FOREIGN, { type: 'json' })] }, 'puts[0].type: vtrack only accepts type xml'],
        [{ puts: [put('<html></html>')] }, 'puts[0].value: vtrack content must be VAST'],
        [{ puts: [put({ vast: FOREIGN })] }, 'puts[0].value: vtrack content must be VAST'],
        [{ puts: [put(FOREIGN, { ttlseconds: -1 })] }, 'puts[0].ttlseconds'],
        [{ puts: [put(FOREIGN, { timestamp: 'soon' })] }, 'puts[0].timestamp'],
        [{ puts: [put(`<VAST>${'x'.repeat(101 * 1024)}</VAST>`)] }, 'puts[0].value is larger than 100 KB'],
        [{ puts: Array.from({ length: 11 }, () => put(FOREIGN)) }, 'at most 10'],
      ];
      for (const [body, message, raw] of cases) {
        const res = await vtrack(body, '?a=acct-1', raw);
        const text = await res.text();
        expect(res.status, message).toBe(400);
        expect(text, message).toContain('Invalid request: ');
        expect(text, message).toContain(message);
        expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
      }
    });

    it('serves a stored VAST at the video URL Prebid.js makes of the cache URL (`/vtrack?a=<account>?uuid=<id>`), as GET /cache', async () => {
      const [uuid] = await uuidsOf(await vtrack({ puts: [put(FOREIGN, { bidder: 'otherbidder', bidid: 'req-url' })] }));
      // videoCache.js getCacheUrl: `${cache.url}?uuid=${id}`, with cache.url already carrying ?a=
      for (const url of [`${publisher.base}/vtrack?a=acct-1?uuid=${uuid}`, `${publisher.base}/vtrack?uuid=${uuid}`]) {
        const res = await fetch(url, { headers: { origin: PAGE } });
        expect(res.status, url).toBe(200);
        expect(res.headers.get('content-type')).toContain('application/xml');
        expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
        expect(await res.text()).toBe(FOREIGN);
      }
      expect((await fetch(`${publisher.base}/vtrack?a=acct-1`)).status).toBe(400);
      expect((await fetch(`${publisher.base}/vtrack?a=acct-1?uuid=not-stored`)).status).toBe(404);
    });

    it('answers the CORS preflight as the other Prebid endpoints', async () => {
      const res = await fetch(`${publisher.base}/vtrack?a=acct-1`, {
        method: 'OPTIONS',
        headers: {
          origin: PAGE,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    });
  });
});
