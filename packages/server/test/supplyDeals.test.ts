import { type DecisionTrace, type SourceFate } from '@adplane/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { edgeRequest } from './edgeClient.js';
import { freshAddress } from './helpers.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { isoDay } from './testTime.js';

/**
 * Deals for buyers (SSP mode) through the real app: a publisher sells its channels as supply deals
 * to the local bidders its RTB demand tags call (testBidders.ts, over real sockets). The deal rides
 * in `imp.pmp` of the tags it names; a bid on it is held to its terms as an exchange holds them (its
 * floor, buyer seats, advertiser domains, auction type, private auction), the trace says why a deal
 * bid lost, and reports count the deal's bids, wins and revenue by its deal id.
 */
const usd = (n: number) => Math.round(n * 1_000_000);

forEachStoreAndStatsEngine((t, s) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      const seat = 'seat=dsp-seat-7&adomain=brand.example.com';
      await p.rtbTag('dealBid', 'Deal bidder', `name=dealbid&price=40&deal=SD-OPEN&${seat}`);
      await p.rtbTag('openBid', 'Open bidder', 'name=openbid&price=30');
      await p.rtbTag('lowDeal', 'Low deal bidder', `name=lowdeal&price=22&deal=SD-FLOOR&${seat}`);
      await p.rtbTag('wrongSeat', 'Other seat bidder', 'name=wrongseat&price=45&deal=SD-SEAT&seat=dsp-seat-9');
      await p.rtbTag(
        'wrongDomain',
        'Other advertiser bidder',
        'name=wrongdomain&price=45&deal=SD-DOMAIN&seat=dsp-seat-7&adomain=other.example.com',
      );
      await p.rtbTag('privOpen', 'Open bid in private', 'name=privopen&price=35');
      await p.rtbTag('privDeal', 'Private deal bidder', 'name=privdeal&price=21&deal=SD-PRIVATE');
      await p.rtbTag('fixedBid', 'Fixed price bidder', 'name=fixedbid&price=45&deal=SD-FIXED');
      await p.rtbTag('capBid', 'Capped deal bidder', 'name=capbid&price=40&deal=SD-CAP');
      await p.rtbTag('twoBid', 'Two deals bidder', 'name=twobid&price=35&deal=SD-TWO-A');
      const channel = (name: string, demand: string[]) =>
        p.vastChannel(name, name, { auctionPrice: 'second', revshare: 60, demand });
      await channel('chOpen', ['dealBid', 'openBid']);
      await channel('chFloor', ['lowDeal', 'openBid']);
      await channel('chSeat', ['wrongSeat', 'openBid']);
      await channel('chDomain', ['wrongDomain', 'openBid']);
      await channel('chPrivate', ['privOpen', 'privDeal', 'openBid']);
      await channel('chFixed', ['fixedBid', 'openBid']);
      await channel('chCap', ['capBid', 'openBid']);
      await channel('chZero', ['openBid']);
      await channel('chTwo', ['twoBid']);
      const deal = (name: string, dealId: string, channelName: string, tags: string[], terms = {}) =>
        p.create(name, 'supplydeals', {
          name,
          dealId,
          floorCpm: usd(25),
          buyerSeats: ['dsp-seat-7'],
          advertiserDomains: ['brand.example.com'],
          channelIds: [p.ids[channelName]!.id],
          tagIds: tags.map((tag) => p.ids[tag]!.id),
          ...terms,
        });
      await deal('open', 'SD-OPEN', 'chOpen', ['dealBid']);
      await deal('floor', 'SD-FLOOR', 'chFloor', ['lowDeal']);
      // not in force yet: its flight starts in two days
      await deal('later', 'SD-LATER', 'chFloor', ['openBid'], { startDate: isoDay(Date.now(), 2) });
      await deal('seat', 'SD-SEAT', 'chSeat', ['wrongSeat'], { advertiserDomains: [] });
      await deal('domain', 'SD-DOMAIN', 'chDomain', ['wrongDomain']);
      await deal('private', 'SD-PRIVATE', 'chPrivate', ['privOpen', 'privDeal'], {
        floorCpm: usd(20),
        privateAuction: true,
        buyerSeats: [],
        advertiserDomains: [],
      });
      await deal('fixed', 'SD-FIXED', 'chFixed', ['fixedBid'], {
        auctionType: 3,
        buyerSeats: [],
        advertiserDomains: [],
      });
      const anyBuyer = { buyerSeats: [], advertiserDomains: [] };
      await deal('cap', 'SD-CAP', 'chCap', ['capBid'], { ...anyBuyer, impCap: 2, dailyImpCap: 10 });
      // a private deal capped at 0: never offered, so it never makes the impression private
      await deal('zero', 'SD-ZERO', 'chZero', ['openBid'], { ...anyBuyer, privateAuction: true, impCap: 0 });
      // two deals offered to one tag in one bid request
      await deal('twoA', 'SD-TWO-A', 'chTwo', ['twoBid'], anyBuyer);
      await deal('twoB', 'SD-TWO-B', 'chTwo', ['twoBid'], anyBuyer);
    },
    { listen: false, programmatic: {}, statsEngine: s, signInFrom: freshAddress() },
  );
  const { ids } = publisher;

  /** One traced decision of the channel: its trace, and the bid request each named bidder got for it. */
  const decide = async (channel: string) => {
    const uid = ids[channel]!.uid;
    const res = await publisher.request({ method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8&debug=1` });
    expect(res.statusCode, res.body).toBe(200);
    const { trace } = res.json<{ trace: DecisionTrace }>();
    const sentTo = (bidder: string) =>
      publisher.bidders
        .requestsOf(bidder)
        .filter((r) => r.body.imp[0]!.tagid === uid)
        .at(-1)?.body;
    const fate = (tag: string): SourceFate => trace.sources.find((f) => f.id === ids[tag]!.id)!;
    return { trace, sentTo, fate };
  };
  /** The loss reason (`${AUCTION_LOSS}`) of the last loss notice a bidder got. */
  const lossOf = (bidder: string) =>
    publisher.bidders.notices
      .filter((n) => n.pathname === '/notice/loss' && n.searchParams.get('name') === bidder)
      .at(-1)
      ?.searchParams.get('loss');

  describe('the API', () => {
    it('keeps a deal for buyers and refuses bad terms with the field named', async () => {
      const got = await publisher.request({ method: 'GET', url: `/api/demand/supplydeals/${ids.open!.id}` });
      expect(got.statusCode).toBe(200);
      expect(got.json()).toMatchObject({
        dealId: 'SD-OPEN',
        floorCpm: usd(25),
        auctionType: 1,
        privateAuction: false,
        buyerSeats: ['dsp-seat-7'],
        advertiserDomains: ['brand.example.com'],
        channelIds: [ids.chOpen!.id],
        tagIds: [ids.dealBid!.id],
      });
      const refused = async (body: Record<string, unknown>) => {
        const res = await publisher.request({
          method: 'POST',
          url: '/api/demand/supplydeals',
          payload: { name: 'Bad deal', dealId: 'SD-BAD', ...body },
        });
        expect(res.statusCode, res.body).toBe(400);
        return res.json<{ field: string; message: string }>();
      };
      expect(await refused({ advertiserDomains: ['not a domain'] })).toMatchObject({ field: 'advertiserDomains.0' });
      expect(await refused({ startDate: '2026-12-10', endDate: '2026-12-01' })).toMatchObject({
        field: 'endDate',
        message: 'endDate: must not be before the start date',
      });
      expect(await refused({ auctionType: 4 })).toMatchObject({ field: 'auctionType' });
      expect(await refused({ dealId: 'has space' })).toMatchObject({ field: 'dealId' });
      expect(await refused({ channelIds: [999_999] })).toMatchObject({ field: 'channelIds' });
      expect(await refused({ impCap: -1 })).toMatchObject({ field: 'impCap' });
      expect(await refused({ dailyImpCap: 2.5 })).toMatchObject({ field: 'dailyImpCap' });
      expect(await refused({ impCap: 'none' })).toMatchObject({ field: 'impCap' });
    });

    it('keeps impression caps: none by default, a whole number or unlimited', async () => {
      expect(
        (await publisher.request({ method: 'GET', url: `/api/demand/supplydeals/${ids.open!.id}` })).json(),
      ).toMatchObject({ impCap: 'unlimited', dailyImpCap: 'unlimited' });
      expect(
        (await publisher.request({ method: 'GET', url: `/api/demand/supplydeals/${ids.cap!.id}` })).json(),
      ).toMatchObject({ impCap: 2, dailyImpCap: 10 });
    });
  });

  describe('the edge', () => {
    it('sends the deal in imp.pmp to the tags it names only, and a bid on it wins on its terms', async () => {
      const { trace, sentTo, fate } = await decide('chOpen');
      expect(sentTo('dealbid')!.imp[0]!.pmp).toEqual({
        private_auction: 0,
        deals: [
          {
            id: 'SD-OPEN',
            bidfloor: 25,
            bidfloorcur: 'USD',
            at: 1,
            wseat: ['dsp-seat-7'],
            wadomain: ['brand.example.com'],
          },
        ],
      });
      expect(sentTo('openbid')!.imp[0]!.pmp).toBeUndefined();
      // a first-price deal pays its bid, on a second-price channel too
      expect(trace.winner).toMatchObject({ id: ids.dealBid!.id, dealId: 'SD-OPEN', clearingCpm: usd(40) });
      expect(fate('openBid')).toMatchObject({ fate: 'lost', bidCpm: usd(30) });
    });

    it("holds a deal bid to the deal's floor (not the open one), and leaves a deal out of its flight", async () => {
      const { trace, sentTo, fate } = await decide('chFloor');
      // (SD-LATER's flight has not started)
      expect(trace.deals?.map((d) => d.dealId)).toEqual(['SD-FLOOR']);
      expect(fate('lowDeal')).toMatchObject({
        fate: 'below_floor',
        dealId: 'SD-FLOOR',
        reason: `floor_${usd(25)}`,
        floorCpm: usd(25),
      });
      expect(trace.winner).toMatchObject({ id: ids.openBid!.id });
      expect(sentTo('openbid')!.imp[0]!.pmp).toBeUndefined();
      // its loss notice says "below the deal's floor"
      await expect.poll(() => lossOf('lowdeal')).toBe('101');
    });

    it('refuses a deal bid from a seat the deal does not list, and says so in the trace and the loss notice', async () => {
      const { trace, fate } = await decide('chSeat');
      expect(fate('wrongSeat')).toMatchObject({ fate: 'no_fill', dealId: 'SD-SEAT', reason: 'deal_seat_not_allowed' });
      expect(trace.winner).toMatchObject({ id: ids.openBid!.id });
      // its loss notice says "invalid seat"
      await expect.poll(() => lossOf('wrongseat')).toBe('5');
    });

    it('refuses a deal bid whose advertiser domain the deal does not allow', async () => {
      const { trace, fate } = await decide('chDomain');
      expect(fate('wrongDomain')).toMatchObject({
        fate: 'no_fill',
        dealId: 'SD-DOMAIN',
        reason: 'deal_adomain_not_allowed',
      });
      expect(trace.winner).toMatchObject({ id: ids.openBid!.id });
    });

    it('in a private auction takes deal bids only: tags it does not name are not called, open bids are refused', async () => {
      const { trace, sentTo, fate } = await decide('chPrivate');
      expect(trace.deals).toEqual([
        { dealId: 'SD-PRIVATE', name: 'private', floorCpm: usd(20), auctionType: 1, privateAuction: true },
      ]);
      expect(sentTo('privopen')!.imp[0]!.pmp).toMatchObject({ private_auction: 1, deals: [{ id: 'SD-PRIVATE' }] });
      expect(sentTo('openbid')).toBeUndefined();
      expect(fate('openBid')).toMatchObject({ fate: 'filtered', reason: 'private_auction' });
      expect(fate('privOpen')).toMatchObject({ fate: 'no_fill', reason: 'private_auction' });
      // (no campaign of the account competes either: the impression is the deals')
      expect(trace.sources.filter((f) => f.source === 'campaign')).toEqual([]);
      expect(trace.winner).toMatchObject({ id: ids.privDeal!.id, dealId: 'SD-PRIVATE', clearingCpm: usd(21) });
    });

    it('offers a capped deal until its impressions reach the cap, then leaves it out of imp.pmp', async () => {
      const uid = ids.chCap!.uid;
      const lastPmp = () =>
        publisher.bidders
          .requestsOf('capbid')
          .filter((r) => r.body.imp[0]!.tagid === uid)
          .at(-1)?.body.imp[0]!.pmp;
      for (let i = 0; i < 2; i++) {
        const res = await edgeRequest(publisher.app, { method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8` });
        expect(lastPmp()).toMatchObject({ private_auction: 0, deals: [{ id: 'SD-CAP' }] });
        const impression = /<Impression><!\[CDATA\[([^\]]*\/ev\?e=impression[^\]]*)\]\]>/.exec(res.body)![1]!;
        const ev = await edgeRequest(publisher.app, {
          method: 'GET',
          url: impression.slice(impression.indexOf('/ev')),
        });
        expect(ev.statusCode).toBe(200);
      }
      // two impressions counted: the deal is no longer offered, its bidder's bid on it is refused
      const { trace, sentTo, fate } = await decide('chCap');
      expect(trace.deals).toBeUndefined();
      expect(trace.dealsLeftOut).toEqual([{ dealId: 'SD-CAP', name: 'cap', reason: 'deal_imp_cap' }]);
      expect(sentTo('capbid')!.imp[0]!.pmp).toBeUndefined();
      expect(fate('capBid')).toMatchObject({ fate: 'no_fill', reason: 'deal_not_offered' });
      expect(trace.winner).toMatchObject({ id: ids.openBid!.id });
    });

    it('says why a deal is not offered in its delivery state: its cap reached or 0, its flight not started', async () => {
      const asked = [ids.cap!, ids.zero!, ids.later!, ids.open!].map((r) => r.id);
      const res = await publisher.request({
        method: 'GET',
        url: `/api/deliveryStates?kind=supplydeals&ids=${asked.join(',')}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { states } = res.json<{ states: { id: number; serving: boolean; reasons: { code: string }[] }[] }>();
      expect(states.map((s) => [s.id, s.serving, s.reasons.map((r) => r.code)])).toEqual([
        [ids.cap!.id, false, ['imp_cap_reached']],
        [ids.zero!.id, false, ['imp_cap_zero']],
        [ids.later!.id, false, ['flight_not_started']],
        [ids.open!.id, true, []],
      ]);
    });

    it('never offers a deal capped at 0, nor lets it make the impression private', async () => {
      const { trace, sentTo } = await decide('chZero');
      expect(trace.dealsLeftOut).toEqual([{ dealId: 'SD-ZERO', name: 'zero', reason: 'deal_imp_cap' }]);
      expect(sentTo('openbid')!.imp[0]!.pmp).toBeUndefined();
      expect(trace.winner).toMatchObject({ id: ids.openBid!.id });
    });

    it("clears a fixed-price deal at the deal's price, whatever the bid", async () => {
      const { trace, sentTo } = await decide('chFixed');
      expect(sentTo('fixedbid')!.imp[0]!.pmp!.deals).toEqual([
        { id: 'SD-FIXED', bidfloor: 25, bidfloorcur: 'USD', at: 3 },
      ]);
      expect(trace.winner).toMatchObject({
        id: ids.fixedBid!.id,
        dealId: 'SD-FIXED',
        bidCpm: usd(45),
        clearingCpm: usd(25),
      });
    });
  });

  describe('reports', () => {
    beforeAll(async () => {
      // an impression of the deal's winner: its revenue books under the deal
      const res = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/vast/${ids.chOpen!.uid}?w=640&h=360&ip=8.8.8.8`,
      });
      const impression = /<Impression><!\[CDATA\[([^\]]*\/ev\?e=impression[^\]]*)\]\]>/.exec(res.body)![1]!;
      const path = impression.slice(impression.indexOf('/ev'));
      expect((await edgeRequest(publisher.app, { method: 'GET', url: path })).statusCode).toBe(200);
      // a call offering two deals to one tag
      const two = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/vast/${ids.chTwo!.uid}?w=640&h=360&ip=8.8.8.8`,
      });
      expect(
        publisher.bidders
          .requestsOf('twobid')
          .at(-1)!
          .body.imp[0]!.pmp!.deals!.map((d) => d.id),
      ).toEqual(['SD-TWO-A', 'SD-TWO-B']);
      expect(two.statusCode).toBe(200);
      await publisher.app.edge.flush();
    });

    const report = async (body: Record<string, unknown>) => {
      const res = await publisher.request({
        method: 'POST',
        url: '/api/rrun',
        payload: { startDate: isoDay(Date.now(), -1), endDate: isoDay(Date.now(), 1), ...body },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Record<string, unknown>[]>().filter((r) => !r.total);
    };

    it("counts a deal's requests: each call that offered it, once per deal, and the tag's requests once", async () => {
      const byDeal = await report({
        dimensions: ['deal'],
        metrics: ['deal_reqs', 'bids', 'wins'],
        filters: { deal: ['SD-OPEN', 'SD-CAP', 'SD-TWO-A', 'SD-TWO-B'] },
      });
      const deal = (id: string) => byDeal.find((r) => r.deal === id);
      // two calls of chOpen carried SD-OPEN; SD-CAP rode on two calls, not on the third (its cap reached)
      expect(deal('SD-OPEN')).toMatchObject({ deal_reqs: 2, bids: 2, wins: 2 });
      expect(deal('SD-CAP')).toMatchObject({ deal_reqs: 2, wins: 2 });
      // one call carried both: one request each, the bid on the deal it named
      expect(deal('SD-TWO-A')).toMatchObject({ deal_reqs: 1, bids: 1, wins: 1 });
      expect(deal('SD-TWO-B')).toMatchObject({ deal_reqs: 1, bids: 0, wins: 0 });
      const [tag] = await report({
        dimensions: ['tag'],
        metrics: ['reqs', 'deal_reqs'],
        filters: { tag: [ids.twoBid!.id] },
      });
      expect(tag).toMatchObject({ tag: ids.twoBid!.id, reqs: 1, deal_reqs: 2 });
    });

    it('breaks a report down by the deal: its bids, wins and revenue', async () => {
      const res = await publisher.request({
        method: 'POST',
        url: '/api/rrun',
        payload: {
          startDate: isoDay(Date.now(), -1),
          endDate: isoDay(Date.now(), 1),
          dimensions: ['deal'],
          metrics: ['bids', 'wins', 'imps', 'revenue'],
          filters: { deal: ['SD-OPEN', 'SD-FLOOR'] },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.json<Record<string, unknown>[]>().filter((r) => !r.total);
      // two decisions of chOpen (the traced one and the served one), one of chFloor
      expect(rows.find((r) => r.deal === 'SD-OPEN')).toMatchObject({ bids: 2, wins: 2, imps: 1, revenue: 40_000 });
      expect(rows.find((r) => r.deal === 'SD-FLOOR')).toMatchObject({ bids: 1, wins: 0, imps: 0 });
      const [row] = await publisher.app.stats.select(
        `SELECT sum(rev_md) AS rev_md FROM ${STATS_TABLE} WHERE deal_id = 'SD-OPEN'`,
      );
      expect(row).toMatchObject({ rev_md: 40_000 });
    });
  });
});
