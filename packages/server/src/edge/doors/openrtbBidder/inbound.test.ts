import { describe, expect, it } from 'vitest';
import { type BidRequest, type Imp } from '@adplane/shared';
import { payoutCpm } from '../../demand/money.js';
import { type SnapCreative, type SnapDeal, type SnapSupplier } from '../../snapshot/types.js';
import { bannerAllows, ortbCreativeFits, vastVersionOfImp } from '../../targeting/impFit.js';
import { matchDeals } from './dealMatch.js';
import { channelDemandFloor, demandFloor, grossUp, NEVER, supplierPayout } from './margins.js';
import { CurrencyRates } from '../../ortb/currency.js';
import { readBidRequest } from '../../ortb/bidRequestReader.js';
import { durationFloor, type ImpBid, quantityOf } from './impBid.js';
import { deadlineOf, invalidReason, responseJson, uidOfPath } from './rtbEntry.js';

const creative = (over: Partial<SnapCreative>): SnapCreative => ({
  id: 1,
  tenantId: 1,
  name: 'c',
  advertiserId: 0,
  format: 'display',
  videoSource: 'media',
  mediaFiles: [],
  vastUrl: '',
  duration: 0,
  displayType: 'image',
  imageUrl: '',
  html: '',
  width: 300,
  height: 250,
  clickUrl: '',
  adomain: ['brand.test'],
  iabCategories: ['IAB3-1'],
  ...over,
});

describe('what an impression accepts', () => {
  it('takes a banner in one of the permitted sizes only (format first, then w/h), any when none is stated', () => {
    expect(
      bannerAllows(
        {
          format: [
            { w: 728, h: 90 },
            { w: 300, h: 250 },
          ],
        },
        300,
        250,
      ),
    ).toBe(true);
    expect(bannerAllows({ format: [{ w: 728, h: 90 }] }, 300, 250)).toBe(false);
    expect(bannerAllows({ w: 300, h: 250 }, 300, 250)).toBe(true);
    expect(bannerAllows({ w: 300, h: 250 }, 300, 50)).toBe(false);
    expect(bannerAllows({}, 160, 600)).toBe(true);
    // 2.5's ranges, where no size is stated
    const ranged = { wmin: 200, wmax: 300, hmin: 50, hmax: 100 } as never;
    expect(bannerAllows(ranged, 300, 50)).toBe(true);
    expect(bannerAllows(ranged, 300, 250)).toBe(false);
    expect(bannerAllows(ranged, 728, 90)).toBe(false);
    expect(bannerAllows({ w: 300, h: 250, wmax: 100 } as never, 300, 250)).toBe(true);
  });

  it('refuses a blocked advertiser domain (and its subdomains) and a blocked category (and its subcategories)', () => {
    const imp: Imp = { id: '1', banner: { w: 300, h: 250 } };
    const req = (r: Partial<BidRequest>): BidRequest => ({ id: 'r', imp: [imp], ...r });
    expect(ortbCreativeFits(creative({}), imp, req({}))).toBe(true);
    expect(ortbCreativeFits(creative({ adomain: ['ads.brand.test'] }), imp, req({ badv: ['brand.test'] }))).toBe(false);
    expect(ortbCreativeFits(creative({ adomain: ['notbrand.test'] }), imp, req({ badv: ['brand.test'] }))).toBe(true);
    expect(ortbCreativeFits(creative({}), imp, req({ bcat: ['IAB3'] }))).toBe(false);
    expect(ortbCreativeFits(creative({}), imp, req({ bcat: ['IAB3-11', 'IAB30'] }))).toBe(true);
  });

  it('takes a video in a duration and a mime it plays, a wrapper only where wrappers are taken', () => {
    const spot = creative({
      format: 'video',
      duration: 30,
      mediaFiles: [{ url: 'u', mime: 'video/mp4', duration: 30, width: 640, height: 360, bitrate: 0 }],
    });
    const video = (v: Imp['video']): Imp => ({ id: '1', video: v });
    const req: BidRequest = { id: 'r', imp: [] };
    expect(ortbCreativeFits(spot, video({ mimes: ['video/MP4'], maxduration: 30 }), req)).toBe(true);
    expect(ortbCreativeFits(spot, video({ mimes: ['video/webm'] }), req)).toBe(false);
    expect(ortbCreativeFits(spot, video({ maxduration: 15 }), req)).toBe(false);
    expect(ortbCreativeFits(spot, video({ rqddurs: [15, 20] }), req)).toBe(false);
    const wrapper = creative({ format: 'video', videoSource: 'vast', vastUrl: 'https://x.test/vast' });
    expect(ortbCreativeFits(wrapper, video({ protocols: [2, 3] }), req)).toBe(false);
    expect(ortbCreativeFits(wrapper, video({ protocols: [3, 6] }), req)).toBe(true);
    expect(ortbCreativeFits(spot, { id: '1', banner: {} }, req)).toBe(false);
  });

  it('answers in the highest VAST version the impression takes', () => {
    expect(vastVersionOfImp({ protocols: [2, 3] })).toBe('3.0');
    expect(vastVersionOfImp({ protocols: [2, 7, 5] })).toBe('4.0');
    expect(vastVersionOfImp({ protocols: [13, 16] })).toBe('4.2');
    expect(vastVersionOfImp({ protocol: 6 })).toBe('3.0');
    expect(vastVersionOfImp({ protocols: [1, 9] })).toBeNull();
    expect(vastVersionOfImp({})).toBeNull();
  });
});

