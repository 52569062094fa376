import { type RequestContext } from '../request/context.js';
import { type SnapSupplyDeal } from '../snapshot/types.js';
import { refusal } from '../targeting/compiledTargeting.js';
import { type Bid } from './demandSource.js';

/**
 * Deals for buyers (SSP mode): the channel's supply deals (compiled per channel: snapshot
 * `supplyDeals`) that are in force on a request, the deals each demand tag is offered, and the
 * terms a bid on one must meet, as an exchange holds them (OpenRTB 2.6 sections 3.2.11 and 3.2.12):
 * the deal offered to that demand, a seat its `wseat` allows, advertiser domains its `wadomain`
 * allows. The floor and the price of its auction type are the auction's (auction/runAuction.ts).
 */

const NONE: readonly SnapSupplyDeal[] = [];

/** The deals in force on a request: in their flight now, their targeting (when they have one) met. */
export function dealsInForce(
  deals: readonly SnapSupplyDeal[] | undefined,
  ctx: RequestContext,
): readonly SnapSupplyDeal[] {
  if (!deals) return NONE;
  let out: SnapSupplyDeal[] | null = null;
  for (const d of deals) {
    if (ctx.now < d.start || ctx.now >= d.end) continue;
    if (d.targeting && refusal(d.targeting, ctx)) continue;
    (out ??= []).push(d);
  }
  return out ?? NONE;
}

/** Whether one of them makes the impression private (imp.pmp.private_auction = 1: deal bids only). */
export const anyPrivate = (deals: readonly SnapSupplyDeal[]): boolean => deals.some((d) => d.privateAuction);

/** The deals offered to a demand tag: those naming it, and those naming no tag (every tag of the channel). */
export function dealsForTag(deals: readonly SnapSupplyDeal[], tagId: number): readonly SnapSupplyDeal[] {
  if (!deals.length) return NONE;
  let out: SnapSupplyDeal[] | null = null;
  for (const d of deals) if (!d.tagIds.length || d.tagIds.includes(tagId)) (out ??= []).push(d);
  return out ?? NONE;
}

/** A domain, or a subdomain of it. */
const underDomain = (domain: string, allowed: string): boolean => domain === allowed || domain.endsWith(`.${allowed}`);

/**
 * Why a bid may not compete under the deals a seller offered its demand (null: it may): a bid on
 * no deal in a private auction (`private_auction`), a deal not offered to it (`deal_not_offered`),
 * a seat the deal's `wseat` does not list (`deal_seat_not_allowed`), an advertiser domain its
 * `wadomain` does not allow, or none stated where it lists some (`deal_adomain_not_allowed`).
 */
export function sellerDealRefusal(
  bid: Bid,
  offered: readonly SnapSupplyDeal[],
  privateAuction: boolean,
): string | null {
  if (!bid.dealId) return privateAuction ? 'private_auction' : null;
  const deal = offered.find((d) => d.dealId === bid.dealId);
  if (!deal) return 'deal_not_offered';
  const markup = bid.markup.kind === 'ortb' ? bid.markup : null;
  if (deal.buyerSeats.length && !deal.buyerSeats.includes(markup?.seat ?? '')) return 'deal_seat_not_allowed';
  const allowed = deal.advertiserDomains;
  if (allowed.length) {
    const adomain = markup?.adomain ?? [];
    if (!adomain.length || !adomain.every((d) => allowed.some((a) => underDomain(d, a))))
      return 'deal_adomain_not_allowed';
  }
  return null;
}
