import { randomUUID } from 'node:crypto';
import { type BidRequest, type BidResponse, type Imp } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { dspTenant } from './tenantFixture.js';
import { onSqliteStore } from './helpers.js';
import { startTestBidders, type TestBidders } from './testBidders.js';
import { edgeRequest } from './edgeClient.js';

/**
 * A multi-format impression (video and banner in one imp) whose video winner delivery control
 * refuses after the auction, on the real app: the banner is tried, as for a video that found no
 * winner, and the impression stays one request and at most one opportunity. The refusal is provoked
 * as it happens in production: two requests of one viewer decided at the same time, a campaign
 * capped at one impression a day, each auction waiting on an exchange; both auctions see the cap
 * free, the first winner takes it, the second is refused at its admission (`delivery.frequency_cap`).
 * A request blocked as IVT is blocked in every format: no banner is tried.
 */
const BOT = 'python-requests/2.31.0';
const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/** Video only the capped campaign's 15 s spot fits (the demo tenant's spot is 6 s). */
const video = { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, minduration: 10, maxduration: 30 };
const mpu = { format: [{ w: 300, h: 250 }], w: 300, h: 250 };
/** A banner size no campaign has. */
const skyscraper = { format: [{ w: 160, h: 600 }], w: 160, h: 600 };

interface Answered {
  impid: string;
  mtype: number;
  crid: string;
  cid?: string;
}

interface Row {
  reqs: number;
  opps: number;
  ivt: number;
}

