import { type Winner } from './runAuction.js';
import { type SourceFate } from '@adplane/shared';
import { offersOf, type OrtbBid } from '../demand/offers.js';
import { type RequestContext } from '../request/context.js';
import { type TokenSigner } from '../tracking/trackingToken.js';
import { fillAuctionMacros, type MacroValues, usdCpmText } from '../ortb/auctionMacros.js';
import { demandClearing, demandTerms } from '../ortb/demandPricing.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';

/**
 * The notices adplane owes programmatic demand once its auction is decided (OpenRTB 2.6 sections
 * 4.2.3 and 4.4), with the auction macros filled:
 * - nurl, the win notice: fired when our auction picks the bid, fire-and-forget, never delaying the
 *   answer. Markup served on the win notice is fetched by the player (our VAST Wrapper) or the
 *   browser (an iframe): that fetch is the notice, we fire nothing more. When our decision is itself a
 *   bid into someone else's auction (an inbound OpenRTB request, the Prebid Server auction: the
 *   context carries `ortb`), picking the bid is not winning: the demand's win notice then rides in our
 *   impression URL like the billing notice and is fired once, when /ev counts the impression (the
 *   proof that our bid won and rendered), never for a bid of ours that lost upstream.
 * - burl, the billing notice: fired by our own server when /ev counts the impression, the moment we
 *   book the revenue (the spec's best practice: server-side, as close as possible to where revenue is
 *   booked; for VAST that is the impression event). The burl rides in our impression URL, signed
 *   with the tracking token (stateless: any edge process can fire it), and is fired once, when the
 *   impression counts (a replayed impression bills nothing), with `${AUCTION_IMP_TS}` the event's time.
 * - lurl, the loss notice: fired for bids that lost (to a higher bid, 102), fell below the floor
 *   (100; a deal's floor, 101) or were refused for what their ad is (advertiser 205, category 209,
 *   attribute 210, media type 204, length 200) or for what the bid is (the wrong media type 204, no
 *   markup 7, an unreadable VAST in adm 3, a deal not offered or none in a private auction 4, a seat
 *   a deal for buyers does not allow 5, an advertiser domain it does not allow 205), with
 *   `${AUCTION_MIN_TO_WIN}` (empty for a refused bid: no price would have won) and `${AUCTION_LOSS}`.
 * A test decision ("Test this tag") fires nothing and bills nothing: its token is marked test, and /ev
 * fires no billing notice for it either.
 */
const LOSS_REASON = {
  won: 0,
  invalidBidResponse: 3,
  invalidDealId: 4,
  invalidSeatId: 5,
  missingMarkup: 7,
  belowAuctionFloor: 100,
  belowDealFloor: 101,
  lostToHigherBid: 102,
  // "Creative Filtered" (OpenRTB 3.0's loss reason list, which 2.6's ${AUCTION_LOSS} refers to)
  creativeFiltered: 200,
  incorrectCreativeFormat: 204,
  advertiserExclusions: 205,
  categoryExclusions: 209,
  attributeExclusions: 210,
} as const;

/**
 * A bid refused for what it is: its loss reason. For what its ad is (impFit.ts demandAdRefusal, and
 * the bid's own adomain and cat: ortb/bidResponseReader.ts), and for what the bid is (the reader:
 * the wrong media type, no markup, an unreadable VAST in adm, a deal we did not offer, no deal in a
 * private auction).
 */
