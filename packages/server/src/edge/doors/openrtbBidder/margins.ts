import { type Price } from '@adplane/shared';

/**
 * Money of an inbound bid request, in one place. The price we bid is what we pay the caller: a
 * supplier gets the winner's clearing price less our margin on that supplier (its `marginPercent`,
 * the synthetic channel's revenue share of 100 - margin, demand/money.ts payoutCpm); an RTB channel's
 * publisher gets the channel's payout (its revenue share, or its fixed CPM). The auction compares
 * demand's prices, so every floor the caller states (imp.bidfloor, a deal's floor) is turned into
 * demand's money first: the lowest demand price whose payout still reaches it.
 *
 * An ad exchange's bid reaches the auction already less that exchange's own margin (what it is
 * worth to us: the outbound demand source applies it), so the supplier's margin is the only one
 * taken here.
 */
export const NEVER = Number.MAX_SAFE_INTEGER;

/** The lowest demand price whose share `keepPercent` reaches `floor` (micro-dollars CPM). */
export function grossUp(floor: number, keepPercent: number): number {
  if (floor <= 0) return 0;
  if (!(keepPercent > 0)) return NEVER;
  // rounding guard: (floor * 100) / keep may land a hair above a whole number
  return Math.ceil((floor * 100) / keepPercent - 1e-9);
}

/** A supplier's floor in demand's money, given our margin on that supplier. */
export const demandFloor = (supplierFloor: number, marginPercent: number): number =>
  grossUp(supplierFloor, 100 - marginPercent);

/**
 * An RTB channel's floor in demand's money for a caller's floor: a revenue share is grossed up; a
 * fixed CPM payout either reaches the floor (no extra floor) or never can (NEVER).
 */
export function channelDemandFloor(payout: Price, callerFloor: number): number {
  if (callerFloor <= 0) return 0;
  if (payout.type === 'cpm') return payout.cpm >= callerFloor ? 0 : NEVER;
  return grossUp(callerFloor, payout.percent);
}

/** The supplier's synthetic channel payout: a revenue share of 100 - our margin. */
export const supplierPayout = (marginPercent: number): Price => ({
  type: 'revshare',
  percent: Math.max(0, 100 - marginPercent),
});