onSqliteStore((t) => {
  let bidders: TestBidders;
  const dsp = dspTenant(
    t,
    async (dsp) => {
      bidders = await startTestBidders();
      // an exchange that answers no bid after 150 ms: every decision waits on it, so two requests'
      // auctions run side by side, as busy traffic's do
      bidders.setAnswer('late', { status: 204, delayMs: 150 });
      await dsp.supplier('capped', 'capped', { marginPercent: 20 });
      await dsp.supplier('neither', 'neither', { marginPercent: 20 });
      await dsp.supplier('blocked', 'blocked', { marginPercent: 20 });
      await dsp.banner('mpu', {
        name: 'MFD 300x250',
        size: [300, 250],
        advertiser: 'banner.test',
        imageUrl: 'https://cdn.banner.test/mfd-300x250.png',
      });
      await dsp.videoSpot('spot', {
        name: 'MFD spot 15s',
        width: 640,
        height: 360,
        bitrate: 800,
        advertiser: 'video.test',
        mediaUrl: 'https://cdn.video.test/mfd-spot.mp4',
      });
      await dsp.create('exchange', 'adexchanges', {
        name: 'MFD late exchange',
        endpoint: `${bidders.url}/answer/late`,
        tmaxMs: 400,
        qpsLimit: 1000,
        seat: 'mfd-seat',
        marginPercent: 15,
      });
      await dsp.campaign('banners', { bid: 5, creatives: ['mpu'] });
      const capped = await dsp.campaign('onceADay', { bid: 8, creatives: ['spot'] });
      const res = await dsp.edit('onceADay', { frequencyCap: { count: 1, periodHours: 24 }, pacing: 'asap' });
      expect(res.statusCode, res.body).toBe(200);
      expect(capped.id).toBeGreaterThan(0);
    },
    { listen: false },
  );
  const { ids } = dsp;

  afterAll(async () => {
    await bidders?.close();
  });

  const request = (imp: Omit<Imp, 'id'>, viewer: string, ua = BROWSER): BidRequest => ({
    id: `mfd-${Math.random()}`,
    imp: [{ id: 'slot-1', ...imp }],
    site: { domain: 'news.example.com', page: 'https://news.example.com/story' },
    tmax: 800,
    device: { ifa: viewer, ip: '73.158.1.1', devicetype: 2, ua },
  });
  const bidsOf = async (uid: string, body: BidRequest): Promise<Answered[]> => {
    const res = await edgeRequest(dsp.app, {
      method: 'POST',
      url: `/rtb/bid/${uid}`,
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    if (res.statusCode === 204) return [];
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as BidResponse).seatbid!.flatMap((s) => s.bid) as Answered[];
  };
  /** The supplier's request rows (no demand source's) by no-fill reason ('' filled). */
  const reasons = async (supplier: string): Promise<Record<string, Row>> => {
    await dsp.app.edge.flush();
    const rows = await dsp.app.stats.select(
      `SELECT nofill_reason AS reason, sum(reqs) AS reqs, sum(opps) AS opps, sum(ivt) AS ivt FROM ${STATS_TABLE} WHERE supplier_id = ${ids[supplier]!.id} AND tag_id = 0 AND adexchange_id = 0 AND campaign_id = 0 GROUP BY nofill_reason`,
    );
    return Object.fromEntries(
      rows.map((r) => [String(r.reason), { reqs: Number(r.reqs), opps: Number(r.opps), ivt: Number(r.ivt) }]),
    );
  };
  /** A campaign's rows under a supplier by no-fill reason: its bids and wins. */
  const campaignRows = async (
    supplier: string,
    campaign: string,
  ): Promise<Record<string, { bids: number; wins: number }>> => {
    await dsp.app.edge.flush();
    const rows = await dsp.app.stats.select(
      `SELECT nofill_reason AS reason, sum(bids) AS bids, sum(wins) AS wins FROM ${STATS_TABLE} WHERE supplier_id = ${ids[supplier]!.id} AND campaign_id = ${ids[campaign]!.id} GROUP BY nofill_reason`,
    );
    return Object.fromEntries(rows.map((r) => [String(r.reason), { bids: Number(r.bids), wins: Number(r.wins) }]));
  };
  const refusedMetric = async (): Promise<number> => {
    const body = (await dsp.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = /^adplane_delivery_refused\{reason="frequency_cap"\} (\d+)$/m.exec(body);
    return line ? Number(line[1]) : 0;
  };
  /** The same viewer's (`viewer`: its device id, device.ifa) impression posted twice at once: both auctions wait on the exchange, then settle one after the other. */
  const twice = (supplier: string, imp: Omit<Imp, 'id'>, viewer: string) =>
    Promise.all([bidsOf(ids[supplier]!.uid, request(imp, viewer)), bidsOf(ids[supplier]!.uid, request(imp, viewer))]);

  describe('a video winner refused by delivery control after the auction', () => {
    it('bids the banner instead, each request counted once, filled, one opportunity', async () => {
      const refusedBefore = await refusedMetric();
      const answers = await twice('capped', { video, banner: mpu }, randomUUID());
      // the first to settle took the capped campaign's one impression; the other's banner won
      expect(answers.map((bids) => bids.map((b) => b.mtype)).sort()).toEqual([[1], [2]]);
      const [videoBid] = answers.find((bids) => bids[0]!.mtype === 2)!;
      const [bannerBid] = answers.find((bids) => bids[0]!.mtype === 1)!;
      expect(videoBid).toMatchObject({ cid: String(ids.onceADay!.id), crid: String(ids.spot!.id) });
      expect(bannerBid).toMatchObject({ impid: 'slot-1', crid: String(ids.mpu!.id) });
      // both filled: one request and one opportunity each, no delivery refusal on the request rows
      expect(await reasons('capped')).toEqual({ '': { reqs: 2, opps: 2, ivt: 0 } });
      // the refusal itself is on delivery control's count
      expect((await refusedMetric()) - refusedBefore).toBeGreaterThanOrEqual(1);
      // the capped campaign won one auction that served; the refused pick is a bid that did not win, with its reason
      expect(await campaignRows('capped', 'onceADay')).toEqual({
        '': { bids: 1, wins: 1 },
        'delivery.frequency_cap': { bids: 1, wins: 0 },
      });
    });

    it('names the request by the refusal when the banner finds no winner either (as before the banner was tried)', async () => {
      const answers = await twice('neither', { video, banner: skyscraper }, randomUUID());
      expect(answers.map((bids) => bids.map((b) => b.mtype)).sort()).toEqual([[], [2]]);
      expect(await reasons('neither')).toEqual({
        '': { reqs: 1, opps: 1, ivt: 0 },
        'delivery.frequency_cap': { reqs: 1, opps: 1, ivt: 0 },
      });
    });
  });

  describe('pre-bid IVT, blocking', () => {
    beforeAll(async () => {
      const before = (await dsp.request({ method: 'GET', url: '/api/demand/info' })).json<Record<string, unknown>>();
      const res = await dsp.request({
        method: 'PUT',
        url: '/api/demand/info',
        payload: { ...before, setCheckIVTAll: 1, blockIVT: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ setCheckIVTAll: 1, blockIVT: 1 });
      await dsp.app.edge.snapshots.rebuild();
    });

    it('never tries the banner of a request blocked as IVT: one request, blocked, no opportunity, no demand asked', async () => {
      const calls = bidders.requestsOf('/answer/late').length;
      expect(await bidsOf(ids.blocked!.uid, request({ video, banner: mpu }, randomUUID(), BOT))).toEqual([]);
      expect(await reasons('blocked')).toEqual({ 'ivt.bot_user_agent': { reqs: 1, opps: 0, ivt: 1 } });
      expect(bidders.requestsOf('/answer/late').length).toBe(calls);
      // the same impression from a person is bid, its video first
      expect(await bidsOf(ids.blocked!.uid, request({ video, banner: mpu }, randomUUID()))).toMatchObject([
        { mtype: 2 },
      ]);
    });
  });
});