const REFUSED: Readonly<Record<string, number>> = {
  blocked_adomain: LOSS_REASON.advertiserExclusions,
  blocked_category: LOSS_REASON.categoryExclusions,
  blocked_attribute: LOSS_REASON.attributeExclusions,
  mime_not_allowed: LOSS_REASON.incorrectCreativeFormat,
  duration_not_allowed: LOSS_REASON.creativeFiltered,
  // an advertiser, or the very video, an ad pod's earlier slot already has (decision/adPod.ts)
  pod_separation: LOSS_REASON.advertiserExclusions,
  pod_repeat: LOSS_REASON.creativeFiltered,
  wrong_media: LOSS_REASON.incorrectCreativeFormat,
  no_markup: LOSS_REASON.missingMarkup,
  deal_not_offered: LOSS_REASON.invalidDealId,
  private_auction: LOSS_REASON.invalidDealId,
  // a bid on one of our deals for buyers outside its terms (demand/sellerDeals.ts)
  deal_seat_not_allowed: LOSS_REASON.invalidSeatId,
  deal_adomain_not_allowed: LOSS_REASON.advertiserExclusions,
};
const refusalLoss = (reason: string): number | null =>
  REFUSED[reason] ?? (reason.startsWith('bad_adm_') ? LOSS_REASON.invalidBidResponse : null);

export interface Settlement {
  /** A "Test this tag" decision: no notice fired, no billing attached. */
  test: boolean;
  token: string | null;
  signer: TokenSigner;
  /** Fires a notice URL (the HTTP caller's fire-and-forget GET); absent: none fired. */
  notify?: (url: string) => void;
  /**
   * Our answer is a bid into another auction (inbound OpenRTB, Prebid): the winner's win notice waits
   * for our impression (see above). Default: the context says so (`ctx.ortb`).
   */
  upstreamAuction?: boolean;
}

const KEEP_IMP_TS: ReadonlySet<string> = new Set(['AUCTION_IMP_TS']);

function baseMacros(m: OrtbMarkup): MacroValues {
  return {
    AUCTION_ID: m.requestId,
    AUCTION_BID_ID: m.bidId,
    AUCTION_IMP_ID: m.impId,
    AUCTION_SEAT_ID: m.seat,
    AUCTION_AD_ID: m.adid,
    AUCTION_CURRENCY: m.currency ?? 'USD',
  };
}

/** A price of the demand's (micro-dollars CPM) as its notices state it: in the currency it bid in. */
const priceText = (m: OrtbMarkup, micros: number): string => usdCpmText(micros / (m.usdPerUnit ?? 1));

const ratio = (a: number, b: number): string => (b > 0 ? String(Math.round((a / b) * 10_000) / 10_000) : '');

function settleWinner(w: Winner, s: Settlement): void {
  const m = w.bid.markup as OrtbMarkup;
  const price = demandClearing(m.pricing, w.clearingCpm, m.bidCpm);
  // 4.4.1: the winner's minimum to win ties the next-closest bid (another bid of its own answer too), never
  // under the floor the auction held it to (a deal's, one per second of the ad: not only the tag's)
  const runnerUp = Math.max(w.runnerUpCpm ?? 0, w.fate.floorCpm ?? w.candidate.floorCpm);
  const macros: MacroValues = {
    ...baseMacros(m),
    AUCTION_PRICE: priceText(m, price),
    AUCTION_MBR: ratio(price, m.bidCpm),
    AUCTION_MIN_TO_WIN:
      m.pricing.kind === 'fixed' ? '' : priceText(m, Math.min(m.bidCpm, demandTerms(m.pricing, runnerUp))),
    AUCTION_LOSS: String(LOSS_REASON.won),
  };
  let billingQuery = '';
  if (!s.test && m.burl && s.token) {
    const burl = fillAuctionMacros(m.burl, macros, KEEP_IMP_TS);
    billingQuery = `&b=${encodeURIComponent(burl)}&bs=${s.signer.attach(s.token, burl)}`;
  }
  // markup served on the win notice: the player's (or browser's) fetch of the nurl is the notice
  if (!s.test && m.adm && m.nurl) {
    if (!s.upstreamAuction) s.notify?.(fillAuctionMacros(m.nurl, macros));
    else if (s.token) {
      // fired by /ev when the impression counts: ${AUCTION_IMP_TS} is that moment, filled then (deferredWinNotice)
      const nurl = fillAuctionMacros(m.nurl, macros, KEEP_IMP_TS);
      billingQuery += `&w=${encodeURIComponent(nurl)}&ws=${s.signer.attach(s.token, nurl)}`;
    }
  }
  m.settled = { macros, billingQuery };
}

