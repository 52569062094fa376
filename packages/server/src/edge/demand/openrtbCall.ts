import { randomUUID } from 'node:crypto';
import { adSystemDomain, type BidRequest } from '@adplane/shared';
import { type SourceFate } from '@adplane/shared';
import {
  type OrtbBid as OrtbResponseBid,
  parseBidResponse,
  readBidResponse,
  type RefusedBid,
} from '../ortb/bidResponseReader.js';
import { fillAuctionMacros } from '../ortb/auctionMacros.js';
import { type CurrencyRates } from '../ortb/currency.js';
import { type DemandPricing, demandTerms, ourPrice } from '../ortb/demandPricing.js';
import { recordOffer } from './offers.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';
import { demandAdRefusal, podRepeats } from '../targeting/impFit.js';
import { buildBidRequest, MIN_TMAX_MS, type OutboundSpec, TMAX_MARGIN_MS, transactionId } from './outboundRequest.js';
import { channelSellerId } from '../snapshot/channels.js';
import { type SnapChannel, type SnapDeal, type SnapSupplyDeal } from '../snapshot/types.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type AuctionRequest, type Bid, type CallResult, type DemandCandidate } from './demandSource.js';
import { ERRORCODE, failedAdUrls } from './errorPings.js';
import { type HttpCaller } from './httpCaller.js';
import { type EmptyAnswer, type FailedAd } from '../vast/vastAnswer.js';
import { type DemandLoopGuard, isLoopReason } from '../request/demandHops.js';

/**
 * One call of programmatic demand, shared by RTB demand tags, Prebid tags (through Prebid Server)
 * and ad exchanges: the OpenRTB 2.6 request built for the candidate (its floor in the demand's terms,
 * tmax from what is left of the deadline less our margin, our schain node, the tenant's blocks,
 * deals), POSTed by the HTTP caller under the candidate's deadline, the answer read and validated.
 * A timeout, an HTTP error, garbage or no bid is a counted no-fill with its reason; a bid below the
 * floor is the auction's `below_floor`.
 */
export interface OrtbDeps {
  caller: HttpCaller;
  /** The edge's public origin: the advertising system domain of our schain node when the tenant has none. */
  publicHost: string;
  /** Exchange rates: a bid response in another currency than USD is converted (absent: USD only). */
  currency?: { readonly current: CurrencyRates };
  /** The demand loop guard: our supply chain node carries its mark (request/demandHops.ts); absent: unmarked. */
  loops?: DemandLoopGuard | null;
}

export interface OrtbTarget {
  source: SourceFate['source'];
  id: number;
  name: string;
  priority: number;
  /** The floor our price must reach, micro-dollars CPM. */
  floorCpm: number;
  url: string;
  /** Its own time limit (a tag's timeout, an exchange's tmax), under the decision's deadline. */
  timeoutMs: number;
  pricing: DemandPricing;
  /** Takes a request from its caps (QPS, daily caps) at call time: the refusal reason, or null. */
  take(now: number): string | null;
  deals: readonly SnapDeal[];
  privateAuction: boolean;
  wseat: readonly string[];
  /** Its own targeting (its blocked advertiser domains and ad categories join the channel's). */
  targeting: CompiledTargeting | null;
  /** Last changes to the request (Prebid Server's bidder parameters). */
  shape?: (request: BidRequest) => void;
  /** What the bid carries into the decision and its tracking token. */
  ids: Pick<Bid, 'tagId' | 'advertiserId' | 'adexchangeId' | 'partner' | 'marketplace'>;
}

const DOMAIN = /^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/;

/**
 * Blocked advertiser domains: the domains of the creative lists a targeting excludes (the channel's,
 * which also refuses our own campaigns' creatives by them, and the demand's). Creative ids in those
 * lists mean nothing to another system and stay out.
 */
export function blockedAdvertisers(...targetings: (CompiledTargeting | null)[]): string[] {
  const out = new Set<string>();
  for (const t of targetings) {
    if (!t?.creatives || t.creatives.include) continue;
    for (const v of t.creatives.values) if (DOMAIN.test(v)) out.add(v);
  }
  return [...out];
}

const NONE: readonly string[] = [];

/**
 * Blocked ad categories (IAB 1.0): the channel's (a supplier's channel: the supplier's) and the
 * demand's own targeting's. Sent as bcat, joined with an inbound request's (outboundRequest.ts), and
 * enforced on the answer whatever was sent: a bid's `cat`, its VAST's <Category>.
 */
export function blockedCategories(channel: SnapChannel, own: CompiledTargeting | null): readonly string[] {
  const ofChannel = channel.categoryBlocks?.categories ?? channel.targeting?.blockedAdCategories ?? NONE;
  const ofDemand = own?.blockedAdCategories ?? NONE;
  if (!ofDemand.length) return ofChannel;
  return ofChannel.length ? [...new Set([...ofChannel, ...ofDemand])] : ofDemand;
}

