import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Bid, type BidRequest, type BidResponse } from '@adplane/shared';
import { expect, it } from 'vitest';
import { CurrencyRates } from '../src/edge/ortb/currency.js';
import { onSqliteStore } from './helpers.js';
import { checkBidResponse } from './bidResponseCheck.js';
import { dspTenant, expectBid, expectNoBid } from './tenantFixture.js';

/**
 * Bid requests shaped like the ones real exchanges send (test/fixtures/openrtb/exchanges, each
 * one's source in the README beside them) posted to /rtb/<supplier uid> on the real app: never a
 * 5xx; a malformed one a 400 naming the field, counted; one our campaigns can fill a 200 whose
 * bid response is checked field by field against OpenRTB 2.6 section 4; else a 204.
 */
const DIR = fileURLToPath(new URL('./fixtures/openrtb/exchanges/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const fixture = (prefix: string): Record<string, unknown> & BidRequest =>
  JSON.parse(readFileSync(`${DIR}${FILES.find((f) => f.startsWith(prefix))!}`, 'utf8')) as Record<string, unknown> &
    BidRequest;

/** The operator's rates in this app: one USD is 0.9 EUR or 0.8 GBP (no JPY). */
const RATES = new CurrencyRates({ USD: { EUR: 0.9, GBP: 0.8 } });
/** A price in `from` as `to` (the rates above, either way). */
const convert = (price: number, from: string, to: string) => price * RATES.rate(from, to)!;

/** Section 4 (test/bidResponseCheck.ts), floors converted at the app's rates. */
const checkResponse = (request: BidRequest, response: BidResponse): Bid[] =>
  checkBidResponse(request, response, { convert });

onSqliteStore((t) => {
  const dsp = dspTenant(t, async (dsp) => {
    dsp.app.edge.currency.current = RATES;
    await dsp.supplier('supplier', 'Exchange samples', { marginPercent: 20 });
    await dsp.banner('mpu', { size: [300, 250], advertiser: 'brand.test', category: 'IAB3' });
    await dsp.banner('leaderboard', { size: [728, 90], advertiser: 'brand.test', category: 'IAB3' });
    // a size no demo creative has: what the blocking sample blocks is all there is
    await dsp.banner('billboard', { size: [970, 250], advertiser: 'onlyhere.test', category: 'IAB9' });
    await dsp.banner('dealBanner', { size: [300, 250], advertiser: 'agency.test', category: 'IAB3' });
    await dsp.videoSpot('spot', {
      width: 1280,
      height: 720,
      bitrate: 1200,
      advertiser: 'brand.test',
      category: 'IAB2',
    });
    await dsp.deal('exchangeDeal', {
      name: 'Exchange PMP',
      dealId: 'EXCH-PMP-0042',
      floor: 1,
      auctionType: 1,
      buyerSeats: ['ExchangeBuyer7'],
    });
    await dsp.campaign('banners', { bid: 5, creatives: ['mpu', 'leaderboard', 'billboard'] });
    await dsp.campaign('video', { bid: 8, creatives: ['spot'] });
    await dsp.campaign('dealBuyer', {
      bid: 4.5,
      creatives: ['dealBanner'],
      deals: ['exchangeDeal'],
      suppliers: ['supplier'],
    });
  });
  const { ids } = dsp;
  const ours = (crid: string | undefined) => Object.entries(ids).find(([, v]) => String(v.id) === crid)?.[0];

  /** A request from the exchange samples' supplier, at /rtb/<its uid>: never a 5xx. */
  const post = async (body: unknown) => {
    const res = await dsp.postBidRequest(ids.supplier!.uid, body, {}, '/rtb/');
    expect(res.status, 'never a 5xx').toBeLessThan(500);
    return res;
  };
  const bidOn = async (request: BidRequest): Promise<{ response: BidResponse; bids: Bid[] }> => {
    const response = await expectBid(await post(request));
    return { response, bids: checkResponse(request, response) };
  };
  const noBid = async (request: unknown) => expectNoBid(await post(request));
  /** The exchange samples' supplier's requests counted where `where`. */
  const counted = (where: string) => dsp.countedRequests(`supplier_id = ${ids.supplier!.id} AND ${where}`);

  it("has the exchanges' samples as fixtures, each with its source in the README", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
    const readme = readFileSync(`${DIR}README.md`, 'utf8');
    for (const f of FILES) expect(readme).toContain(f);
  });

  it('01 Prebid Server, 2.5 ext spellings (regs.ext.gdpr, user.ext.consent, eids, source.ext.schain), banner format[] only: a bid in one of its sizes', async () => {
    const { bids } = await bidOn(fixture('01'));
    expect(bids).toHaveLength(1);
    expect(['300x250', '300x600']).toContain(`${bids[0]!.w}x${bids[0]!.h}`);
  });

  it('02 three video imps, two private with deals not ours (2.5-era "wseats"): only the open one gets a bid, at or above its floor', async () => {
    const { bids } = await bidOn(fixture('02'));
    expect(bids.map((b) => b.impid)).toEqual(['3']);
    expect(bids[0]).toMatchObject({ mtype: 2, protocol: 3 });
    expect(await counted(`nofill_reason = 'private_auction_no_deal'`)).toBeGreaterThanOrEqual(2);
  });

  it('03 a kitchen-sink request whose wseat names another buyer: 204, counted seat_not_allowed', async () => {
    await noBid(fixture('03'));
    expect(await counted(`nofill_reason = 'seat_not_allowed'`)).toBeGreaterThanOrEqual(2);
  });

  it('03 without its wseat: the banner only in a size within its 2.5 ranges (wmin..wmax, hmin..hmax), the video in VAST 2.0 (protocols [2] over protocol 3)', async () => {
    const open = fixture('03');
    delete open.wseat;
    const res = await post(open);
    expect([200, 204]).toContain(res.status);
    const bids = res.status === 200 ? checkResponse(open, (await res.json()) as BidResponse) : [];
    for (const b of bids.filter((x) => x.impid === 'imp1'))
      expect(b.w! >= 200 && b.w! <= 300 && b.h! >= 50 && b.h! <= 100, `${b.w}x${b.h}`).toBe(true);
    for (const b of bids.filter((x) => x.impid === 'imp2')) expect(b).toMatchObject({ mtype: 2, protocol: 2 });
    expect(bids.some((b) => b.impid === 'imp3')).toBe(false);
  });

  it("a video stating only protocols we write no VAST in (VAST 1.0, DAAST): no bid, counted protocol_not_supported; 2.5's single protocol read the same way", async () => {
    const only1 = fixture('07');
    only1.imp[0]!.video!.protocols = [1];
    await noBid(only1);
    const single = fixture('07');
    single.imp[0]!.video!.protocol = 1;
    await noBid(single);
    expect(await counted(`nofill_reason = 'protocol_not_supported'`)).toBe(2);
    single.imp[0]!.video!.protocol = 3;
    const { bids } = await bidOn(single);
    expect(bids[0]).toMatchObject({ mtype: 2, protocol: 3 });
  });

  it('a body with a UTF-8 byte order mark before its JSON: read as the JSON', async () => {
    const res = await post(`\uFEFF${JSON.stringify(fixture('01'))}`);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('a tmax too small to decide in (1 ms, 5 ms): 200 or 204, never an error', async () => {
    for (const tmax of [1, 5]) expect([200, 204]).toContain((await post({ ...fixture('01'), tmax })).status);
  });

  it('04 null where an object or a number may be (banner, native, pmp, publisher, geo, user, regs.ext, tmax, bcat) reads as absent: the video gets a bid', async () => {
    const { bids } = await bidOn(fixture('04'));
    expect(bids[0]).toMatchObject({ mtype: 2, w: 800, h: 600 });
    expect(bids[0]!.price).toBeGreaterThanOrEqual(1);
  });

  it('05 native only (with an empty pmp.deals): 204, counted unsupported_media', async () => {
    const before = await counted(`nofill_reason = 'unsupported_media'`);
    await noBid(fixture('05'));
    expect(await counted(`nofill_reason = 'unsupported_media'`)).toBe(before + 1);
  });

  it('06 an app on IPv6 alone asking for EUR, its floor in EUR: bid in EUR', async () => {
    const { response, bids } = await bidOn(fixture('06'));
    expect(response.cur).toBe('EUR');
    // our campaign's 5.00 USD less 20%, in EUR
    expect(bids[0]).toMatchObject({ mtype: 1, w: 300, h: 250 });
  });

  it('07 CTV app without a bundle, video with only w/h (no mimes, no protocols): a VAST 4.2 bid of the player size', async () => {
    const { bids } = await bidOn(fixture('07'));
    expect(bids[0]).toMatchObject({ mtype: 2, protocol: 13, w: 1920, h: 1080 });
  });

  it('08 audio only: 204', async () => {
    await noBid(fixture('08'));
  });

  it('09 numbers written as strings (tmax, at, test, bidfloor, banner w/h, format w/h): read as the numbers they are, a 300x250 bid', async () => {
    const { bids } = await bidOn(fixture('09'));
    expect(bids[0]).toMatchObject({ w: 300, h: 250, mtype: 1 });
    expect(bids[0]!.price).toBeGreaterThanOrEqual(0.5);
    // a string that is no number is still refused, naming the field
    const res = await post({ ...fixture('09'), tmax: 'soon' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', field: 'tmax' });
  });

  it('10 badv and bcat blocking the only creative of the size: 204', async () => {
    await noBid(fixture('10'));
    // the same request unblocked gets the billboard
    const { bids } = await bidOn({ ...fixture('10'), badv: [], bcat: [] });
    expect(bids[0]).toMatchObject({
      crid: String(ids.billboard!.id),
      adomain: ['onlyhere.test'],
      cat: ['IAB9'],
      w: 970,
      h: 250,
    });
  });

  it("11 a private auction with a deal of ours among others: a deal bid under the deal's seat", async () => {
    const { response, bids } = await bidOn(fixture('11'));
    expect(response.seatbid![0]!.seat).toBe('ExchangeBuyer7');
    expect(bids[0]).toMatchObject({ dealid: 'EXCH-PMP-0042', crid: String(ids.dealBanner!.id) });
    expect(bids[0]!.price).toBeGreaterThanOrEqual(1.5);
  });

  it('12 test=1, a small tmax, unknown top-level fields, an empty bidfloorcur, ext of other types: a bid', async () => {
    const { bids } = await bidOn(fixture('12'));
    expect(bids[0]).toMatchObject({ w: 728, h: 90, mtype: 1 });
  });

  it('13 DOOH with a quantity multiplier: the bid is per billable event, what one impression earns divided by the multiplier', async () => {
    const { bids } = await bidOn(fixture('13'));
    expect(bids[0]).toMatchObject({ w: 728, h: 90 });
    // 5.00 less 20% for one impression, 14.2 billed
    expect(bids[0]!.price).toBeCloseTo(4 / 14.2, 5);
    // a multiplier that takes the price under the floor: no bid
    const high = fixture('13');
    high.imp[0]!.qty = { multiplier: 100 };
    await noBid(high);
  });

  it('14 video durfloors above what any ad of ours is worth: 204; a range our 15 s ad reaches: a bid', async () => {
    await noBid(fixture('14'));
    const reachable = fixture('14');
    (reachable.imp[0]!.video as Record<string, unknown>).durfloors = [
      { maxdur: 15, bidfloor: 2 },
      { mindur: 16, bidfloor: 60 },
    ];
    const { bids } = await bidOn(reachable);
    expect(bids[0]).toMatchObject({ mtype: 2, crid: String(ids.spot!.id), dur: 15 });
    expect(bids[0]!.price).toBeGreaterThanOrEqual(2);
  });

  it('15 a cur without a rate (JPY): 204, counted currency', async () => {
    const before = await counted(`nofill_reason = 'currency'`);
    await noBid(fixture('15'));
    expect(await counted(`nofill_reason = 'currency'`)).toBe(before + 1);
  });

  it('16 an imp without an id: 400 naming the field, counted', async () => {
    const res = await post(fixture('16'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', field: 'imp[0].id' });
    expect(await counted(`nofill_reason = 'invalid_request.imp.id'`)).toBeGreaterThanOrEqual(1);
  });

  it('17 banner, video and native side by side, second price, cur EUR then USD: banner and video bids in USD', async () => {
    const { response, bids } = await bidOn(fixture('17'));
    expect(response.cur).toBe('USD');
    expect(bids.map((b) => b.impid)).toEqual(['banner-1', 'video-2']);
    expect(bids.map((b) => b.mtype)).toEqual([1, 2]);
    expect(bids[1]!.protocol).toBe(7);
  });

  it('18 a floor in GBP (lower case): held to its value in USD', async () => {
    const { bids } = await bidOn(fixture('18'));
    expect(bids[0]!.price).toBeGreaterThanOrEqual(3 / 0.8);
    // a floor our bid does not reach in GBP: no bid
    const high = fixture('18');
    high.imp[0]!.bidfloor = 3.5;
    await noBid(high);
  });

  it("ids written as numbers (the request's, an imp's, a deal's) and private_auction written as true: read as the spec means them, a deal bid echoing the ids as strings", async () => {
    const request = fixture('11') as unknown as Record<string, unknown> & { imp: Record<string, unknown>[] };
    request.id = 77821;
    request.imp[0]!.id = 1;
    const pmp = request.imp[0]!.pmp as { private_auction: unknown };
    pmp.private_auction = true;
    const response = await expectBid(await post(request));
    expect(response.id).toBe('77821');
    expect(response.seatbid![0]!.bid[0]).toMatchObject({ impid: '1', dealid: 'EXCH-PMP-0042' });
  });

  it('video rqddurs written as strings: read as whole seconds, our 15 s ad bid', async () => {
    const request = fixture('14');
    const video = request.imp[0]!.video as Record<string, unknown>;
    delete video.durfloors;
    video.rqddurs = ['15', '30'];
    const { bids } = await bidOn(request);
    expect(bids[0]).toMatchObject({ mtype: 2, crid: String(ids.spot!.id), dur: 15 });
  });

  it('an endpoint set up with a trailing slash (/rtb/<uid>/, /rtb/bid/<uid>/): the same supplier, a bid', async () => {
    for (const path of ['/rtb/', '/rtb/bid/']) {
      const res = await dsp.postBidRequest(`${ids.supplier!.uid}/`, fixture('01'), {}, path);
      expect(res.status, path).toBe(200);
      checkResponse(fixture('01'), (await res.json()) as BidResponse);
    }
  });

  it('the bids carry what the spec says of our creatives: crid, adomain and cat', async () => {
    const { bids } = await bidOn(fixture('01'));
    for (const b of bids) {
      if (!ours(b.crid)) continue;
      expect(b.cat!.length).toBeGreaterThan(0);
      expect(b.adid).toBe(b.crid);
    }
  });
});
