import { type BidRequest, type Deal, type Imp, tenantSellerId } from '@adplane/shared';
import { type SnapDeal, type SnapSupplier } from '../../snapshot/types.js';
import { type CurrencyRates, floorMicros } from '../../ortb/currency.js';
import { demandFloor } from './margins.js';

/**
 * The deals of a supplier's impression (imp.pmp.deals, OpenRTB 2.6 section 3.2.11/3.2.12 and
 * implementation note 7.3) matched to the tenant's own deals by deal id. A deal matches when it is
 * live (the snapshot holds live deals only), today is inside its dates, this supplier may send it
 * (its supplier list is empty or names the supplier), its price is in USD, and a seat of ours may buy
 * it: the request deal's `wseat` (else the request's `wseat`), when stated, must hold one of the
 * deal's buyer seats, or our tenant seat.
 *
 * Our seat: a tenant bids under its account id (`tenantSellerId`, the same id sellers.json and the
 * schain nodes use), or under a deal's buyer seat when it buys through that deal.
 *
 * Its terms: the floor is the higher of the request deal's `bidfloor` and our deal's floor; the
 * price is fixed (our deal's auction type 3, or the request deal's `at` 3) at that floor.
 */
export interface DealTerms {
  deal: SnapDeal;
  /** The deal as the auction sees it: the floor grossed up by our margin (demand's money), auction type 3 when fixed. */
  offered: SnapDeal;
  /** What our bid to the supplier must reach, micro-dollars CPM (the price itself when fixed). */
  supplierFloorCpm: number;
  fixed: boolean;
  seat: string;
}

export const tenantSeat = (tenantId: number): string => tenantSellerId(tenantId);

const strings = (v: unknown): readonly string[] | null =>
  Array.isArray(v) && v.length ? v.filter((s): s is string => typeof s === 'string') : null;

/** The seat of ours a deal lets us buy under, given the seats the request allows (null: any). */
function seatFor(deal: SnapDeal, allowed: readonly string[] | null, ourSeat: string): string | null {
  if (!allowed) return deal.buyerSeats[0] ?? ourSeat;
  for (const s of deal.buyerSeats) if (allowed.includes(s)) return s;
  return allowed.includes(ourSeat) ? ourSeat : null;
}

const positive = (v: unknown): number | undefined => (typeof v === 'number' && v > 0 ? v : undefined);

export function matchDeals(
  request: BidRequest,
  imp: Imp,
  tenantDeals: ReadonlyMap<string, SnapDeal> | undefined,
  supplier: SnapSupplier,
  now: number,
  rates?: CurrencyRates,
): DealTerms[] {
  const asked = imp.pmp?.deals;
  if (!tenantDeals || !Array.isArray(asked) || !asked.length) return [];
  const ourSeat = tenantSeat(supplier.tenantId);
  const requestSeats = strings(request.wseat);
  const out: DealTerms[] = [];
  for (const d of asked as Deal[]) {
    const deal = tenantDeals.get(d.id);
    if (!deal || now < deal.start || now >= deal.end) continue;
    if (deal.supplierIds.length && !deal.supplierIds.includes(supplier.id)) continue;
    // (no floor: its currency, even one without a rate, asks nothing)
    const dealFloor = positive(d.bidfloor) ? floorMicros(d.bidfloor, d.bidfloorcur, rates) : 0;
    if (dealFloor === null) continue;
    // a floor per second of the ad (2.6): the deal's own; the video's only for a deal that states no floor at all (guide 7.11.2)
    const perSecond =
      positive(d.mincpmpersec) ?? (positive(d.bidfloor) ? undefined : positive(imp.video?.mincpmpersec));
    const perSecondFloor = perSecond ? floorMicros(perSecond, d.bidfloorcur ?? imp.bidfloorcur, rates) : 0;
    if (perSecondFloor === null) continue;
    const seat = seatFor(deal, strings(d.wseat) ?? requestSeats, ourSeat);
    if (seat === null) continue;
    const supplierFloorCpm = Math.max(deal.floorCpm, dealFloor);
    const fixed = deal.auctionType === 3 || d.at === 3;
    const offered: SnapDeal = {
      ...deal,
      floorCpm: demandFloor(supplierFloorCpm, supplier.marginPercent),
      auctionType: fixed ? 3 : deal.auctionType,
      buyerSeats: [seat],
    };
    // (a fixed price is the price, whatever the length)
    if (perSecondFloor && !fixed) offered.floorPerSecondCpm = demandFloor(perSecondFloor, supplier.marginPercent);
    out.push({ deal, offered, supplierFloorCpm, fixed, seat });
  }
  return out;
}