const usd = (micros: number): number => Math.round(micros) / 1_000_000;

export function ortbCandidate(req: AuctionRequest, t: OrtbTarget, deps: OrtbDeps): DemandCandidate {
  return {
    source: t.source,
    id: t.id,
    name: t.name,
    priority: t.priority,
    floorCpm: t.floorCpm,
    external: true,
    call: (r: AuctionRequest) => callOrtb(r, t, deps),
  };
}

/**
 * A demand tag's candidate whose target is built only when the auction calls it: in a waterfall
 * behind our campaigns most tags are listed (counted as not called) and never called, so a
 * request does not build their targets, pricing and closures. `build` is a function of the source
 * (not made per request); `floorCpm` is the target's, known up front for the auction.
 */
export class LazyOrtbCandidate<A> implements DemandCandidate {
  readonly external = true;
  constructor(
    readonly source: SourceFate['source'],
    readonly id: number,
    readonly name: string,
    readonly priority: number,
    readonly floorCpm: number,
    private readonly req: AuctionRequest,
    private readonly arg: A,
    private readonly build: (req: AuctionRequest, arg: A, priority: number) => OrtbTarget,
    private readonly deps: OrtbDeps,
    /** The supply deals offered to it (DemandCandidate.sellerDeals), which its target sends. */
    readonly sellerDeals?: readonly SnapSupplyDeal[],
  ) {}

  call(r: AuctionRequest): Promise<CallResult> {
    return callOrtb(r, this.build(this.req, this.arg, this.priority), this.deps);
  }
}

async function callOrtb(r: AuctionRequest, t: OrtbTarget, deps: OrtbDeps): Promise<CallResult> {
  const now = r.clock.now();
  const deadline = Math.min(r.deadline, now + t.timeoutMs);
  const tmax = deadline - now - TMAX_MARGIN_MS;
  if (tmax < MIN_TMAX_MS) return { kind: 'refused', reason: 'no_time_left', ms: 0 };
  // caps are taken when the call is actually made (a waterfall may never reach this one)
  const capped = t.take(now);
  if (capped) return { kind: 'refused', reason: capped, ms: 0 };

  const { ctx, channel, snapshot } = r;
  const id = randomUUID();
  const sellerId = channelSellerId(channel);
  const asi = adSystemDomain(snapshot.tenants.get(channel.tenantId)?.domain, deps.publicHost);
  const badv = blockedAdvertisers(channel.targeting, t.targeting);
  const bcat = blockedCategories(channel, t.targeting);
  const spec: OutboundSpec = {
    id,
    impId: '1',
    tid: transactionId(r, ctx),
    tmax,
    bidfloor: usd(demandTerms(t.pricing, t.floorCpm)),
    at: channel.auctionPrice === 'first' ? 1 : 2,
    // marked as ours: an exchange forwarding the request back to us keeps the chain (request/demandHops.ts)
    node: deps.loops
      ? deps.loops.marker.mark({ asi, sid: sellerId, hp: 1, rid: id })
      : { asi, sid: sellerId, hp: 1, rid: id },
    sellerId,
    bcat,
    badv,
    deals: t.deals,
    privateAuction: t.privateAuction,
    wseat: t.wseat,
  };
  const request = buildBidRequest(ctx, channel, spec);
  t.shape?.(request);
  // (the call one hop deeper than the request: request/demandHops.ts)
  const chain = { hops: (ctx.hops?.count ?? 0) + 1, tenantId: channel.tenantId, channelUid: channel.uid };
  const got = await deps.caller.postJson(
    t.url,
    JSON.stringify(request),
    deadline,
    { 'x-openrtb-version': '2.6' },
    chain,
  );
  if (got.kind === 'timeout') return { kind: 'timeout', ms: got.ms };
  if (got.kind === 'failed') {
    // a request of our own whose demand looped: its answer says so to its caller
    if (ctx.hops && isLoopReason(got.reason)) ctx.hops.looped = true;
    return { kind: 'no_fill', reason: got.reason, ms: got.ms };
  }
  if (got.status === 204 || (got.status >= 200 && got.status < 300 && !got.body.trim()))
    return { kind: 'no_fill', reason: 'no_bid', ms: got.ms };
  if (got.status < 200 || got.status >= 300) return { kind: 'no_fill', reason: `http_${got.status}`, ms: got.ms };

  const media = channel.format === 'video' ? 'video' : 'banner';
  const read = readBidResponse(parseBidResponse(got.body), {
    requestId: id,
    impId: spec.impId,
    media,
    deals: new Set(t.deals.map((d) => d.dealId)),
    privateAuction: t.privateAuction,
    // ours too when the request could not carry them (an inbound bcat in another taxonomy: outboundRequest.ts)
    bcat: bcat.length ? [...new Set([...(request.bcat ?? []), ...bcat])] : (request.bcat ?? []),
    badv: request.badv ?? [],
    rates: deps.currency?.current,
  });
  // a bid refused for what it is still hears why, on its loss notice (auction/notices.ts): each of them, beside a valid bid too
  if (read.refusals)
    for (const r of read.refusals)
      if (r.bid.lurl)
        recordOffer(ctx, {
          source: t.source,
          id: t.id,
          bid: ortbBid(r.bid, t, media, id),
          floorCpm: t.floorCpm,
          refusal: r.reason,
        });
  if (!read.ok) {
    // its VAST's error trackers hear of the ads a player would have given up on, as a VAST tag's do (vastTagSource.ts)
    if (read.unplayable) return unplayableNoFill(read.reason, read.unplayable, got.ms);
    const refusedFailed = failedErrorUrls(read.refused?.vast?.failedBefore);
    return refusedFailed
      ? { kind: 'no_fill', reason: read.reason, ms: got.ms, errorUrls: refusedFailed }
      : { kind: 'no_fill', reason: read.reason, ms: got.ms };
  }
  const result = read.others
    ? severalBids([read.bid, ...read.others], r, t, media, id, badv, bcat, got.ms)
    : oneBid(read.bid, r, t, media, id, badv, bcat, got.ms);
  // the answer's unplayable bids beside a valid one: their VAST's error trackers hear of it as a lone one's do
  const passedOver = read.refusals ? unplayableRefusalUrls(read.refusals) : null;
  if (!passedOver || (result.kind !== 'bid' && result.kind !== 'no_fill')) return result;
  return { ...result, errorUrls: result.errorUrls ? [...result.errorUrls, ...passedOver] : passedOver };
}

