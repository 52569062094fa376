import { TAG_TEST_PATH } from '@adplane/shared';
import { expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { onSqliteStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Outbound programmatic demand through the real app: a channel (under the demo subpublisher) with an
 * RTB demand tag pointing at a local bidder serves the bid's VAST from GET /vast/<uid>, the request
 * carries our schain node with the tenant's domain and the subpublisher's sellers.json id, the win
 * notice fires, the impression event fires the billing notice once, and the counters show the tag's
 * call, bid and win and the marketplace revenue. A PreBid tag goes to a (fake) Prebid Server with
 * its partner's parameters.
 */
onSqliteStore((t) => {
  const publisher = publisherTenant(
    t,
    async (publisher) => {
      await publisher.rtbTag('rtb', 'Local RTB', 'name=api&price=25');
      await publisher.vastChannel('rtbChannel', 'RTB channel', {
        auctionPrice: 'first',
        subpublisherId: t.users.sub!.id,
        revshare: 60,
        demand: ['rtb'],
      });
      await publisher.prebidTag('prebid', 'PubMatic via Prebid', 'pubmaticP', {
        publisherId: '156209',
        adSlot: 'slot1@640x360',
      });
      await publisher.vastChannel('prebidChannel', 'Prebid channel', { auctionPrice: 'first', demand: ['prebid'] });
      await publisher.vastChannel('prebidDisplay', 'Prebid display channel', { format: 'display', demand: ['prebid'] });
      // an RTB channel (publishers' SSPs post OpenRTB to it) whose only tag bids a skippable ad
      await publisher.rtbTag('skippy', 'Skippable RTB', 'name=skippy&price=40&skip=00:00:05');
      await publisher.openRtbChannel('inboundChannel', 'Inbound RTB', { demand: ['skippy'] });
    },
    { listen: false, programmatic: { prebidServer: 'price=30' } },
  );
  const { ids } = publisher;
  const vast = (uid: string) =>
    edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8&page_url=https%3A%2F%2Fnews.example.com%2Fv`,
    });

  it("serves an RTB tag's bid as valid VAST, fires the win notice, bills once on the impression, and counts the call, bid, win and marketplace revenue", async () => {
    const res = await vast(ids.rtbChannel!.uid);
    expect(res.statusCode).toBe(200);
    expect(schemaErrors('4.2', res.body)).toBe('');
    expect(res.body).toContain(`${publisher.bidders.url}/notice/adm-imp?name=api&price=25`);
    expect(res.body).toContain('/media/spot.mp4');

    const [sent] = publisher.bidders.requestsOf('api');
    expect(sent!.headers['x-openrtb-version']).toBe('2.6');
    expect(sent!.body).toMatchObject({
      imp: [{ video: { protocols: [2, 3, 5, 6, 7, 8], w: 640, h: 360 }, bidfloorcur: 'USD' }],
      site: { domain: 'news.example.com', publisher: { id: 'nw1-sub-1' } },
      device: { ip: '8.8.8.8', geo: { country: 'USA' } },
      source: { schain: { complete: 1, nodes: [{ asi: 'ads.northwind.test', sid: 'nw1-sub-1', hp: 1 }] } },
    });
    expect(sent!.body.tmax).toBeLessThanOrEqual(1000 - 15);
    const [win] = await publisher.bidders.waitForNotices('/notice/win', 1);
    expect(win!.searchParams.get('price')).toBe('25');

    const impression = /<Impression><!\[CDATA\[([^\]]*\/ev\?e=impression[^\]]*)\]\]>/.exec(res.body)![1]!;
    expect(impression).toContain('&b=');
    const path = impression.slice(impression.indexOf('/ev'));
    expect((await edgeRequest(publisher.app, { method: 'GET', url: path })).statusCode).toBe(200);
    expect((await edgeRequest(publisher.app, { method: 'GET', url: path })).statusCode).toBe(200);
    const bills = await publisher.bidders.waitForNotices('/notice/bill', 1);
    expect(bills[0]!.searchParams.get('price')).toBe('25');
    expect(Number(bills[0]!.searchParams.get('ts'))).toBeGreaterThan(Date.now() - 60_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(publisher.bidders.notices.filter((n) => n.pathname === '/notice/bill')).toHaveLength(1);

    await publisher.app.edge.flush();
    const [tag] = await publisher.app.stats.select(
      `SELECT sum(demand_calls) AS calls, sum(bids) AS bids, sum(wins) AS wins FROM ${STATS_TABLE} WHERE tag_id = ${ids.rtb!.id}`,
    );
    expect(tag).toMatchObject({ calls: 1, bids: 1, wins: 1 });
    const [money] = await publisher.app.stats.select(
      `SELECT sum(imps) AS imps, sum(revenue) AS revenue, sum(cost) AS cost, sum(rev_m) AS rev_m, sum(rev_md) AS rev_md, max(marketplace_name) AS marketplace FROM ${STATS_TABLE} WHERE channel_id = ${ids.rtbChannel!.id} AND imps > 0`,
    );
    expect(money).toMatchObject({
      imps: 1,
      revenue: 25000,
      cost: 15000,
      rev_m: 25000,
      rev_md: 0,
      marketplace: 'Local RTB',
    });

    const metrics = await publisher.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/adplane_demand_source_seconds_count\{source="rtb_tag",outcome="won"\} [1-9]/);
  });

  it("sends a PreBid tag to the Prebid Server with the partner's parameters under imp[].ext.prebid.bidder, and serves its bid", async () => {
    const res = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.prebidChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
    });
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'prebid_tag', id: ids.prebid!.id, clearingCpm: 30_000_000 });
    expect(schemaErrors('4.2', xml)).toBe('');
    const call = publisher.bidders.requests.find((r) => r.path === '/pbs')!;
    expect(call.body.imp[0]!.ext).toEqual({
      prebid: { bidder: { pubmatic: { publisherId: '156209', adSlot: 'slot1@640x360' } } },
    });
    expect(call.body.source?.schain?.nodes).toEqual([
      expect.objectContaining({ asi: 'ads.northwind.test', sid: String(t.users.demand!.id) }),
    ]);
  });

  it('calls no Prebid Server for a display request of no stated size (it would refuse the banner), and calls it for a sized one', async () => {
    const pbsCalls = () => publisher.bidders.requests.filter((r) => r.path === '/pbs').length;
    const before = pbsCalls();
    const unsized = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.prebidDisplay!.uid}?ip=8.8.8.8&debug=1`,
    });
    const { trace } = unsized.json() as { trace: DecisionTrace };
    expect(trace.sources).toContainEqual(
      expect.objectContaining({ source: 'prebid_tag', id: ids.prebid!.id, fate: 'filtered', reason: 'no_banner_size' }),
    );
    expect(pbsCalls()).toBe(before);
    await publisher.request({ method: 'GET', url: `/vast/${ids.prebidDisplay!.uid}?w=300&h=250&ip=8.8.8.8&debug=1` });
    const call = publisher.bidders.requests.filter((r) => r.path === '/pbs').at(-1)!;
    expect(pbsCalls()).toBe(before + 1);
    expect(call.body.imp[0]!.banner).toEqual({ format: [{ w: 300, h: 250 }], w: 300, h: 250 });
  });

  it("refuses an RTB tag's skippable ad for an inbound impression that blocks skippable ads (battr 16) before the auction: the next best gets it", async () => {
    const request = (battr: number[]) => ({
      id: `inbound-${battr.length}`,
      tmax: 1000,
      site: { page: 'https://news.example.com/v' },
      device: { ip: '8.8.8.8', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36' },
      imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3, 5, 6], battr } }],
    });
    const post = (battr: number[]) =>
      edgeRequest(publisher.app, { method: 'POST', url: `/rtb/${ids.inboundChannel!.uid}`, payload: request(battr) });
    const open = await post([]);
    expect(open.statusCode, open.body).toBe(200);
    const bid = (open.json() as { seatbid: { bid: { crid: string; attr?: number[]; adm: string }[] }[] }).seatbid[0]!
      .bid[0]!;
    expect(bid.crid).toBe('cr-skippy');
    expect(bid.attr).toEqual([16]);
    const blocking = await post([16]);
    // refused before the auction, not after it: the demo workspace's campaign (not skippable) wins instead of nothing
    expect(blocking.statusCode, blocking.body).toBe(200);
    const other = (blocking.json() as { seatbid: { bid: { crid: string; attr?: number[] }[] }[] }).seatbid[0]!.bid[0]!;
    expect(other.crid).not.toBe('cr-skippy');
    expect(other.attr).toBeUndefined();
    // and the bidder hears why it lost: its creative's attribute is excluded (210), no price would have won
    await expect
      .poll(
        () =>
          publisher.bidders.notices
            .filter((n) => n.pathname === '/notice/loss' && n.searchParams.get('name') === 'skippy')
            .map((n) => [n.searchParams.get('loss'), n.searchParams.get('min')]),
        { timeout: 3000 },
      )
      .toEqual([['210', '']]);
  });

  it('"Test this tag" calls the RTB tag for real but fires no win notice and no billing notice', async () => {
    const before = publisher.bidders.notices.length;
    const res = await publisher.request({
      method: 'POST',
      url: TAG_TEST_PATH,
      payload: { tagId: ids.rtb!.id, context: { country: 'US', width: 640, height: 360, domain: 'example.com' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'rtb_tag', id: ids.rtb!.id });
    const impression = /<Impression><!\[CDATA\[([^\]]*\/ev\?e=impression[^\]]*)\]\]>/.exec(xml)![1]!;
    expect(impression).not.toContain('&b=');
    await edgeRequest(publisher.app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) });
    await new Promise((r) => setTimeout(r, 150));
    expect(
      publisher.bidders.notices
        .slice(before)
        .filter((n) => n.searchParams.get('name') === 'api')
        .map((n) => n.pathname + n.search),
    ).toEqual([]);
  });
});