describe('margins', () => {
  it('grosses a floor up to the lowest demand price whose payout reaches it', () => {
    for (const margin of [0, 15, 20, 22.5, 33.3, 99]) {
      for (const floor of [1, 30_000, 2_500_000, 3_000_001, 17_777_777]) {
        const gross = demandFloor(floor, margin);
        const payout = supplierPayout(margin);
        expect(payoutCpm(payout, gross)).toBeGreaterThanOrEqual(floor);
        expect(payoutCpm(payout, gross - 1)).toBeLessThan(floor);
      }
    }
    expect(grossUp(0, 80)).toBe(0);
    expect(demandFloor(1, 100)).toBe(NEVER);
    expect(channelDemandFloor({ type: 'cpm', cpm: 2_000_000 }, 1_500_000)).toBe(0);
    expect(channelDemandFloor({ type: 'cpm', cpm: 1_000_000 }, 1_500_000)).toBe(NEVER);
    expect(channelDemandFloor({ type: 'revshare', percent: 70 }, 700_000)).toBe(1_000_000);
  });
});

describe('deal matching', () => {
  const supplier: SnapSupplier = {
    id: 7,
    uid: 's',
    tenantId: 3,
    name: 'S',
    serving: true,
    qpsLimit: 'unlimited',
    marginPercent: 20,
    formats: ['display'],
    targeting: null,
    userSyncUrl: '',
  };
  const deal = (over: Partial<SnapDeal>): SnapDeal => ({
    id: 1,
    tenantId: 3,
    name: 'd',
    dealId: 'D1',
    floorCpm: 2_000_000,
    auctionType: 1,
    buyerSeats: [],
    supplierIds: [],
    start: -Infinity,
    end: Infinity,
    ...over,
  });
  const imp = (deals: object[]): Imp => ({ id: '1', banner: {}, pmp: { deals: deals as never } });
  const match = (ours: SnapDeal, asked: object[], request: Partial<BidRequest> = {}, now = 1000) =>
    matchDeals({ id: 'r', imp: [], ...request }, imp(asked), new Map([[ours.dealId, ours]]), supplier, now);

  it('matches by id, with the higher floor and our margin on top for the auction', () => {
    const [m] = match(deal({}), [{ id: 'D1', bidfloor: 2.5 }]);
    expect(m).toMatchObject({ supplierFloorCpm: 2_500_000, fixed: false, seat: '3' });
    expect(m!.offered.floorCpm).toBe(3_125_000);
    expect(match(deal({}), [{ id: 'D2' }])).toEqual([]);
  });

  it('keeps dates, suppliers, currency and seats', () => {
    expect(match(deal({ end: 1000 }), [{ id: 'D1' }])).toEqual([]);
    expect(match(deal({ start: 2000 }), [{ id: 'D1' }])).toEqual([]);
    expect(match(deal({ supplierIds: [8] }), [{ id: 'D1' }])).toEqual([]);
    expect(match(deal({ supplierIds: [8, 7] }), [{ id: 'D1' }])).toHaveLength(1);
    expect(match(deal({}), [{ id: 'D1', bidfloor: 1, bidfloorcur: 'EUR' }])).toEqual([]);
    // no floor: its currency, even one without a rate, asks nothing
    expect(match(deal({}), [{ id: 'D1', bidfloorcur: 'EUR' }])).toHaveLength(1);
    expect(match(deal({ buyerSeats: ['A'] }), [{ id: 'D1', wseat: ['B'] }])).toEqual([]);
    expect(match(deal({ buyerSeats: ['A', 'B'] }), [{ id: 'D1', wseat: ['B'] }])[0]!.seat).toBe('B');
    expect(match(deal({}), [{ id: 'D1', wseat: ['3'] }])[0]!.seat).toBe('3');
    expect(match(deal({ buyerSeats: ['A'] }), [{ id: 'D1' }], { wseat: ['Z'] })).toEqual([]);
  });

  it("is fixed at the floor for our auction type 3 or the request deal's at 3", () => {
    expect(match(deal({ auctionType: 3 }), [{ id: 'D1' }])[0]).toMatchObject({
      fixed: true,
      supplierFloorCpm: 2_000_000,
    });
    expect(match(deal({}), [{ id: 'D1', at: 3, bidfloor: 4 }])[0]).toMatchObject({
      fixed: true,
      supplierFloorCpm: 4_000_000,
    });
    expect(match(deal({}), [{ id: 'D1', at: 3, bidfloor: 4 }])[0]!.offered.auctionType).toBe(3);
  });

  it("offers the deal's floor per second (its mincpmpersec, else the video's when it states no floor) with our margin on top; none at a fixed price", () => {
    const videoImp = (video: object, deals: object[]): Imp => ({ id: '1', video, pmp: { deals: deals as never } });
    const offered = (video: object, asked: object[], ours = deal({})) =>
      matchDeals({ id: 'r', imp: [] }, videoImp(video, asked), new Map([[ours.dealId, ours]]), supplier, 1000)[0]
        ?.offered;
    expect(offered({}, [{ id: 'D1', mincpmpersec: 0.4 }])!.floorPerSecondCpm).toBe(500_000);
    expect(offered({ mincpmpersec: 0.2 }, [{ id: 'D1' }])!.floorPerSecondCpm).toBe(250_000);
    // a deal stating a floor of its own is not held to the video's floor per second (guide 7.11.2)
    expect(offered({ mincpmpersec: 0.2 }, [{ id: 'D1', bidfloor: 1 }])!.floorPerSecondCpm).toBeUndefined();
    expect(offered({ mincpmpersec: 0.2 }, [{ id: 'D1', mincpmpersec: 0.4 }])!.floorPerSecondCpm).toBe(500_000);
    expect(offered({}, [{ id: 'D1' }])!.floorPerSecondCpm).toBeUndefined();
    expect(offered({ mincpmpersec: 0.2 }, [{ id: 'D1', at: 3 }])!.floorPerSecondCpm).toBeUndefined();
  });
});

