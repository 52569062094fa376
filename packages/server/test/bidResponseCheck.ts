import { type Bid, type BidRequest, type BidResponse, type Imp } from '@adplane/shared';
import { expect } from 'vitest';
import { schemaErrors } from './vastSchema.js';

/**
 * What OpenRTB 2.6 section 4 asks of adplane's answer to a bid request, every bid checked: the one
 * check of inboundRtb.test.ts (the spec's examples) and inboundExchanges.test.ts (exchanges' shapes).
 */
export interface ResponseCheckOptions {
  /** A floor's price in `from` as `to` (codes in upper case); default: the price as written. */
  convert?: (price: number, from: string, to: string) => number;
  /** A test's own checks of each bid, beside the impression it bids on. */
  eachBid?: (bid: Bid, imp: Imp) => void;
}

/** A number as the request wrote it (exchanges quote some). */
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : 0);

/** A currency code as the request wrote it; none (or empty) is USD. */
const currencyOf = (v: unknown): string => (typeof v === 'string' && v ? v.toUpperCase() : 'USD');

/** The sizes a banner impression permits (format[], else w/h; numbers as the request wrote them). */
export function permittedSizes(imp: Imp): string[] {
  const sizes = (imp.banner?.format ?? []).map((f) => `${num(f.w)}x${num(f.h)}`);
  if (imp.banner?.w && imp.banner.h) sizes.push(`${num(imp.banner.w)}x${num(imp.banner.h)}`);
  return sizes;
}

/** The response's bids, each checked against the request. */
export function checkBidResponse(
  request: BidRequest,
  response: BidResponse,
  { convert = (price) => price, eachBid }: ResponseCheckOptions = {},
): Bid[] {
  expect(response.id).toBe(request.id);
  const cur = response.cur ?? 'USD';
  if (Array.isArray(request.cur) && request.cur.length) expect(request.cur.map((c) => c.toUpperCase())).toContain(cur);
  else expect(cur).toBe('USD');
  expect(Array.isArray(response.seatbid) && response.seatbid.length).toBeTruthy();
  const bids: Bid[] = [];
  for (const seat of response.seatbid!) {
    expect(typeof seat.seat).toBe('string');
    expect(seat.seat!.length).toBeGreaterThan(0);
    expect(seat.bid.length).toBeGreaterThan(0);
    for (const bid of seat.bid) {
      bids.push(bid);
      const imp = request.imp.find((i) => i.id === bid.impid);
      expect(imp, `impid ${bid.impid} names an imp of the request`).toBeDefined();
      expect(typeof bid.id).toBe('string');
      expect(bid.id.length).toBeGreaterThan(0);
      expect(typeof bid.price).toBe('number');
      expect(bid.price).toBeGreaterThan(0);
      // the floor, in its currency, as the answer's currency
      expect(bid.price).toBeGreaterThanOrEqual(convert(num(imp!.bidfloor), currencyOf(imp!.bidfloorcur), cur) - 1e-6);
      expect(typeof bid.adm === 'string' || typeof bid.nurl === 'string').toBe(true);
      expect(typeof bid.crid).toBe('string');
      expect(bid.adomain!.length).toBeGreaterThan(0);
      for (const d of bid.adomain!) expect(request.badv ?? []).not.toContain(d);
      for (const c of bid.cat ?? [])
        expect((request.bcat ?? []).some((b) => c === b || c.startsWith(`${b}-`))).toBe(false);
      if (bid.dealid) {
        const deal = imp!.pmp?.deals?.find((d) => d.id === bid.dealid);
        expect(deal, `dealid ${bid.dealid} names a deal of the imp`).toBeDefined();
        expect(bid.price).toBeGreaterThanOrEqual(
          convert(num(deal!.bidfloor), currencyOf(deal!.bidfloorcur), cur) - 1e-6,
        );
      } else expect(imp!.pmp?.private_auction ?? 0).toBe(0);
      // mtype (2.6): 1 banner, 2 video, of a media the impression offers
      expect([1, 2]).toContain(bid.mtype);
      if (bid.mtype === 2) {
        expect(imp!.video).toBeTruthy();
        const version =
          bid.protocol === 2
            ? '2.0'
            : bid.protocol === 3
              ? '3.0'
              : bid.protocol === 7
                ? '4.0'
                : bid.protocol === 11
                  ? '4.1'
                  : '4.2';
        if (imp!.video!.protocols) expect(imp!.video!.protocols).toContain(bid.protocol);
        expect(bid.adm).toContain(`<VAST version="${version}"`);
        expect(schemaErrors(version, bid.adm!)).toBe('');
        if (imp!.video!.w && imp!.video!.h) expect([bid.w, bid.h]).toEqual([num(imp!.video!.w), num(imp!.video!.h)]);
      } else {
        expect(imp!.banner).toBeTruthy();
        const sizes = permittedSizes(imp!);
        if (sizes.length) expect(sizes).toContain(`${bid.w}x${bid.h}`);
        expect(bid.w! > 0 && bid.h! > 0).toBe(true);
      }
      eachBid?.(bid, imp!);
    }
  }
  expect(new Set(bids.map((b) => b.id)).size).toBe(bids.length);
  return bids;
}
