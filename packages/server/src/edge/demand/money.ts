import { type Price } from '@adplane/shared';

/**
 * Money of one impression, all integer micro-dollars CPM (per 1000 impressions).
 * - revenue: what the demand pays, the clearing price of the auction;
 * - payout: what the publisher earns, a share of revenue or the channel's fixed CPM;
 * - margin: revenue - payout (negative when a fixed CPM payout exceeds what demand paid).
 */
const ONE_CENT_CPM = 10_000;

export function payoutCpm(payout: Price, revenueCpm: number): number {
  return payout.type === 'cpm' ? payout.cpm : Math.floor((revenueCpm * payout.percent) / 100);
}

/**
 * The clearing price: first price pays the bid; second price pays the runner-up's bid (or the
 * floor when alone) plus one cent, never more than the bid. A fixed-price source (a CPM demand tag)
 * always pays its price: there is nothing to clear.
 */
export function clearingCpm(
  mode: 'first' | 'second',
  bid: number,
  runnerUp: number | null,
  floor: number,
  fixed: boolean,
): number {
  if (fixed || mode === 'first') return bid;
  const base = Math.max(runnerUp ?? 0, floor);
  return Math.min(bid, base + ONE_CENT_CPM);
}

/** What a demand tag earns per 1000 impressions: its CPM, or its share of the price the demand states. */
export function tagRevenueCpm(price: Price, statedCpm: number | null): number | null {
  if (price.type === 'cpm') return price.cpm;
  if (statedCpm === null) return null;
  return Math.floor((statedCpm * price.percent) / 100);
}
