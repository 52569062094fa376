import { type BidRequest, type BidResponse, type Imp } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { inlineVast } from './demandServers.js';
import { dspTenant } from './tenantFixture.js';
import { onSqliteStore } from './helpers.js';
import { startTestBidders, type TestBidders } from './testBidders.js';
import { edgeRequest } from './edgeClient.js';

/**
 * A multi-format impression (video and banner in one imp: outstream video with a banner fallback,
 * a Prebid ad unit with both mediaTypes) posted to /rtb/bid/<supplier uid> on the real app: video
 * is decided first; when it finds no winner and the supplier is set up for display, the banner is
 * decided, and bid at its own price, floors, deals and mtype. Either way the impression is one
 * request and at most one opportunity on the supplier's row, its pre-bid IVT checked once. A video
 * winner under a floor held on the winner (its length's, video.durfloors; the quantity's, imp.qty)
 * loses in the video's auction: the next best video wins, else the banner is tried. A slot of an ad
 * pod offers its banner too, under the pod's separation.
 */
const BOT = 'python-requests/2.31.0';

interface Answered {
  impid: string;
  price: number;
  mtype: number;
  w?: number;
  h?: number;
  crid: string;
  cid?: string;
  dealid?: string;
  adm: string;
  protocol?: number;
  dur?: number;
}

interface Counted {
  reqs: number;
  opps: number;
  ivt: number;
}

/** Video no campaign of ours takes (20 to 30 s: the spots are 15 s and 6 s), beside a 300x250 banner. */
const longVideo = { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, minduration: 20, maxduration: 30 };
/** Video our 15 s spot fits. */
const spotVideo = { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, maxduration: 30 };
const mpu = { format: [{ w: 300, h: 250 }], w: 300, h: 250 };
/** The spot's video with OpenRTB 2.6 durfloors (not in the shared contract's Video: read by type). */
const spotWithDurfloors = (durfloors: object[]) => ({ ...spotVideo, durfloors }) as NonNullable<Imp['video']>;

/** What our second exchange answers when it has nothing to say: no bid. */
const NO_BID = { status: 204 };

