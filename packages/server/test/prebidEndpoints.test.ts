import { describe, expect, it } from 'vitest';
import { prebidPublisher } from './tenantFixture.js';
import { forEachStore } from './helpers.js';

/**
 * Prebid Server's user-sync endpoints as Prebid Server (Go, v3) answers what a page sends, over real
 * HTTP:
 * - /cookie_sync matches bidder codes in any case (usersync/chooser.go normalises each name asked,
 *   usersync/bidderfilter.go lower-cases the filter's list) and answers each under the page's name:
 *   a page whose s2sConfig.bidders says "AdPlane" (which the auction bids for) is synced too, once;
 * - /setuid takes the bidder in any case and keeps the id under the bidder's own code
 *   (endpoints/setuid.go getSyncer, syncer.Key()); an empty `f` is no `f` (getResponseFormat): the pixel.
 */
const PAGE = 'https://news.example.com';
interface SyncAnswer {
  status: string;
  bidder_status: {
    bidder: string;
    no_cookie: boolean;
    usersync: { url: string; type: string; supportCORS: boolean };
  }[];
  debug?: { bidder: string; error: string }[];
}
const uidsOf = (setCookie: string | null): Record<string, { uid: string }> => {
  const value = /^uids=([^;]+)/.exec(setCookie ?? '')![1]!;
  return (JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { tempUIDs: Record<string, { uid: string }> })
    .tempUIDs;
};

forEachStore((t) => {
  const publisher = prebidPublisher(t, {
    label: 'Endpoints',
    imageUrl: 'https://cdn.example.com/e300x250.png',
    mediaUrl: 'https://cdn.example.com/e.mp4',
  });

  const cookieSync = async (body: Record<string, unknown>): Promise<SyncAnswer> => {
    // as Prebid.js posts it: text/plain, with credentials from the page
    const res = await fetch(`${publisher.base}/cookie_sync`, {
      method: 'POST',
      body: JSON.stringify({ uuid: 'a1b2', account: publisher.ids.display!.uid, filterSettings: {}, ...body }),
      headers: { 'content-type': 'text/plain', origin: PAGE },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    return (await res.json()) as SyncAnswer;
  };

  describe('/cookie_sync: bidder codes in any case, as Prebid Server', () => {
    it('syncs adplane named "AdPlane", under that name, to adplane\'s own setuid', async () => {
      const answer = await cookieSync({ bidders: ['AdPlane', 'appnexus'] });
      expect(answer.bidder_status).toHaveLength(1);
      const [sync] = answer.bidder_status;
      expect(sync).toMatchObject({
        bidder: 'AdPlane',
        no_cookie: true,
        usersync: { type: 'redirect', supportCORS: false },
      });
      const url = new URL(sync!.usersync.url);
      expect(url.pathname).toBe('/setuid');
      expect(url.searchParams.get('bidder')).toBe('adplane');
    });

    it('names one sync for adplane named twice in two cases', async () => {
      const answer = await cookieSync({ bidders: ['adplane', 'ADPLANE'] });
      expect(answer.bidder_status.map((s) => s.bidder)).toEqual(['adplane']);
    });

    it("reads the filter's bidder list in any case", async () => {
      const excluded = await cookieSync({
        bidders: ['adplane'],
        filterSettings: { image: { bidders: ['AdPlane'], filter: 'exclude' } },
        debug: true,
      });
      expect(excluded.bidder_status).toEqual([]);
      // (an iframe, which no filter drops, is a type adplane has no sync of)
      expect(excluded.debug).toEqual([{ bidder: 'adplane', error: 'Type not supported' }]);
      const included = await cookieSync({
        bidders: ['adplane'],
        filterSettings: { image: { bidders: ['ADPLANE'], filter: 'include' } },
      });
      expect(included.bidder_status.map((s) => s.bidder)).toEqual(['adplane']);
    });

    it('does not report "AdPlane" as a bidder it does not sync', async () => {
      const answer = await cookieSync({ bidders: ['AdPlane', 'rubicon'], debug: true });
      expect(answer.debug).toEqual([{ bidder: 'rubicon', error: 'Unsupported bidder' }]);
    });
  });

  describe('/setuid as Prebid Server reads its query', () => {
    it('takes the bidder in any case and keeps the id under "adplane"', async () => {
      const res = await fetch(`${publisher.base}/setuid?bidder=AdPlane&uid=id-42`, { headers: { origin: PAGE } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(uidsOf(res.headers.get('set-cookie'))).toEqual({
        adplane: expect.objectContaining({ uid: 'id-42' }) as unknown,
      });
    });

    it('answers the pixel for an empty f', async () => {
      const res = await fetch(`${publisher.base}/setuid?bidder=adplane&uid=id-43&f=`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(uidsOf(res.headers.get('set-cookie')).adplane!.uid).toBe('id-43');
    });
  });
});
