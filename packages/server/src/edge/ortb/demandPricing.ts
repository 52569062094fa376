import { type Price } from '@adplane/shared';

/**
 * How what a programmatic demand bids becomes what adplane earns, and back (the floor we tell it,
 * the clearing price its notices carry, both in its own terms):
 * - `bid`: the bid is the price (ad exchanges; RTB and Prebid tags whose price is CPM 0, the default);
 * - `share`: we earn `percent` of the bid (a revshare tag, as a VAST tag earns a share of <Pricing>);
 * - `fixed`: we earn the tag's CPM whatever the bid (a negotiated rate); the bid only says "I want it",
 *   and its notices carry its own bid as the price it pays.
 */
export type DemandPricing = { kind: 'bid' } | { kind: 'share'; percent: number } | { kind: 'fixed'; cpm: number };

export const BID_PRICE: DemandPricing = { kind: 'bid' };

export function pricingOfTag(price: Price): DemandPricing {
  if (price.type === 'revshare') return { kind: 'share', percent: price.percent };
  return price.cpm > 0 ? { kind: 'fixed', cpm: price.cpm } : BID_PRICE;
}

/** What we earn from a bid of `bidCpm`, micro-dollars CPM. */
export function ourPrice(p: DemandPricing, bidCpm: number): number {
  if (p.kind === 'fixed') return p.cpm;
  if (p.kind === 'share') return Math.floor((bidCpm * p.percent) / 100);
  return bidCpm;
}

/** A price of ours (a floor, a price to beat) in the demand's terms: the least bid that earns it. */
export function demandTerms(p: DemandPricing, oursCpm: number): number {
  if (p.kind === 'share') return p.percent > 0 ? Math.ceil((oursCpm * 100) / p.percent) : 0;
  return oursCpm;
}

/** The price the demand pays when it wins at our clearing price (never more than it bid). */
export function demandClearing(p: DemandPricing, clearingCpm: number, bidCpm: number): number {
  if (p.kind === 'fixed') return bidCpm;
  return Math.min(bidCpm, demandTerms(p, clearingCpm));
}
