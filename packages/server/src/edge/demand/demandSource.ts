import { type Clock } from '../../clock.js';
import { type IndexedOutCampaign, type SourceFate } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import {
  type SnapCampaign,
  type SnapChannel,
  type SnapCreative,
  type SnapDeal,
  type Snapshot,
  type SnapSupplier,
  type SnapSupplyDeal,
  type SnapTag,
} from '../snapshot/types.js';
import { type Limit } from '@adplane/shared';
import { type Refusal } from '../../delivery/types.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';
import { type DemandInline } from '../vast/vastAnswer.js';

/**
 * One interface for every kind of demand (as prebid-server's adapters): a source lists the
 * candidates a request may call, after its own eligibility rules (each refusal reported with the
 * rule's name), and each candidate's `call` answers a bid or why not. Our campaigns and VAST demand
 * tags are sources today; OpenRTB exchanges and Prebid partners plug in as more sources.
 */
/**
 * What a demand source asks delivery control on the request path: whether a campaign may buy one more
 * impression, a demand tag or an ad exchange take one more request (null: yes; else the refusal).
 * The decision's gate to delivery control answers it (auction/deliveryGate.ts); the sources see only
 * these three questions.
 */
interface DemandPacing {
  campaignRefusal(campaign: SnapCampaign, cpm: number, ctx: RequestContext): Refusal | null;
  takeTagRequest(tag: SnapTag, timezone: number, now: number): Refusal | null;
  takeExchangeRequest(exchangeId: number, qpsLimit: Limit, now: number): Refusal | null;
}

export interface AuctionRequest {
  /** The edge's clock: deadlines are its readings, and each call's time is measured on it. */
  clock: Clock;
  ctx: RequestContext;
  channel: SnapChannel;
  snapshot: Snapshot;
  pacing: DemandPacing;
  /** Epoch ms by which every answer must be in. */
  deadline: number;
  /** DSP mode: the supplier whose OpenRTB bid request this is (null on a channel's own traffic). */
  supplier: SnapSupplier | null;
  /** The tenant's deals the request offers (imp.pmp.deals matched by deal id, live, in flight, for this supplier). */
  deals: readonly SnapDeal[];
  /**
   * The whole impression may only go to these deals (imp.pmp.private_auction = 1): a supplier's
   * request that says so, or a channel's request a private supply deal is in force on.
   */
  privateAuction: boolean;
  /**
   * SSP mode: the channel's supply deals in force on this request (demand/sellerDeals.ts), offered
   * to the demand tags they name; absent or empty: none.
   */
  sellerDeals?: readonly SnapSupplyDeal[];
  /**
   * OpenRTB 2.6 `video.mincpmpersec` in demand's money (micro-dollars CPM per second; 0: none): an
   * open-auction bid for a video of known length must also reach this times its seconds.
   */
  floorPerSecondCpm?: number;
  /**
   * OpenRTB 2.6 `video.durfloors` in demand's money (doors/openrtbBidder/impBid.ts turns the caller's
   * floors into it; null or absent: none): an open-auction bid for an ad of known length must reach
   * its length's floor (durationFloorOf).
   */
  durationFloors?: readonly DurationFloor[] | null;
  /**
   * Whether the decision's trace was asked for (debug=1, "Test this tag", tests): absent or true.
   * False on the plain VAST entry: a source leaves out the refusals nothing counts (our own
   * campaigns refused one by one), and does not build their reasons.
   */
  traced?: boolean;
}

/** The length of an ad in seconds (0: not known, such as a VAST wrapper of ours, or a banner). */
export function adSeconds(markup: AdMarkup): number {
  if (markup.kind === 'campaign') return markup.creative.format === 'video' ? markup.creative.duration : 0;
  if (markup.kind === 'vast') return markup.ad.duration;
  return markup.vast?.kind === 'inline' ? markup.vast.duration : 0;
}

/**
 * A floor per second of the ad (micro-dollars CPM a second) for an ad of `seconds`, as the caller
 * reckons it from the whole seconds of the bid's `dur` (adMarkup.ts); 0 for an ad of unknown length.
 */
export const lengthFloor = (perSecond: number, seconds: number): number => {
  const whole = Math.round(seconds);
  return whole > 0 ? Math.ceil(perSecond * whole) : 0;
};

/**
 * One range of OpenRTB 2.6 `video.durfloors` (section 3.2.35) as the auction holds it: an ad of
 * `min` to `max` whole seconds (inclusive; an open end is 0 or Infinity) must reach `floorCpm`, in
 * demand's money.
 */