function lossOf(fate: SourceFate | undefined, bid: OrtbBid, refusal: string | undefined): number | null {
  // (a bid refused beside others of its answer: unless the answer itself came too late)
  if (refusal) return fate && fate.fate !== 'timeout' ? refusalLoss(refusal) : null;
  if (fate?.fate === 'lost') return LOSS_REASON.lostToHigherBid;
  if (fate?.fate === 'no_fill') return refusalLoss(fate.reason ?? '');
  if (fate?.fate === 'below_floor')
    return bid.markup.dealId ? LOSS_REASON.belowDealFloor : LOSS_REASON.belowAuctionFloor;
  return null;
}

/** After the auction: the winner's macros and billing attachment set, its win notice and the losers' loss notices fired. */
export function settleProgrammatic(
  ctx: RequestContext,
  fates: readonly SourceFate[],
  winner: Winner | null,
  s: Settlement,
): void {
  if (winner?.bid.markup.kind === 'ortb')
    settleWinner(winner, { ...s, upstreamAuction: s.upstreamAuction ?? !!ctx.ortb });
  const list = offersOf(ctx);
  if (!list || s.test || !s.notify) return;
  for (const o of list) {
    const m = o.bid.markup;
    if (!m.lurl || o.bid === winner?.bid) continue;
    // one bid of an answer that held several has its own fate (runAuction.ts); else its source's is its
    const fate = o.bid.offerFate ?? fates.find((f) => f.source === o.source && f.id === o.id);
    const loss = lossOf(fate, o.bid, o.refusal);
    if (loss === null) continue;
    // 4.4.1: a loser's minimum to win ties the winner's clearing price; below the floor with no winner, the floor;
    // a bid refused for what it is could not win at any price. Below the floor, never less than the floor that
    // refused it (a deal's, one per second of the ad: the auction's, not the tag's), which the winner may clear under
    const floor = fate?.fate === 'below_floor' ? (fate.floorCpm ?? o.floorCpm) : 0;
    const toWin = winner ? Math.max(winner.clearingCpm, floor) : floor || o.floorCpm;
    const filtered = !!o.refusal || fate?.fate === 'no_fill';
    const macros: MacroValues = {
      ...baseMacros(m),
      AUCTION_LOSS: String(loss),
      AUCTION_MIN_TO_WIN: m.pricing.kind === 'fixed' || filtered ? '' : priceText(m, demandTerms(m.pricing, toWin)),
    };
    s.notify(fillAuctionMacros(m.lurl, macros));
  }
}

/** A notice URL our impression URL carries under `urlKey`, when its signature (`sigKey`) binds it to the token. */
function attachedNotice(
  query: URLSearchParams,
  urlKey: string,
  sigKey: string,
  token: string,
  signer: TokenSigner,
): string | null {
  const url = query.get(urlKey);
  const sig = query.get(sigKey);
  return url && sig && /^https?:\/\//i.test(url) && signer.attached(token, url, sig) ? url : null;
}

/**
 * The billing notice of an impression /ev just counted (first time, not a test): the burl our
 * impression URL carries, when its signature binds it to the token.
 */
export function billingNotice(query: URLSearchParams, token: string, signer: TokenSigner, now: number): string | null {
  const burl = attachedNotice(query, 'b', 'bs', token, signer);
  return burl && fillAuctionMacros(burl, { AUCTION_IMP_TS: String(now) });
}

/**
 * The deferred win notice of an impression /ev just counted (first time, not a test): the nurl of
 * programmatic demand that won our bid into an upstream auction, when its signature binds it to the token.
 */
export function deferredWinNotice(
  query: URLSearchParams,
  token: string,
  signer: TokenSigner,
  now: number,
): string | null {
  const nurl = attachedNotice(query, 'w', 'ws', token, signer);
  return nurl && fillAuctionMacros(nurl, { AUCTION_IMP_TS: String(now) });
}
