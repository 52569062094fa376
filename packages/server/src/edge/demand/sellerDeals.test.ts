import { describe, expect, it } from 'vitest';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';
import { type RequestContext } from '../request/context.js';
import { type SnapSupplyDeal } from '../snapshot/types.js';
import { type Bid } from './demandSource.js';
import { anyPrivate, dealsForTag, dealsInForce, sellerDealRefusal } from './sellerDeals.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29, 12);

function deal(dealId: string, terms: Partial<SnapSupplyDeal> = {}): SnapSupplyDeal {
  return {
    id: 1,
    tenantId: 1,
    name: dealId,
    dealId,
    floorCpm: 5_000_000,
    auctionType: 1,
    buyerSeats: [],
    supplierIds: [],
    start: -Infinity,
    end: Infinity,
    privateAuction: false,
    advertiserDomains: [],
    tagIds: [],
    targeting: null,
    impCap: 'unlimited',
    dailyImpCap: 'unlimited',
    timezone: 0,
    ...terms,
  };
}

/** A programmatic bid as openrtbCall.ts makes it: the fields the deal's terms read. */
function bid(dealId: string, seat: string, adomain: string[]): Bid {
  return {
    priceCpm: 9_000_000,
    fixedPrice: false,
    markup: { kind: 'ortb', seat, adomain } as unknown as OrtbMarkup,
    tagId: 7,
    campaignId: 0,
    creativeId: 0,
    advertiserId: 0,
    ...(dealId && { dealId }),
  };
}

describe('deals for buyers', () => {
  it('are in force inside their flight only', () => {
    const ctx = { now: NOW } as RequestContext;
    const deals = [deal('NOW'), deal('LATER', { start: NOW + DAY }), deal('OVER', { end: NOW })];
    expect(dealsInForce(deals, ctx).map((d) => d.dealId)).toEqual(['NOW']);
    expect(dealsInForce(undefined, ctx)).toEqual([]);
  });

  it('go to the tags they name, or to every tag when they name none', () => {
    const deals = [deal('ALL'), deal('SEVEN', { tagIds: [7] }), deal('EIGHT', { tagIds: [8] })];
    expect(dealsForTag(deals, 7).map((d) => d.dealId)).toEqual(['ALL', 'SEVEN']);
    expect(anyPrivate(deals)).toBe(false);
    expect(anyPrivate([...deals, deal('PMP', { privateAuction: true })])).toBe(true);
  });

  it("hold a bid to the deal's seats and advertiser domains (a subdomain of one too)", () => {
    const offered = [deal('D1', { buyerSeats: ['seat-a'], advertiserDomains: ['brand.example'] })];
    expect(sellerDealRefusal(bid('D1', 'seat-a', ['brand.example']), offered, false)).toBeNull();
    expect(sellerDealRefusal(bid('D1', 'seat-a', ['shop.brand.example']), offered, false)).toBeNull();
    expect(sellerDealRefusal(bid('D1', 'seat-b', ['brand.example']), offered, false)).toBe('deal_seat_not_allowed');
    expect(sellerDealRefusal(bid('D1', 'seat-a', ['other.example']), offered, false)).toBe('deal_adomain_not_allowed');
    expect(sellerDealRefusal(bid('D1', 'seat-a', ['brand.example', 'other.example']), offered, false)).toBe(
      'deal_adomain_not_allowed',
    );
    // (an advertiser the bid does not state cannot be one the deal allows)
    expect(sellerDealRefusal(bid('D1', 'seat-a', []), offered, false)).toBe('deal_adomain_not_allowed');
    // (a look-alike domain is not a subdomain)
    expect(sellerDealRefusal(bid('D1', 'seat-a', ['notbrand.example']), offered, false)).toBe(
      'deal_adomain_not_allowed',
    );
  });

  it('refuse a deal not offered, and an open bid in a private auction', () => {
    const offered = [deal('D1')];
    expect(sellerDealRefusal(bid('D2', 'seat-a', ['brand.example']), offered, false)).toBe('deal_not_offered');
    expect(sellerDealRefusal(bid('', 'seat-a', ['brand.example']), offered, true)).toBe('private_auction');
    expect(sellerDealRefusal(bid('', 'seat-a', ['brand.example']), offered, false)).toBeNull();
  });
});