describe('the entry point', () => {
  it('keeps a tenth of tmax (5 to 50 ms) for the way back, 300 ms when none is stated, 1 s at most', () => {
    expect(deadlineOf(0, 120)).toBe(108);
    expect(deadlineOf(0, 30)).toBe(25);
    expect(deadlineOf(0, undefined)).toBe(270);
    expect(deadlineOf(0, 5000)).toBe(950);
  });

  it('counts a malformed field without its indexes', () => {
    expect(invalidReason('imp[3].pmp.deals[12].id')).toBe('invalid_request.imp.pmp.deals.id');
    expect(invalidReason('')).toBe('invalid_request.body');
  });
});

describe('the bid response', () => {
  it("is the bids by seat as JSON, each adm spliced in escaped, bidid the first bid's id", () => {
    const vast = '<VAST version="4.2"><Ad id="a"><![CDATA[Crème "brûlée" \\ \u2028]]></Ad></VAST>\n';
    const impBid = (seat: string, id: string, adm: string): ImpBid => ({
      seat,
      bid: { id, impid: `i${id}`, price: 1.5, crid: 'c"1', adomain: ['brand.test'], mtype: 2 },
      admJson: JSON.stringify(adm).slice(1, -1),
      ivt: null,
    });
    const a = impBid('s1', 'b1', vast);
    const b = impBid('s2', 'b2', '<div class="x">banner</div>');
    const c = impBid('s1', 'b3', vast);
    const json = responseJson(
      'req "1"',
      new Map([
        ['s1', [a, c]],
        ['s2', [b]],
      ]),
    );
    expect(JSON.parse(json)).toEqual({
      id: 'req "1"',
      seatbid: [
        {
          seat: 's1',
          bid: [
            { ...a.bid, adm: vast },
            { ...c.bid, adm: vast },
          ],
        },
        { seat: 's2', bid: [{ ...b.bid, adm: '<div class="x">banner</div>' }] },
      ],
      bidid: 'b1',
      cur: 'USD',
    });
  });
});