export interface DurationFloor {
  min: number;
  max: number;
  floorCpm: number;
}

/** The floor `floors` set for an ad of `seconds` (whole seconds, as a bid's `dur`): the highest range holding it, 0 for none or an unknown length. */
export function durationFloorOf(floors: readonly DurationFloor[], seconds: number): number {
  const whole = Math.round(seconds);
  if (whole <= 0) return 0;
  let floor = 0;
  for (const r of floors) if (whole >= r.min && whole <= r.max && r.floorCpm > floor) floor = r.floorCpm;
  return floor;
}

/** What the winner serves: one of our creatives, a demand's VAST answer re-rendered with its trackers, or a programmatic bid (ortb/ortbMarkup.ts). */
export type AdMarkup = { kind: 'campaign'; campaign: SnapCampaign; creative: SnapCreative } | VastMarkup | OrtbMarkup;

/**
 * A VAST demand's ad. `errorForward`: set on the winner once its token is signed (errorPings.ts
 * errorForwardQuery), the query our error URL carries in VAST 2.0 and 3.0, which hold one <Error>.
 */
export interface VastMarkup {
  kind: 'vast';
  ad: DemandInline;
  errorForward?: string;
}

export interface Bid {
  /** What the demand offers, CPM micro-dollars. */
  priceCpm: number;
  /** A fixed price does not clear lower in a second-price auction (CPM demand tags). */
  fixedPrice: boolean;
  markup: AdMarkup;
  tagId: number;
  campaignId: number;
  creativeId: number;
  advertiserId: number;
  /** Programmatic demand: the ad exchange (DSP mode), the deal, the Prebid partner, and the name reports show as marketplace. */
  adexchangeId?: number;
  dealId?: string;
  partner?: string;
  marketplace?: string;
  /**
   * Set by the auction on the bids of an answer that held several (CallResult `more`): this bid's own
   * fate (the source's, in the trace, is that of its best), which its loss notice tells (auction/notices.ts).
   */
  offerFate?: SourceFate;
}

export type CallResult =
  /**
   * `errorUrls`: a VAST demand's error trackers of the ads its answer gave that failed before the one
   * it bids with (a buffet's fallback), [ERRORCODE] already filled with each one's code (errorPings.ts
   * failedAdUrls): called whether the bid wins or not, as a player would have.
   */
  | {
      kind: 'bid';
      bid: Bid;
      /**
       * The answer's other bids (programmatic demand: other seats', or more of one seat's), each an
       * offer in the auction against its own floor; absent for the common single bid.
       */
      more?: readonly Bid[];
      ms: number;
      errorUrls?: readonly string[];
    }
  /** `errorUrls`: the demand's own error trackers for this no-fill ([ERRORCODE] unfilled), told of it as a player would (errorPings.ts). */
  | { kind: 'no_fill'; reason: string; vastError?: number; errorUrls?: readonly string[]; ms: number }
  | { kind: 'timeout'; ms: number }
  /** Refused at call time by its own caps (QPS, daily caps): no call was made, the fate is `filtered`. */
  | { kind: 'refused'; reason: string; ms: number };

export interface DemandCandidate {
  source: SourceFate['source'];
  id: number;
  name: string;
  /** Lower first in priority mode; equal numbers are called together. */
  priority: number;
  /** The floor this candidate's price must reach (the channel's and its own, the higher). */
  floorCpm: number;
  /** Whether calling it counts as a demand call (an external request) in the counters. */
  external: boolean;
  /**
   * The supply deals offered to it (a demand tag named by the channel's deals for buyers): a bid on
   * one is held to that deal's terms (sellerDeals.ts) rather than to the request's DSP deals. Absent: none.
   */
  readonly sellerDeals?: readonly SnapSupplyDeal[];
  call(req: AuctionRequest): Promise<CallResult>;
  /**
   * The answer, when it is known without calling (our own campaigns price at once): the auction
   * takes it as it is, without a promise per candidate. `call` answers the same.
   */
  readonly immediate?: CallResult;
}

export interface DemandSource {
  readonly name: string;
  /** Candidates for this request; refusals go to `filtered` with the rule that refused. */
  candidates(
    req: AuctionRequest,
    filtered: (fate: SourceFate) => void,
  ): { candidates: DemandCandidate[]; indexedOut: number; indexedOutCampaigns?: IndexedOutCampaign[] };
}