/** The answer's one valid bid, held to what the request refuses of its ad. */
function oneBid(
  b: OrtbResponseBid,
  r: AuctionRequest,
  t: OrtbTarget,
  media: 'video' | 'banner',
  id: string,
  badv: readonly string[],
  bcat: readonly string[],
  ms: number,
): CallResult {
  const { ctx } = r;
  const bid = ortbBid(b, t, media, id);
  recordOffer(ctx, { source: t.source, id: t.id, bid, floorCpm: t.floorCpm });
  // the ads of its VAST a player would have given up on before this one (a buffet's broken ad): their
  // error trackers, each with its own code, go out after the auction whether the bid wins or not, as a
  // VAST tag's do (vastTagSource.ts); null (nothing allocated) for a bid without any
  const failed = failedErrorUrls(b.vast?.failedBefore);
  // a bid refused for its ad is its no-fill, and its loss notice says why
  const unfit = adRefusal(b, ctx, badv, bcat);
  if (unfit)
    return failed ? { kind: 'no_fill', reason: unfit, ms, errorUrls: failed } : { kind: 'no_fill', reason: unfit, ms };
  return failed ? { kind: 'bid', bid, ms, errorUrls: failed } : { kind: 'bid', bid, ms };
}

/**
 * What the request refuses of a bid's ad: what it or the creative lists refuse of the ad its VAST
 * describes (impFit.ts), else, in a slot of an ad pod, the bid's own adomain already in the pod (a
 * wrapper, or markup on the win notice, has no <Advertiser> to read); null when nothing.
 */
function adRefusal(
  b: OrtbResponseBid,
  ctx: AuctionRequest['ctx'],
  badv: readonly string[],
  bcat: readonly string[],
): string | null {
  return (
    (b.vast?.kind === 'inline' ? demandAdRefusal(b.vast, ctx, badv, bcat) : null) ??
    (ctx.pod ? podRepeats(ctx.pod, b.adomain, '') : null)
  );
}

/**
 * An answer of several valid bids (several seats, or several bids of one): each is an offer in the
 * auction (runAuction.ts prices each against its own floor; the source's fate is its best's), and
 * each is held to what the request refuses of its ad, as a single bid is above. The error trackers of
 * every bid's VAST ads passed over go out. No bid left: the no-fill of the best bid's refusal.
 */