onSqliteStore((t) => {
  let bidders: TestBidders;
  const dsp = dspTenant(
    t,
    async (dsp) => {
      bidders = await startTestBidders();
      bidders.setAnswer('mf', NO_BID);
      const supplier = (name: string, formats?: string[]) =>
        dsp.supplier(name, name, { marginPercent: 20, ...(formats && { formats }) });
      await supplier('both');
      await supplier('counting');
      await supplier('bothFail');
      await supplier('videoOnly', ['video']);
      await supplier('displayOnly', ['display']);
      await supplier('ivt');
      await supplier('refusedAfter');
      await supplier('pods');

      await dsp.banner('mpu', {
        name: 'MF 300x250',
        size: [300, 250],
        advertiser: 'brand.test',
        category: 'IAB3',
        imageUrl: 'https://cdn.brand.test/mf-300x250.png',
      });
      await dsp.banner('dealMpu', {
        name: 'MF deal 300x250',
        size: [300, 250],
        advertiser: 'agency.test',
        category: 'IAB3',
        imageUrl: 'https://cdn.agency.test/mf-300x250.png',
        clickUrl: 'https://agency.test',
      });
      await dsp.videoSpot('spot', {
        name: 'MF spot 15s',
        width: 640,
        height: 360,
        bitrate: 800,
        advertiser: 'brand.test',
        category: 'IAB2',
        mediaUrl: 'https://cdn.brand.test/mf-spot.mp4',
      });
      // an exchange of ours that never answers (a .test host): each format's decision offers it the impression
      await dsp.create('exchange', 'adexchanges', {
        name: 'MF exchange',
        endpoint: 'https://bid.multiformat.test/openrtb2',
        tmaxMs: 250,
        qpsLimit: 1000,
        seat: 'mf-seat',
        marginPercent: 15,
      });
      // a second exchange that answers what a test sets (bidders.setAnswer('mf', ...)); no bid otherwise
      await dsp.create('bidder', 'adexchanges', {
        name: 'MF bidder',
        endpoint: `${bidders.url}/answer/mf`,
        tmaxMs: 250,
        qpsLimit: 1000,
        seat: 'mf-bidder',
        marginPercent: 15,
      });
      await dsp.deal('deal', { name: 'MF display PMP', dealId: 'MF-PMP-1', floor: 2, auctionType: 1 });
      await dsp.campaign('banners', { bid: 5, creatives: ['mpu'] });
      await dsp.campaign('video', { bid: 8, creatives: ['spot'] });
      await dsp.campaign('dealBuyer', { bid: 4.5, creatives: ['dealMpu'], deals: ['deal'], suppliers: ['both'] });
    },
    { listen: false },
  );
  const { ids } = dsp;

  afterAll(async () => {
    await bidders?.close();
  });

  const request = (imp: Omit<Imp, 'id'>, extra: Partial<BidRequest> = {}): BidRequest => ({
    id: `mf-${Math.random()}`,
    imp: [{ id: 'slot-1', ...imp }],
    site: { domain: 'news.example.com', page: 'https://news.example.com/story' },
    tmax: 500,
    ...extra,
  });
  const rtb = (uid: string, body: BidRequest) =>
    edgeRequest(dsp.app, {
      method: 'POST',
      url: `/rtb/bid/${uid}`,
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const bidsOf = async (uid: string, body: BidRequest): Promise<Answered[]> => {
    const res = await rtb(uid, body);
    if (res.statusCode === 204) return [];
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as BidResponse).seatbid!.flatMap((s) => s.bid) as Answered[];
  };
  /** The supplier's request rows (no demand source's), summed. */
  const counted = async (supplier: string): Promise<Counted> => {
    await dsp.app.edge.flush();
    const [row] = await dsp.app.stats.select(
      `SELECT sum(reqs) AS reqs, sum(opps) AS opps, sum(ivt) AS ivt FROM ${STATS_TABLE} WHERE supplier_id = ${ids[supplier]!.id} AND tag_id = 0 AND adexchange_id = 0 AND campaign_id = 0`,
    );
    return { reqs: Number(row?.reqs ?? 0), opps: Number(row?.opps ?? 0), ivt: Number(row?.ivt ?? 0) };
  };
  /** The supplier's request rows by no-fill reason ('' filled). */
  const reasons = async (supplier: string): Promise<Record<string, { reqs: number; opps: number }>> => {
    await dsp.app.edge.flush();
    const rows = await dsp.app.stats.select(
      `SELECT nofill_reason AS reason, sum(reqs) AS reqs, sum(opps) AS opps FROM ${STATS_TABLE} WHERE supplier_id = ${ids[supplier]!.id} AND tag_id = 0 AND adexchange_id = 0 AND campaign_id = 0 GROUP BY nofill_reason`,
    );
    return Object.fromEntries(rows.map((r) => [String(r.reason), { reqs: Number(r.reqs), opps: Number(r.opps) }]));
  };
  /** The calls our exchange was made for a supplier's impressions. */
  const exchangeCalls = async (supplier: string): Promise<number> => {
    await dsp.app.edge.flush();
    const [row] = await dsp.app.stats.select(
      `SELECT sum(demand_calls) AS calls FROM ${STATS_TABLE} WHERE supplier_id = ${ids[supplier]!.id} AND adexchange_id = ${ids.exchange!.id}`,
    );
    return Number(row?.calls ?? 0);
  };
  /** What one request added to a supplier's request rows. */
  const added = async (supplier: string, run: () => Promise<unknown>): Promise<Counted> => {
    const before = await counted(supplier);
    await run();
    const after = await counted(supplier);
    return { reqs: after.reqs - before.reqs, opps: after.opps - before.opps, ivt: after.ivt - before.ivt };
  };

  /** Our second exchange's bid, as it answers it (its price in USD, before its 15% margin). */
  const exchangeBid = (price: number, media: 'video' | 'banner') => ({
    json: {
      id: '{request.id}',
      seatbid: [
        {
          seat: 'mf-dsp',
          bid: [
            media === 'video'
              ? {
                  id: 'xv',
                  impid: '{imp.id}',
                  price,
                  adm: inlineVast('{bidders}', null, 'mf-exchange-video'),
                  adomain: ['exchange-video.test'],
                  crid: 'xv-crid',
                  mtype: 2,
                }
              : {
                  id: 'xb',
                  impid: '{imp.id}',
                  price,
                  adm: '<a href="https://exchange-banner.test"><img src="https://cdn.exchange-banner.test/300x250.png" width="300" height="250"></a>',
                  adomain: ['exchange-banner.test'],
                  crid: 'xb-crid',
                  w: 300,
                  h: 250,
                  mtype: 1,
                },
          ],
        },
      ],
    },
  });

  describe('video first, then banner', () => {
    it('bids the banner (mtype 1, its own size and price) when no video fits', async () => {
      const [bid, ...more] = await bidsOf(ids.both!.uid, request({ video: longVideo, banner: mpu }));
      expect(more).toEqual([]);
      // the banner campaign's 5.00 less our 20%: the display decision's price, no video field
      expect(bid).toMatchObject({
        impid: 'slot-1',
        mtype: 1,
        w: 300,
        h: 250,
        price: 4,
        crid: String(ids.mpu!.id),
        cid: String(ids.banners!.id),
      });
      expect(bid!.protocol).toBeUndefined();
      expect(bid!.dur).toBeUndefined();
      expect(bid!.adm).toMatch(/^<(a|img|div)\b[\s\S]*\/ev\?e=impression&amp;t=/);
    });

    it('still bids the video when it fits (mtype 2, the player size)', async () => {
      const [bid, ...more] = await bidsOf(ids.both!.uid, request({ video: spotVideo, banner: mpu }));
      expect(more).toEqual([]);
      expect(bid).toMatchObject({
        mtype: 2,
        w: 640,
        h: 360,
        price: 6.4,
        crid: String(ids.spot!.id),
        dur: 15,
        protocol: 3,
      });
      expect(bid!.adm).toContain('<VAST version="3.0"');
    });

    it("holds the banner to its own floors: the video's floor per second (mincpmpersec) is not the banner's, imp.bidfloor is", async () => {
      // $10 a second asks $150 of the 15 s spot: no video; the banner, at $4, reaches the $3 floor
      const [bid] = await bidsOf(
        ids.both!.uid,
        request({ video: { ...spotVideo, mincpmpersec: 10 }, banner: mpu, bidfloor: 3 }),
      );
      expect(bid).toMatchObject({ mtype: 1, price: 4, w: 300, h: 250 });
      // a floor the banner does not reach either: no bid
      expect(await bidsOf(ids.both!.uid, request({ video: longVideo, banner: mpu, bidfloor: 4.5 }))).toEqual([]);
    });

    it("buys a deal with a banner of the deal when no video takes it (dealid, the deal's seat)", async () => {
      const body = request({
        video: longVideo,
        banner: mpu,
        pmp: { private_auction: 1, deals: [{ id: 'MF-PMP-1', bidfloor: 2 }] },
      });
      const res = await rtb(ids.both!.uid, body);
      expect(res.statusCode, res.body).toBe(200);
      const [bid] = (res.json() as BidResponse).seatbid!.flatMap((s) => s.bid) as Answered[];
      // 4.50 less 20%
      expect(bid).toMatchObject({ mtype: 1, dealid: 'MF-PMP-1', price: 3.6, crid: String(ids.dealMpu!.id) });
    });

    it('does not try the banner for a supplier not set up for display: no bid', async () => {
      expect(await bidsOf(ids.videoOnly!.uid, request({ video: longVideo, banner: mpu }))).toEqual([]);
      expect(await bidsOf(ids.videoOnly!.uid, request({ video: spotVideo, banner: mpu }))).toMatchObject([
        { mtype: 2 },
      ]);
    });

    it("decides the banner alone for a supplier set up for display only (the video's floor per second no part of it), counted once", async () => {
      const body = request({ video: { ...spotVideo, mincpmpersec: 10 }, banner: mpu, bidfloor: 1 });
      const bids: Answered[][] = [];
      expect(await added('displayOnly', async () => bids.push(await bidsOf(ids.displayOnly!.uid, body)))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]).toMatchObject([{ mtype: 1, w: 300, h: 250, price: 4 }]);
    });

    it('tries the banner when the player reads no VAST we write (protocols VAST 1.0 only)', async () => {
      const [bid] = await bidsOf(ids.both!.uid, request({ video: { ...spotVideo, protocols: [1] }, banner: mpu }));
      expect(bid).toMatchObject({ mtype: 1, w: 300, h: 250 });
    });
  });

  describe('counting: one request, one opportunity', () => {
    it("counts the banner bid as one filled request and one opportunity, the video's no-fill nowhere", async () => {
      const bids: Answered[][] = [];
      expect(
        await added('counting', async () =>
          bids.push(await bidsOf(ids.counting!.uid, request({ video: longVideo, banner: mpu }))),
        ),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      expect(bids[0]).toMatchObject([{ mtype: 1 }]);
      // both formats were offered to the exchange (a call each): still one opportunity
      expect(await exchangeCalls('counting')).toBe(2);
      const rows = await reasons('counting');
      expect(rows['']).toEqual({ reqs: 1, opps: 1 });
      expect(rows.no_bid).toBeUndefined();
      expect(rows.no_demand).toBeUndefined();
      // the video winning counts the same: one request, one opportunity
      expect(
        await added('counting', () => bidsOf(ids.counting!.uid, request({ video: spotVideo, banner: mpu }))),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      // as does a refusal of the video (its protocols) that the banner fills
      expect(
        await added('counting', () =>
          bidsOf(ids.counting!.uid, request({ video: { ...spotVideo, protocols: [1] }, banner: mpu })),
        ),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      expect((await reasons('counting')).protocol_not_supported).toBeUndefined();
    });

    it('counts an impression neither format fills as one request, with one reason', async () => {
      const sizeless = { format: [{ w: 160, h: 600 }] };
      expect(
        await added('bothFail', async () =>
          expect(await bidsOf(ids.bothFail!.uid, request({ video: longVideo, banner: sizeless }))).toEqual([]),
        ),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      // the video was offered to the exchange, the banner too: one request, one opportunity, no_bid
      expect(await exchangeCalls('bothFail')).toBe(2);
      expect(await reasons('bothFail')).toEqual({ no_bid: { reqs: 1, opps: 1 } });
    });
  });

  describe('a video winner under a floor held on the winner (durfloors, imp.qty)', () => {
    afterAll(() => bidders.setAnswer('mf', NO_BID));

    it("bids the banner when its length's floor (video.durfloors) refuses the only video: one request, one opportunity, filled", async () => {
      // the 15 s spot earns 6.40, the 6 s one 4.80; ads of 1 to 20 s must reach 7.00
      const body = request({ video: spotWithDurfloors([{ mindur: 1, maxdur: 20, bidfloor: 7 }]), banner: mpu });
      const bids: Answered[][] = [];
      expect(await added('refusedAfter', async () => bids.push(await bidsOf(ids.refusedAfter!.uid, body)))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]).toMatchObject([{ mtype: 1, w: 300, h: 250, price: 4, crid: String(ids.mpu!.id) }]);
      expect(await reasons('refusedAfter')).toEqual({ '': { reqs: 1, opps: 1 } });
      // the banner is held to imp.bidfloor, not to the video's durfloors
      expect(
        await bidsOf(
          ids.refusedAfter!.uid,
          request({ video: spotWithDurfloors([{ maxdur: 60, bidfloor: 50 }]), banner: mpu, bidfloor: 3 }),
        ),
      ).toMatchObject([{ mtype: 1, price: 4 }]);
    });

    it("counts a video refused by its length's floor, and a banner that does not reach imp.bidfloor, as one request not filled (no_bid), never as a fill", async () => {
      const body = request({ video: spotWithDurfloors([{ mindur: 1, bidfloor: 7 }]), banner: mpu, bidfloor: 4.5 });
      const before = await reasons('refusedAfter');
      expect(
        await added('refusedAfter', async () => expect(await bidsOf(ids.refusedAfter!.uid, body)).toEqual([])),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      const after = await reasons('refusedAfter');
      expect(after['']).toEqual(before['']);
      expect(after.no_bid).toEqual({ reqs: (before.no_bid?.reqs ?? 0) + 1, opps: (before.no_bid?.opps ?? 0) + 1 });
    });

    it("bids the next best video when its length's floor refuses the best one (no banner tried)", async () => {
      // the exchange's 10 s video: 5.00 less its 15% and our 20%, 3.40; the 15 s spot (6.40) is under its 7.00
      bidders.setAnswer('mf', exchangeBid(5, 'video'));
      // our next best campaign first: the 6 s spot (6.00 less our 20%: 4.80), whose length has no floor
      const bestCampaign = await bidsOf(
        ids.refusedAfter!.uid,
        request({ video: spotWithDurfloors([{ mindur: 15, maxdur: 15, bidfloor: 7 }]), banner: mpu }),
      );
      expect(bestCampaign).toMatchObject([{ mtype: 2, dur: 6, price: 4.8 }]);
      // 6 s ads held to 7.00 as well: the exchange's video
      const body = request({
        video: spotWithDurfloors([
          { mindur: 1, maxdur: 9, bidfloor: 7 },
          { mindur: 15, maxdur: 15, bidfloor: 7 },
        ]),
        banner: mpu,
      });
      const bids: Answered[][] = [];
      expect(await added('refusedAfter', async () => bids.push(await bidsOf(ids.refusedAfter!.uid, body)))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]).toMatchObject([{ mtype: 2, dur: 10, crid: 'xv-crid', price: 3.4 }]);
      // without the floor, the spot outbids it
      expect(await bidsOf(ids.refusedAfter!.uid, request({ video: spotVideo, banner: mpu }))).toMatchObject([
        { mtype: 2, dur: 15, crid: String(ids.spot!.id) },
      ]);
      bidders.setAnswer('mf', NO_BID);
    });

    it("bids the banner when the quantity (imp.qty) takes every video's share under the floor", async () => {
      // two billable events: the spot's 6.40 is 3.20 each, under 3.30; the exchange's banner (10.00
      // less 15% and 20%: 6.80) is 3.40 each
      bidders.setAnswer('mf', exchangeBid(10, 'banner'));
      const body = request({ video: spotVideo, banner: mpu, bidfloor: 3.3, qty: { multiplier: 2 } });
      const bids: Answered[][] = [];
      expect(await added('refusedAfter', async () => bids.push(await bidsOf(ids.refusedAfter!.uid, body)))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]).toMatchObject([{ mtype: 1, crid: 'xb-crid', w: 300, h: 250 }]);
      expect(bids[0]![0]!.price).toBeCloseTo(3.4, 6);
      bidders.setAnswer('mf', NO_BID);
      // neither share reaches the floor: one request, not filled
      const before = await reasons('refusedAfter');
      expect(
        await added('refusedAfter', async () => expect(await bidsOf(ids.refusedAfter!.uid, body)).toEqual([])),
      ).toEqual({ reqs: 1, opps: 1, ivt: 0 });
      expect((await reasons('refusedAfter'))['']).toEqual(before['']);
    });
  });

  describe('ad pods (video.podid): the banner of a slot', () => {
    type PodBid = Answered & { id: string };
    const podRequest = (imps: Imp[]): BidRequest => ({
      id: `mf-pod-${Math.random()}`,
      imp: imps,
      site: { domain: 'news.example.com' },
      tmax: 500,
    });
    const podBidsOf = async (body: BidRequest) => (await bidsOf(ids.pods!.uid, body)) as PodBid[];

    it("bids a structured pod slot's banner when no video fits it, and holds the next slot to the pod's separation", async () => {
      const bids = await podBidsOf(
        podRequest([
          { id: 's1', video: { ...longVideo, podid: 'break-1', slotinpod: 1 }, banner: mpu },
          // no video again, and the banner's campaign (and advertiser) is in the break: no bid (pod_separation)
          { id: 's2', video: { ...longVideo, podid: 'break-1' }, banner: mpu },
          { id: 's3', video: { ...spotVideo, podid: 'break-1', slotinpod: -1 }, banner: mpu },
        ]),
      );
      expect(bids.map((b) => [b.impid, b.mtype])).toEqual([
        ['s1', 1],
        ['s3', 2],
      ]);
      expect(bids[0]!.crid).toBe(String(ids.mpu!.id));
      // the banner's advertiser is the spot's: the spot is refused too, another advertiser's video takes the slot
      expect(bids[1]!.crid).not.toBe(String(ids.spot!.id));
      // a slot whose video fits: the video
      const video = await podBidsOf(
        podRequest([
          { id: 'v1', video: { ...spotVideo, podid: 'break-2', slotinpod: 1 }, banner: mpu },
          {
            id: 'v2',
            video: { ...longVideo, podid: 'break-2', slotinpod: -1 },
            banner: { format: [{ w: 160, h: 600 }] },
          },
        ]),
      );
      expect(video.map((b) => [b.impid, b.mtype])).toEqual([['v1', 2]]);
    });

    it('bids one banner for a dynamic pod (poddur) no video fits, counted one request and one opportunity', async () => {
      const imp: Imp = { id: 'break', video: { ...longVideo, podid: 'dyn', poddur: 60, maxseq: 3 }, banner: mpu };
      const bids: PodBid[][] = [];
      expect(await added('pods', async () => bids.push(await podBidsOf(podRequest([imp]))))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]!.map((b) => [b.impid, b.mtype, b.w, b.h])).toEqual([['break', 1, 300, 250]]);
    });

    it("keeps a dynamic pod's later ads video: after its first video, no banner", async () => {
      // the spot fills the first ad, the tenant's 6 s spot the second; the third finds no other video
      // (both campaigns are in the break) and the break ends there, with no banner
      const bids = await podBidsOf(
        podRequest([{ id: 'break', video: { ...spotVideo, podid: 'dyn-2', poddur: 60, maxseq: 3 }, banner: mpu }]),
      );
      expect(bids.map((b) => b.mtype)).toEqual([2, 2]);
      expect(bids[0]!.dur).toBe(15);
    });

    it('bids the banner of a dynamic pod whose break is too short for any video it takes (not pod_too_short)', async () => {
      const imp: Imp = {
        id: 'short',
        video: { ...spotVideo, minduration: 15, podid: 'dyn-3', poddur: 10 },
        banner: mpu,
      };
      const bids: PodBid[][] = [];
      expect(await added('pods', async () => bids.push(await podBidsOf(podRequest([imp]))))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 0,
      });
      expect(bids[0]!.map((b) => b.mtype)).toEqual([1]);
      expect((await reasons('pods')).pod_too_short).toBeUndefined();
    });
  });

  describe('pre-bid IVT', () => {
    beforeAll(async () => {
      const before = (await dsp.request({ method: 'GET', url: '/api/demand/info' })).json<Record<string, unknown>>();
      const res = await dsp.request({
        method: 'PUT',
        url: '/api/demand/info',
        payload: { ...before, setCheckIVTAll: 1, blockIVT: null },
      });
      expect(res.statusCode, res.body).toBe(200);
      await dsp.app.edge.snapshots.rebuild();
    });

    it("checks the impression once: a bot's banner bid is one request, one IVT flag, one opportunity", async () => {
      const flagged = async () => {
        const body = (await dsp.app.inject({ method: 'GET', url: '/metrics' })).body;
        const line = /^adplane_ivt_flagged_total\{reason="bot_user_agent",blocked="false"\} (\d+)$/m.exec(body);
        return line ? Number(line[1]) : 0;
      };
      const flaggedBefore = await flagged();
      const bids: Answered[][] = [];
      const body = request({ video: longVideo, banner: mpu }, { device: { ua: BOT, ip: '73.158.1.1', devicetype: 2 } });
      expect(await added('ivt', async () => bids.push(await bidsOf(ids.ivt!.uid, body)))).toEqual({
        reqs: 1,
        opps: 1,
        ivt: 1,
      });
      expect(bids[0]).toMatchObject([{ mtype: 1 }]);
      expect((await flagged()) - flaggedBefore).toBe(1);
    });
  });
});