describe('what exchanges write, read as the spec means it', () => {
  it('reads null as absent and numbers written as strings as numbers, in place', () => {
    const body = {
      id: 'r',
      tmax: '250',
      at: '1',
      test: true,
      cur: 'EUR',
      site: null,
      app: { bundle: 'x' },
      ext: [],
      device: { devicetype: '3' },
      imp: [
        {
          id: '1',
          banner: null,
          native: null,
          ext: 'x',
          bidfloor: '0.5',
          bidfloorcur: '',
          video: { w: '640', h: '480', protocols: ['2', 3], mimes: null },
          pmp: { private_auction: '1', deals: [{ id: 'D', bidfloor: '2', bidfloorcur: null, at: '3' }] },
        },
      ],
    };
    const read = readBidRequest(body);
    expect(read.ok).toBe(true);
    expect(body).toEqual({
      id: 'r',
      tmax: 250,
      at: 1,
      test: 1,
      cur: ['EUR'],
      app: { bundle: 'x' },
      device: { devicetype: 3 },
      imp: [
        {
          id: '1',
          bidfloor: 0.5,
          video: { w: 640, h: 480, protocols: [2, 3] },
          pmp: { private_auction: 1, deals: [{ id: 'D', bidfloor: 2, at: 3 }] },
        },
      ],
    });
    // what is no number stays refused
    expect(readBidRequest({ id: 'r', imp: [{ id: '1', bidfloor: 'free' }] })).toMatchObject({
      ok: false,
      field: 'imp[0].bidfloor',
    });
    expect(readBidRequest({ id: 'r', imp: [{ id: '1', bidfloor: '-1' }] })).toMatchObject({
      ok: false,
      field: 'imp[0].bidfloor',
    });
  });

  it('reads ids written as numbers as their text, flags written as booleans as 1/0, rqddurs written as strings as numbers', () => {
    const body = {
      id: 90817,
      test: false,
      imp: [
        { id: 1, video: { rqddurs: ['15', 30] }, pmp: { private_auction: true, deals: [{ id: 448812, bidfloor: 2 }] } },
        { id: '2', banner: {}, pmp: { private_auction: false } },
      ],
    };
    expect(readBidRequest(body).ok).toBe(true);
    expect(body).toEqual({
      id: '90817',
      test: 0,
      imp: [
        { id: '1', video: { rqddurs: [15, 30] }, pmp: { private_auction: 1, deals: [{ id: '448812', bidfloor: 2 }] } },
        { id: '2', banner: {}, pmp: { private_auction: 0 } },
      ],
    });
    // a number that is no whole id, or a duplicate once read as text, is still refused
    expect(readBidRequest({ id: 1.5, imp: [{ id: '1' }] })).toMatchObject({ ok: false, field: 'id' });
    expect(readBidRequest({ id: 'r', imp: [{ id: 1 }, { id: '1' }] })).toMatchObject({ ok: false, field: 'imp[1].id' });
    expect(readBidRequest({ id: 'r', imp: [{ id: '1', video: { rqddurs: ['15s'] } }] })).toMatchObject({
      ok: false,
      field: 'imp[0].video.rqddurs',
    });
    expect(readBidRequest({ id: 'r', imp: [{ id: '1', pmp: { private_auction: 'yes' } }] })).toMatchObject({
      ok: false,
      field: 'imp[0].pmp.private_auction',
    });
  });

  it('reads an empty currency code as none named (USD, the default)', () => {
    const empty = { id: 'r', cur: '', imp: [{ id: '1' }] };
    expect(readBidRequest(empty).ok).toBe(true);
    expect(empty).toEqual({ id: 'r', imp: [{ id: '1' }] });
    const mixed = { id: 'r', cur: ['', 'EUR'], imp: [{ id: '1' }] };
    expect(readBidRequest(mixed).ok).toBe(true);
    expect(mixed.cur).toEqual(['EUR']);
  });

  it("reads the uid of an entry point's path without one trailing slash", () => {
    expect(uidOfPath('954109aa7af756c9')).toBe('954109aa7af756c9');
    expect(uidOfPath('954109aa7af756c9/')).toBe('954109aa7af756c9');
    expect(uidOfPath('')).toBe('');
  });

  it('reads imp.qty.multiplier, 1 when absent or not a positive number', () => {
    expect(quantityOf({ id: '1', qty: { multiplier: 14.2 } })).toBe(14.2);
    expect(quantityOf({ id: '1' })).toBe(1);
    expect(quantityOf({ id: '1', qty: { multiplier: -2 } })).toBe(1);
    expect(quantityOf({ id: '1', qty: 'x' as never })).toBe(1);
  });

  it('takes the highest durfloors range holding the length, 0 outside them, null for a currency without a rate', () => {
    const ranges = [
      { maxdur: 15, bidfloor: 2 },
      { mindur: 10, maxdur: 30, bidfloor: 5 },
      { mindur: 31, bidfloor: 9 },
      { bidfloor: 100 },
      'junk',
    ];
    expect(durationFloor(ranges, 6, undefined, undefined)).toBe(2_000_000);
    expect(durationFloor(ranges, 15, undefined, undefined)).toBe(5_000_000);
    expect(durationFloor(ranges, 45, undefined, undefined)).toBe(9_000_000);
    expect(durationFloor([{ mindur: 31, bidfloor: 9 }], 20, undefined, undefined)).toBe(0);
    expect(durationFloor(ranges, 6, 'JPY', CurrencyRates.USD_ONLY)).toBeNull();
    expect(durationFloor(ranges, 6, 'EUR', new CurrencyRates({ EUR: { USD: 1.1 } }))).toBe(2_200_000);
  });
});