function severalBids(
  bids: readonly OrtbResponseBid[],
  r: AuctionRequest,
  t: OrtbTarget,
  media: 'video' | 'banner',
  id: string,
  badv: readonly string[],
  bcat: readonly string[],
  ms: number,
): CallResult {
  const { ctx } = r;
  let first: Bid | null = null;
  const more: Bid[] = [];
  let refusal = '';
  const errorUrls: string[] = [];
  for (const b of bids) {
    const bid = ortbBid(b, t, media, id);
    const failed = failedErrorUrls(b.vast?.failedBefore);
    if (failed) errorUrls.push(...failed);
    const unfit = adRefusal(b, ctx, badv, bcat);
    if (unfit) {
      refusal ||= unfit;
      if (b.lurl) recordOffer(ctx, { source: t.source, id: t.id, bid, floorCpm: t.floorCpm, refusal: unfit });
      continue;
    }
    recordOffer(ctx, { source: t.source, id: t.id, bid, floorCpm: t.floorCpm });
    if (!first) first = bid;
    else more.push(bid);
  }
  const errors = errorUrls.length ? { errorUrls } : {};
  if (!first) return { kind: 'no_fill', reason: refusal, ms, ...errors };
  return more.length ? { kind: 'bid', bid: first, more, ms, ...errors } : { kind: 'bid', bid: first, ms, ...errors };
}

const NO_MACROS = {};

/**
 * The error trackers of a bid's VAST ads passed over (vastAnswer.ts `failedBefore`), [ERRORCODE]
 * filled with each one's code (errorPings.ts failedAdUrls; the IAB macros are filled when they are
 * fired) and OpenRTB's auction macros emptied (an ad that never played has no price to report: the
 * spec's rule for a value not known). null when there are none.
 */
function failedErrorUrls(failed: readonly FailedAd[] | undefined): string[] | null {
  if (!failed?.length) return null;
  const urls = failedAdUrls(failed);
  for (let i = 0; i < urls.length; i++) urls[i] = fillAuctionMacros(urls[i]!, NO_MACROS);
  return urls.length ? urls : null;
}

/** The error trackers of the refused bids whose VAST had no playable ad, [ERRORCODE] each one's code; null: none. */
function unplayableRefusalUrls(refusals: readonly RefusedBid[]): string[] | null {
  let urls: string[] | null = null;
  for (const r of refusals) if (r.unplayable) (urls ??= []).push(...unplayableUrls(r.unplayable, true));
  return urls;
}

/**
 * An unplayable VAST's error trackers: its own, then those of the ads passed over before it, OpenRTB's
 * auction macros emptied. `withCode`: [ERRORCODE] filled with its code now (a bid beside a valid one);
 * else left for the no-fill's, which the auction fills with `vastError` (runAuction.ts).
 */
function unplayableUrls(empty: EmptyAnswer, withCode: boolean): string[] {
  const code = String(empty.vastError);
  const own = empty.errorUrls.map((u) => fillAuctionMacros(withCode ? u.replace(ERRORCODE, code) : u, NO_MACROS));
  const failed = failedErrorUrls(empty.failedBefore);
  return failed ? [...own, ...failed] : own;
}

/**
 * A bid whose VAST `adm` has no ad a player could play (`bad_adm_<why>`): a no-fill with the code a
 * player reports, its error trackers (and those of its other ads that could not play) told of it,
 * as a VAST tag's broken answer is (vastTagSource.ts); its loss notice says 3 as well.
 */
function unplayableNoFill(reason: string, empty: EmptyAnswer, ms: number): CallResult {
  const errorUrls = unplayableUrls(empty, false);
  return errorUrls.length
    ? { kind: 'no_fill', reason, vastError: empty.vastError, errorUrls, ms }
    : { kind: 'no_fill', reason, vastError: empty.vastError, ms };
}

/** A demand's bid as the auction takes it: our price (the tag's pricing applied), its markup, its deal. */
function ortbBid(
  b: OrtbResponseBid,
  t: OrtbTarget,
  media: 'video' | 'banner',
  requestId: string,
): Bid & { markup: OrtbMarkup } {
  const markup: OrtbMarkup = {
    kind: 'ortb',
    media,
    adm: b.adm,
    vast: b.vast,
    nurl: b.nurl,
    burl: b.burl,
    lurl: b.lurl,
    adomain: b.adomain,
    cat: b.cat,
    crid: b.crid,
    adid: b.adid,
    dealId: b.dealId,
    seat: b.seat,
    w: b.w,
    h: b.h,
    mtype: b.mtype,
    requestId,
    impId: b.impId,
    bidId: b.bidId,
    bidCpm: b.priceCpm,
    pricing: t.pricing,
  };
  if (b.currency !== 'USD') {
    markup.currency = b.currency;
    markup.usdPerUnit = b.usdPerUnit;
  }
  const deal = b.dealId ? t.deals.find((d) => d.dealId === b.dealId) : undefined;
  const bid: Bid & { markup: OrtbMarkup } = {
    priceCpm: ourPrice(t.pricing, b.priceCpm),
    // a fixed-price tag, or a deal at first or fixed price, pays what it says: nothing clears lower
    fixedPrice: t.pricing.kind === 'fixed' || (deal !== undefined && deal.auctionType !== 2),
    markup,
    campaignId: 0,
    creativeId: 0,
    ...t.ids,
  };
  if (b.dealId) bid.dealId = b.dealId;
  return bid;
}
