import { describe, expect, it } from 'vitest';
import { type VastVersion } from '../src/edge/vast/vastVersion.js';
import { onSqliteStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';
import { clientAds, schemaErrors } from './vastSchema.js';

/**
 * Prebid Server's events for video bids (docs/prebid.md, "Events"), through the real app over real
 * HTTP: with `ext.prebid.events`, a video bid gets no `ext.prebid.events` (Prebid Server writes them
 * for banners only) but its VAST gets Prebid Server's impression event (`/event?t=imp&...&f=b`) as one
 * more <Impression> after the first, as Prebid Server's modifyBidVAST writes it; in every VAST
 * version the document still validates against its XSD and parses in @dailymotion/vast-client; the
 * cached VAST carries it too; and the impression is counted (and programmatic demand billed) once,
 * whichever of our own tracker and the event the player fires first.
 */
const PAGE = 'https://news.example.com';
const VERSIONS: VastVersion[] = ['2.0', '3.0', '4.0', '4.1', '4.2'];
type Obj = Record<string, unknown>;

interface VideoBid {
  id: string;
  impid: string;
  adm?: string;
  ext: {
    prebid: { bidid: string; type: string; events?: unknown; cache?: { vastXml?: { url: string; cacheId: string } } };
  };
}
interface Answer {
  seatbid?: { seat: string; bid: VideoBid[] }[];
}

function pbjsRequest(imps: Obj[], prebid: Obj = {}): Obj {
  return {
    id: 'auction-video-ev',
    imp: imps,
    site: { page: `${PAGE}/story`, domain: 'news.example.com', publisher: { id: 'acct-1' } },
    device: {
      ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
      ip: '8.8.8.8',
    },
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

/** The impression URLs of a VAST document, in order (CDATA as our writer writes them). */
const impressionsOf = (xml: string): string[] =>
  [...xml.matchAll(/<Impression[^>]*><!\[CDATA\[([^\]]*)\]\]><\/Impression>/g)].map((m) => m[1]!);

onSqliteStore((t) => {
  const publisher = publisherTenant(
    t,
    async (publisher) => {
      await publisher.videoSpot('video', {
        name: 'Video events spot',
        width: 640,
        height: 360,
        bitrate: 800,
        advertiser: 'brand.example.com',
        mediaUrl: 'https://cdn.example.com/spot.mp4',
      });
      await publisher.campaign('campaign', { name: 'Video events', bid: 10, creatives: ['video'] });
      for (const version of VERSIONS)
        await publisher.prebidChannel(`v${version}`, `Video events ${version}`, {
          format: 'video',
          vastVersion: version,
        });
      await publisher.prebidChannel('counted', 'Video events counted', { format: 'video', vastVersion: '4.2' });
      // programmatic demand that outbids the campaigns: its billing notice rides in our impression URL and the event's
      await publisher.rtbTag('rtb', 'Video events RTB', 'name=vev&price=80');
      await publisher.prebidChannel('programmatic', 'Video events RTB channel', {
        format: 'video',
        vastVersion: '3.0',
        demand: ['rtb'],
      });
    },
    { programmatic: {} },
  );
  const { ids } = publisher;

  /** A URL the edge wrote (its public host) as this test server answers it. */
  const local = (url: string) => url.replace(t.settings.publicHost, publisher.base);
  const auction = async (body: Obj): Promise<VideoBid[]> => {
    const res = await fetch(`${publisher.base}/openrtb2/auction`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as Answer).seatbid?.flatMap((s) => s.bid) ?? [];
  };
  const imps = (channel: number) => publisher.countedImpressions(`channel_id = ${channel}`);

  describe('ext.prebid.events on a video bid', () => {
    it("writes Prebid Server's imp event into the VAST after our impression, valid in every version and read by a VAST client; no ext.prebid.events", async () => {
      const bids = await auction(
        pbjsRequest(
          VERSIONS.map((v) => videoImp(ids[`v${v}`]!.uid, `video-${v}`)),
          { events: {}, integration: 'pbjs' },
        ),
      );
      expect(bids).toHaveLength(VERSIONS.length);
      for (const version of VERSIONS) {
        const bid = bids.find((b) => b.impid === `video-${version}`)!;
        expect(bid.ext.prebid.type).toBe('video');
        expect(bid.ext.prebid.events, version).toBeUndefined();
        const xml = bid.adm!;
        expect(schemaErrors(version, xml), `${version}: ${xml}`).toBe('');
        const urls = impressionsOf(xml);
        // ours first (/ev), then Prebid Server's event right after it
        expect(urls[0], version).toContain('/ev?e=impression');
        const event = urls[1]!;
        expect(event, version).toMatch(
          /\/event\?t=imp&b=[0-9a-f-]{36}&a=acct-1&bidder=adplane&f=b&int=pbjs&ts=1760000000000&tk=/,
        );
        expect(new URL(event).origin).toBe(new URL(t.settings.publicHost).origin);
        expect(new URL(event).searchParams.get('b')).toBe(bid.ext.prebid.bidid);
        expect(urls.filter((u) => u.includes('/event?'))).toHaveLength(1);
        // the token the event carries is the one our own tracker carries
        expect(new URL(event).searchParams.get('tk')).toBe(new URL(urls[0]!).searchParams.get('t'));
        // a VAST client reads both impressions
        const { ads } = clientAds(xml);
        expect(ads, version).toHaveLength(1);
        const read = (ads[0]!.impressionURLTemplates as { url: string }[]).map((i) => i.url);
        expect(read, version).toEqual(expect.arrayContaining([urls[0], event]));
      }
      // without ext.prebid.events the VAST is ours alone
      const [plain] = await auction(pbjsRequest([videoImp(ids['v4.2']!.uid, 'plain')]));
      expect(plain!.adm).not.toContain('/event?');
      expect(impressionsOf(plain!.adm!)).toHaveLength(1);
    });

    it('caches the VAST with the event in it (what Prebid.js plays from the cache URL)', async () => {
      const [bid] = await auction(
        pbjsRequest([videoImp(ids['v4.1']!.uid, 'cached')], {
          events: {},
          cache: { vastxml: { returnCreative: false } },
        }),
      );
      expect(bid!.adm).toBeUndefined();
      const cached = await fetch(local(bid!.ext.prebid.cache!.vastXml!.url));
      expect(cached.status).toBe(200);
      const xml = await cached.text();
      expect(schemaErrors('4.1', xml)).toBe('');
      const event = impressionsOf(xml).find((u) => u.includes('/event?'))!;
      expect(new URL(event).searchParams.get('b')).toBe(bid!.ext.prebid.bidid);
      expect(new URL(event).searchParams.get('f')).toBe('b');
    });

    it('counts the impression once whether the player fires the event or our tracker first', async () => {
      const channel = ids.counted!.id;
      const before = await imps(channel);
      const request = () => auction(pbjsRequest([videoImp(ids.counted!.uid, 'counted')], { events: {} }));
      // the event first (Prebid Server's f=b: 204), then our tracker: one impression
      const [first] = await request();
      const [ours, event] = impressionsOf(first!.adm!);
      const fired = await fetch(local(event!));
      expect(fired.status).toBe(204);
      expect(await imps(channel)).toBe(before + 1);
      expect((await fetch(local(ours!))).status).toBe(200);
      expect(await imps(channel)).toBe(before + 1);
      // our tracker first, then the event: still one more
      const [second] = await request();
      const [ours2, event2] = impressionsOf(second!.adm!);
      expect((await fetch(local(ours2!))).status).toBe(200);
      expect((await fetch(local(event2!))).status).toBe(204);
      expect(await imps(channel)).toBe(before + 2);
    });

    it('bills programmatic demand once, on the first of the event and our tracker, and fires its deferred win notice once', async () => {
      const [bid] = await auction(pbjsRequest([videoImp(ids.programmatic!.uid, 'rtb')], { events: {} }));
      const xml = bid!.adm!;
      expect(schemaErrors('3.0', xml)).toBe('');
      expect(xml).toContain(`${publisher.bidders.url}/notice/adm-imp?name=vev`);
      const urls = impressionsOf(xml);
      const ours = urls.find((u) => u.includes('/ev?e=impression'))!;
      const event = urls.find((u) => u.includes('/event?'))!;
      // the billing notice rides in both (signed): the event carries it as `n`
      expect(new URL(event).searchParams.get('n')).toContain('b=');
      expect(publisher.bidders.notices.filter((n) => n.pathname === '/notice/bill')).toHaveLength(0);
      expect((await fetch(local(event))).status).toBe(204);
      expect((await fetch(local(ours))).status).toBe(200);
      expect((await fetch(local(event))).status).toBe(204);
      const bills = await publisher.bidders.waitForNotices('/notice/bill', 1);
      expect(bills[0]!.searchParams.get('price')).toBe('80');
      await new Promise((r) => setTimeout(r, 150));
      expect(
        publisher.bidders.notices.filter((n) => n.pathname === '/notice/bill' && n.searchParams.get('name') === 'vev'),
      ).toHaveLength(1);
      expect(
        publisher.bidders.notices.filter((n) => n.pathname === '/notice/win' && n.searchParams.get('name') === 'vev'),
      ).toHaveLength(1);
    });
  });
});
