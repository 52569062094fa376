import { type Clock } from '../../clock.js';
import { type PreBidIvt } from '../auction/preBidIvt.js';
import { postbidPixelUrls, type PostbidStage } from '../postbid/postbidStage.js';
import { type AuctionResult, runAuction, type Winner } from '../auction/runAuction.js';
import { type DecisionTrace, type SourceFate } from '@adplane/shared';
import {
  type CounterScope,
  type HourlyCounters,
  type RequestDimensions,
  type SourceDimensions,
} from '../counters/hourlyCounters.js';
import { type DemandSource, type DurationFloor } from '../demand/demandSource.js';
import { tagBidIds } from '../demand/tagBidIds.js';
import { anyPrivate, dealsForTag, dealsInForce } from '../demand/sellerDeals.js';
import { settleProgrammatic } from '../auction/notices.js';
import { type DeliveryGate } from '../auction/deliveryGate.js';
import { type Admission } from '../../delivery/types.js';
import { type RequestContext } from '../request/context.js';
import { DEMAND_LOOP, type DemandLoopGuard } from '../request/demandHops.js';
import { refusal } from '../targeting/compiledTargeting.js';
import { type Decision, newDecisionId, type TokenSigner, unfilledDecisionId } from '../tracking/trackingToken.js';
import { demandErrorTrackers, errorForwardQuery } from '../demand/errorPings.js';
import {
  type SnapChannel,
  type SnapDeal,
  type Snapshot,
  type SnapSupplier,
  type SnapSupplyDeal,
} from '../snapshot/types.js';
import { emptyDocument, winnerDocument, withImpressionPixels } from './adResponse.js';
import { withFloorInForce } from './floorInForce.js';
import { measureCalls, withDemandOrder } from './demandOrder.js';
import { splitArm } from './abSplit.js';
import { type TagValues } from '../counters/tagValues.js';
import { DEFAULT_VAST_VERSION } from '../vast/vastVersion.js';

/**
 * One ad decision for a channel: request counted, the channel's own rules, the auction, the VAST
 * answer with signed tracking, the counters of every source's fate, and the trace (kept for
 * debug=1 and "Test this tag"; the counters read the same fates).
 */
export interface EdgeDeps {
  /** What the edge reads the time from: the request's `ctx.now`, deadlines, the counters' hours. */
  clock: Clock;
  snapshot: () => Snapshot | null;
  counters: HourlyCounters;
  pacing: DeliveryGate;
  signer: TokenSigner;
  sources: readonly DemandSource[];
  origin: string;
  /** Each external demand call's time and outcome (prom-client's per-source histogram in the app). */
  observeCall?: (source: SourceFate['source'], outcome: string, ms: number) => void;
  /**
   * Fires a notice, fire-and-forget: a programmatic demand's win or loss notice (auction/notices.ts),
   * a VAST demand's error tracker (demand/errorPings.ts); absent: none fired.
   */
  notify?: (url: string) => void;
  /** The pre-bid IVT check of channels that have it (auction/preBidIvt.ts); absent: no request is checked. */
  ivt?: PreBidIvt;
  /** The post-bid pixel stage (postbid/postbidStage.ts): which filled answers carry the account's pixels; absent: none do. */
  postbid?: PostbidStage;
  /** The demand loop guard (request/demandHops.ts): a request of the edge's own demand calls beyond its hops is refused; absent: none is. */
  loops?: DemandLoopGuard;
  /** What each tag of an optimised channel earned lately (decision/demandOrder.ts); absent: no channel's order is optimised. */
  tagValues?: TagValues;
  /** The edge's random draws (an optimised order's exploration); absent: Math.random. A test seeds it. */
  random?: () => number;
}

export interface DecisionOutcome {
  status: number;
  xml: string;
  trace: DecisionTrace;
  /** The filled decision's id (what delivery control reserved under), null when nothing filled. */
  decisionId: string | null;
  /** An ad pod's answer (decision/adPod.ts): every filled slot's decision id, the first one's included. */
  podDecisionIds?: readonly string[];
}

/** Dimensions of the request itself (every row of this decision carries them). */
function requestDims(channel: SnapChannel, ctx: RequestContext, options: DecideOptions): RequestDimensions {
  return {
    tenant_id: channel.tenantId,
    channel_id: channel.id,
    subpublisher_id: channel.subpublisherId,
    supplier_id: options.supplier?.id ?? 0,
    country: ctx.geo.country,
    region: ctx.geo.region,
    us_state: ctx.geo.usState,
    device: ctx.platform.device,
    os: ctx.platform.os,
    browser: ctx.platform.browser,
    app_bundle: ctx.appBundle.slice(0, 255),
    domain: ctx.domain,
    integration: options.integration ?? 'VAST',
    arm: channel.arm ?? '',
  };
}

/** The trace's context and channel of an untraced decision (DecideOptions.trace false): nothing copied. */
const UNTRACED_CONTEXT: DecisionTrace['context'] = Object.freeze({
  ip: '',
  country: '',
  region: '',
  usState: '',
  device: '',
  os: '',
  browser: '',
  tvFamily: '',
  playerSize: '',
  width: 0,
  height: 0,
  appBundle: '',
  domain: '',
});

function contextOf(ctx: RequestContext): DecisionTrace['context'] {
  const place = ctx.geo.place;
  return {
    ...(place && { city: place.city, metro: place.metro, postalCode: place.postalKey.toUpperCase() }),
    ...(ctx.keyValues?.length && { keyValues: [...ctx.keyValues] }),
    ip: ctx.ip,
    country: ctx.geo.country,
    region: ctx.geo.region,
    usState: ctx.geo.usState,
    device: ctx.platform.device,
    os: ctx.platform.os,
    browser: ctx.platform.browser,
    tvFamily: ctx.platform.tvFamily,
    playerSize: ctx.playerSize,
    width: ctx.query.width,
    height: ctx.query.height,
    appBundle: ctx.appBundle,
    domain: ctx.domain,
  };
}

/** A demand tag considered but not offered the request: a demand request, nothing else (one shared object). */
const CONSIDERED_ONLY = { source_reqs: 1 } as const;

/**
 * The demand ids a bid's impressions are counted under (tracking/trackingToken.ts carries them to
 * the impression's row): the winner's fate is counted under the same, so that its win and its
 * impressions land on one report row.
 */
function bidDims(b: Winner['bid'], nofill: string): SourceDimensions {
  return {
    tag_id: b.tagId,
    campaign_id: b.campaignId,
    creative_id: b.creativeId,
    advertiser_id: b.advertiserId,
    adexchange_id: b.adexchangeId ?? 0,
    deal_id: b.dealId ?? '',
    partner: b.partner ?? '',
    marketplace_name: b.marketplace ?? '',
    nofill_reason: nofill,
  };
}

/**
 * A demand tag's ids on the rows of its fates that served nothing, as its bids name them
 * (demand/tagBidIds.ts): its advertiser, its Prebid partner and marketplace, so that a report by
 * advertiser, partner or marketplace finds a tag's requests on the row of its impressions.
 */
function tagDims(snapshot: Snapshot, id: number, nofill: string): SourceDimensions {
  const tag = snapshot.tags.get(id);
  if (!tag) return { tag_id: id, nofill_reason: nofill };
  const ids = tagBidIds(tag);
  return {
    tag_id: id,
    advertiser_id: ids.advertiserId,
    partner: ids.partner ?? '',
    marketplace_name: ids.marketplace ?? '',
    nofill_reason: nofill,
  };
}

/** An ad exchange's ids on the rows of its fates that served nothing: its name as the marketplace, as its bids name it. */
function exchangeDims(snapshot: Snapshot, tenantId: number, id: number, nofill: string): SourceDimensions {
  const exchange = snapshot.adExchanges.get(tenantId)?.find((x) => x.id === id);
  return { adexchange_id: id, marketplace_name: exchange?.name ?? '', nofill_reason: nofill };
}

/**
 * Every demand tag the request considered: its fate on its own counter row, with the no-fill reason
 * ('' when it won or lost the auction). `source_reqs` counts it considered; a tag refused by its own
 * rules or caps (`filtered`, the rule as reason) or never reached in a waterfall (`not_called`,
 * filled_earlier or deadline) adds nothing else. A tag offered the request (called) adds
 * `source_opps`, its call, answer or timeout, bid and win, and the VAST error. Tags listed on the
 * channel but not live for it (idle) are in the trace only. The fill funnel of a tag reads these rows.
 * Our own campaigns are priced in memory, not called: the winning one is counted (its bid and win);
 * the others are in the trace only, or every request would add a row per campaign.
 * Every row of a source carries the demand ids its impressions carry: the winner's are its bid's
 * (a campaign's creative and advertiser, a tag's partner...), another's those of its kind (tagDims).
 * A tag called with supply deals in its bid request adds one deal request per deal, on its row under
 * that deal (the row of its bid when it bid on it): the tag's own requests are counted once.
 */
function countFates(
  counters: CounterScope,
  fates: readonly SourceFate[],
  winner: Winner | null,
  snapshot: Snapshot,
  tenantId: number,
  now: number,
  sellerDeals: readonly SnapSupplyDeal[] | undefined,
): void {
  for (const f of fates) {
    const won = winner !== null && f === winner.fate;
    if (f.source === 'campaign') {
      if (f.fate === 'won')
        counters.add(
          won ? bidDims(winner.bid, '') : { campaign_id: f.id, nofill_reason: '' },
          { bids: f.bidCpm !== undefined ? 1 : 0, wins: 1 },
          now,
        );
      // (the auction's pick refused by delivery control: its row says why it did not serve)
      else if (f.fate === 'no_fill' && f.reason)
        counters.add(
          won ? bidDims(winner.bid, f.reason) : { campaign_id: f.id, nofill_reason: f.reason },
          { bids: f.bidCpm !== undefined ? 1 : 0 },
          now,
        );
      continue;
    }
    if (f.idle) continue;
    const exchange = f.source === 'ad_exchange';
    if (f.fate === 'filtered' || f.fate === 'not_called') {
      const nofill = f.reason ?? f.fate;
      counters.add(
        exchange ? exchangeDims(snapshot, tenantId, f.id, nofill) : tagDims(snapshot, f.id, nofill),
        CONSIDERED_ONLY,
        now,
      );
      continue;
    }
    const nofill = f.fate === 'won' || f.fate === 'lost' ? '' : f.fate === 'no_fill' ? (f.reason ?? f.fate) : f.fate;
    const dims: SourceDimensions = won
      ? bidDims(winner.bid, nofill)
      : exchange
        ? exchangeDims(snapshot, tenantId, f.id, nofill)
        : tagDims(snapshot, f.id, nofill);
    if (f.dealId) dims.deal_id = f.dealId;
    if (f.vastError) dims.vast_error = String(f.vastError);
    const offered =
      sellerDeals?.length && (f.source === 'rtb_tag' || f.source === 'prebid_tag')
        ? dealsForTag(sellerDeals, f.id)
        : NO_DEALS;
    counters.add(
      dims,
      {
        source_reqs: 1,
        source_opps: 1,
        demand_calls: 1,
        responses: f.fate !== 'timeout' ? 1 : 0,
        timeouts: f.fate === 'timeout' ? 1 : 0,
        bids: f.bidCpm !== undefined ? 1 : 0,
        wins: f.fate === 'won' ? 1 : 0,
        deal_reqs: f.dealId && offered.some((d) => d.dealId === f.dealId) ? 1 : 0,
      },
      now,
    );
    for (const d of offered)
      if (d.dealId !== f.dealId) counters.add({ ...tagDims(snapshot, f.id, ''), deal_id: d.dealId }, DEAL_REQUEST, now);
  }
}

/** A supply deal a tag's bid request carried, on its row under the deal: a deal request, nothing else. */
const DEAL_REQUEST = { deal_reqs: 1 } as const;
const NO_DEALS: readonly SnapSupplyDeal[] = [];

/**
 * The auction's winner refused by delivery control: its fate becomes a no-fill for that reason (a bid
 * that served nothing: counted as a bid, never a win, and traced as such), and the reason is returned.
 */
function refusedWinner(fate: SourceFate, reason: string): string {
  fate.fate = 'no_fill';
  fate.reason = reason;
  delete fate.clearingCpm;
  delete fate.payoutCpm;
  delete fate.marginCpm;
  return reason;
}

/** Counts nothing: a "Test this tag" decision stays out of reports. */
const NOT_COUNTED: CounterScope = { add: () => undefined };

export interface DecideOptions {
  /** A channel to decide for instead of the snapshot's (a demand tag tested alone, a supplier's impression). */
  channel?: SnapChannel;
  /** A test decision ("Test this tag"): nothing counted, its tracking events count nothing either. */
  test?: boolean;
  /** The entry point, a report dimension: VAST by default, RTB for OpenRTB bid requests, PreBid for the Prebid Server auction. */
  integration?: 'VAST' | 'RTB' | 'PreBid';
  /** Epoch ms by which the auction must be decided (an OpenRTB request's tmax); the channel's timeout otherwise. */
  deadline?: number;
  /** DSP mode: the supplier of an OpenRTB bid request, and the deals its impression offers. */
  supplier?: SnapSupplier;
  deals?: readonly SnapDeal[];
  privateAuction?: boolean;
  /**
   * Whether the caller reads the trace (debug=1, "Test this tag", tests): true unless false. False
   * (the plain VAST, OpenRTB and Prebid entries): the trace holds the result, the counted sources
   * and the winner only; its context and channel are left empty and our campaigns refused one by
   * one are not listed (nothing counts them). What is counted and answered is the same.
   */
  trace?: boolean;
  /** The pre-bid IVT check's verdict already given for this request (a later slot of an ad pod: decision/adPod.ts); absent: checked here. */
  ivtVerdict?: DecisionTrace['ivt'];
  /**
   * A later ad of one request's pod (a VAST pod's slot after the first, a dynamic OpenRTB pod's ad
   * after the first): counted as an opportunity of its own, not as another request received (nor
   * its IVT flag again), so that Requests and what they cost stay the requests that came in.
   */
  extraSlot?: boolean;
  /**
   * Another format of the same impression is decided next when this decision does not fill (an
   * OpenRTB impression offering video and banner: doors/openrtbBidder/impBid.ts). Its auction without a
   * winner, or its winner refused by delivery control after the auction (a budget another process
   * spent first, a frequency cap reached since the auction looked), counts no request: the next
   * format's decision counts it (with offeredBefore, refusedBefore): one request, at most one
   * opportunity, whichever format fills. Refused before its auction (blocked as IVT, the channel's
   * targeting), it counts the request as any decision: a blocked request is blocked in every format.
   * Its sources' fates count as usual.
   */
  nextFormat?: boolean;
  /** An earlier format's decision of this impression offered it to demand (nextFormat): this one counts the opportunity even when it offers nothing. */
  offeredBefore?: boolean;
  /**
   * An earlier format's winner of this impression was refused by delivery control (nextFormat): its
   * reason (`delivery.<refusal>`) names the request when this decision finds no winner either, rather
   * than `no_bid`: the impression had a buyer, and the row reads as it did before the next format
   * was tried. When this one fills, the request is filled ('').
   */
  refusedBefore?: string;
  /** OpenRTB 2.6 `video.mincpmpersec` in demand's money (AuctionRequest.floorPerSecondCpm). */
  floorPerSecondCpm?: number;
  /** OpenRTB 2.6 `video.durfloors` in demand's money (AuctionRequest.durationFloors): held in the auction, so that the next best bid wins. */
  durationFloors?: readonly DurationFloor[];
}

const NO_OPTIONS: DecideOptions = Object.freeze({});

/** The request received that a decision counts: 1, or 0 for a later ad of a pod (DecideOptions.extraSlot). */
const receivedOf = (options: DecideOptions): number => (options.extraSlot ? 0 : 1);

/** Ends a decision: its result and time on the outcome and the trace. */
function finish(out: AdOutcome, started: number, status: number, result: string): AdOutcome {
  out.trace.result = result;
  out.trace.totalMs = Math.round((performance.now() - started) * 100) / 100;
  out.status = status;
  out.result = result;
  return out;
}

/** An empty answer for `reason` before or without an auction: the request's row and the decision's token. */
function unfilled(
  deps: EdgeDeps,
  out: AdOutcome,
  counters: CounterScope,
  reason: string,
  ivtFlag: number,
  now: number,
  started: number,
  reqs: number,
): AdOutcome {
  // (a later slot of a pod counts nothing here: no request of its own, never offered)
  if (reqs) counters.add({ nofill_reason: reason }, { reqs, ivt: ivtFlag }, now);
  out.decision!.id = unfilledDecisionId();
  out.token = deps.signer.sign(out.decision!);
  return finish(out, started, 200, reason);
}

/**
 * What every entry point renders from: the request-level result ('filled' or why not), the winner
 * with its signed tracking token, and the trace. The VAST entry point renders a document; the
 * OpenRTB and Prebid entry points render bids from the same outcome.
 */
export interface AdOutcome {
  /** 404 for an unknown channel (or while warming up), else 200. */
  status: number;
  result: string;
  snapshot: Snapshot | null;
  channel: SnapChannel | null;
  winner: Winner | null;
  decision: Decision | null;
  /** Signed tracking token of the decision (null for an unknown channel). */
  token: string | null;
  /** The post-bid pixels' URLs this answer carries (macros filled), each an extra impression tracker. */
  postbidUrls: readonly string[];
  /** `delivery.<refusal>` when delivery control refused the auction's winner (the result too), else ''. */
  deliveryRefusal: string;
  trace: DecisionTrace;
}

/**
 * The decision, as soon as it is known: an outcome at once when nothing was called over the network
 * (our own campaigns, a paused channel, a refused request: most requests), a promise otherwise. The
 * entry points answer an outcome they get at once in the same turn, with no promise or microtask
 * between the request and its answer; `await` reads either.
 */
export function runDecision(
  deps: EdgeDeps,
  channelUid: string,
  ctx: RequestContext,
  options: DecideOptions = NO_OPTIONS,
): AdOutcome | Promise<AdOutcome> {
  const started = performance.now();
  const snapshot = deps.snapshot();
  const traced = options.trace !== false;
  const trace: DecisionTrace = {
    channel: null,
    context: traced ? contextOf(ctx) : UNTRACED_CONTEXT,
    result: '',
    indexedOut: 0,
    sources: [],
    winner: null,
    totalMs: 0,
    snapshotVersion: snapshot?.version ?? 0,
    ivt: null,
    postbid: null,
  };
  const out: AdOutcome = {
    status: 200,
    result: '',
    snapshot,
    channel: null,
    winner: null,
    decision: null,
    token: null,
    postbidUrls: [],
    deliveryRefusal: '',
    trace,
  };
  const found = options.channel ?? snapshot?.channelsByUid.get(channelUid);
  if (!snapshot || !found) return finish(out, started, 404, snapshot ? 'unknown_channel' : 'warming_up');
  // a split channel: the arm that serves this request
  const split = found.split ? splitArm(found, ctx.query.deviceId, deps.random ?? Math.random) : null;
  if (split && traced) trace.arm = split.trace;
  const floored = withFloorInForce(split?.channel ?? found, ctx);
  // an optimised channel's tags in the order ranked for this request
  const ordered =
    floored.optimise && deps.tagValues
      ? withDemandOrder(floored, deps.tagValues, ctx.now, deps.random ?? Math.random)
      : null;
  const channel = ordered?.channel ?? floored;
  if (ordered && traced) trace.demandOrder = ordered.trace();
  out.channel = channel;
  if (traced)
    trace.channel = {
      id: channel.id,
      uid: channel.uid,
      name: channel.name,
      mode: channel.demandMode,
      auctionPrice: channel.auctionPrice,
      floorCpm: channel.floorCpm,
      floor: channel.floorInForce ?? { source: 'static', rule: null, floorCpm: channel.floorCpm },
      vastVersion: channel.vastVersion,
      timeoutMs: channel.timeoutMs,
    };

  // an SDK app's request (`app_key`): the app's own bundle names it in reports and lists; a key that
  // is not one of the channel's account's apps, or an app paused or archived (revoked), gets no ad
  let appRefusal = '';
  const appKey = ctx.query.appKey;
  if (appKey) {
    const sdkApp = snapshot.sdkAppsByKey?.get(appKey);
    if (!sdkApp || sdkApp.tenantId !== channel.tenantId) appRefusal = 'sdk_app.unknown';
    else if (!sdkApp.serving) appRefusal = 'sdk_app.revoked';
    else ctx.appBundle = sdkApp.bundle;
  }
  const now = ctx.now;
  const dims = requestDims(channel, ctx, options);
  const counters = options.test ? NOT_COUNTED : deps.counters.scope(dims);
  const decision: Decision = {
    // numbered when the auction ends: filled and unfilled decisions count apart (trackingToken.ts)
    id: '',
    at: Math.floor(now / 1000),
    tenantId: channel.tenantId,
    channelId: channel.id,
    subpublisherId: channel.subpublisherId,
    tagId: 0,
    campaignId: 0,
    creativeId: 0,
    advertiserId: 0,
    country: ctx.geo.country,
    device: ctx.platform.device,
    os: ctx.platform.os,
    appBundle: dims.app_bundle ?? '',
    domain: ctx.domain,
    revenueCpm: 0,
    costCpm: 0,
    test: options.test ? 1 : 0,
    integration: dims.integration ?? 'VAST',
    supplierId: options.supplier?.id ?? 0,
    adexchangeId: 0,
    dealId: '',
    partner: '',
    marketplace: '',
    viewer: '',
    postbid: 0,
    arm: dims.arm ?? '',
  };
  out.decision = decision;
  /** 1 when the pre-bid check flagged the request: its request row counts it as IVT. */
  let ivtFlag = 0;
  const reqs = receivedOf(options);
  // a request one of the edge's own demand calls made, deeper than allowed: no auction, or one request
  // would call the edge again at every hop (request/demandHops.ts)
  if (
    ctx.hops &&
    deps.loops?.refusesEntry(ctx.hops, {
      kind: dims.integration ?? 'VAST',
      tenantId: channel.tenantId,
      channelUid: channel.uid,
    })
  ) {
    return unfilled(deps, out, counters, DEMAND_LOOP, ivtFlag, now, started, reqs);
  }
  if (!channel.serving) return unfilled(deps, out, counters, 'channel_paused', ivtFlag, now, started, reqs);
  if (appRefusal) return unfilled(deps, out, counters, appRefusal, ivtFlag, now, started, reqs);
  // request in: the pre-bid IVT check; flagged and blocked, an empty answer that is never an opportunity
  if (deps.ivt && (channel.ivt === 'count' || channel.ivt === 'block')) {
    // (a later slot of an ad pod takes the first slot's verdict: one request, counted once by the rate rule)
    const ivt = (trace.ivt =
      options.ivtVerdict !== undefined ? options.ivtVerdict : deps.ivt.check(channel, ctx, !!options.test));
    if (ivt && ivt.reason) {
      ivtFlag = 1;
      if (ivt.blocked) return unfilled(deps, out, counters, `ivt.${ivt.reason}`, ivtFlag, now, started, reqs);
    }
  }
  const rule = channel.targeting ? refusal(channel.targeting, ctx) : null;
  if (rule) return unfilled(deps, out, counters, `channel_targeting.${rule}`, ivtFlag, now, started, reqs);

  let auction: AuctionResult | Promise<AuctionResult>;
  let sellerDeals: readonly SnapSupplyDeal[] | undefined;
  try {
    const deadline = Math.min(deps.clock.now() + channel.timeoutMs, options.deadline ?? Infinity);
    // the channel's deals for buyers in force on this request (SSP mode; a supplier's impression has
    // none), less those delivery control leaves out (an impression cap reached)
    const inForce = snapshot.supplyDeals ? dealsInForce(snapshot.supplyDeals.get(channel.id), ctx) : undefined;
    sellerDeals = inForce?.length ? dealsWithRoom(inForce, deps.pacing, now, traced ? trace : null) : inForce;
    if (traced && sellerDeals?.length)
      trace.deals = sellerDeals.map((d) => ({
        dealId: d.dealId,
        name: d.name,
        floorCpm: d.floorCpm,
        auctionType: d.auctionType,
        privateAuction: d.privateAuction,
      }));
    auction = runAuction(
      {
        clock: deps.clock,
        ctx,
        channel,
        snapshot,
        pacing: deps.pacing,
        deadline,
        supplier: options.supplier ?? null,
        deals: options.deals ?? [],
        privateAuction: options.privateAuction ?? (sellerDeals !== undefined && anyPrivate(sellerDeals)),
        sellerDeals,
        floorPerSecondCpm: options.floorPerSecondCpm ?? 0,
        durationFloors: options.durationFloors ?? null,
        traced,
      },
      deps.sources,
    );
  } catch {
    return unfilled(deps, out, counters, 'auction_error', ivtFlag, now, started, reqs);
  }
  // decided at once (nothing called over the network): settled now, no promise
  if (!(auction instanceof Promise))
    return settle(deps, out, counters, auction, ctx, options, ivtFlag, started, sellerDeals);
  return auction.then(
    (result) => settle(deps, out, counters, result, ctx, options, ivtFlag, started, sellerDeals),
    () => unfilled(deps, out, counters, 'auction_error', ivtFlag, now, started, reqs),
  );
}

/** The decision after its auction: the fates counted, the winner admitted by delivery control, signed and settled. */
function settle(
  deps: EdgeDeps,
  out: AdOutcome,
  counters: CounterScope,
  result: AuctionResult,
  ctx: RequestContext,
  options: DecideOptions,
  ivtFlag: number,
  started: number,
  sellerDeals: readonly SnapSupplyDeal[] | undefined,
): AdOutcome {
  const trace = out.trace;
  const decision = out.decision!;
  const channel = out.channel!;
  const snapshot = out.snapshot!;
  const now = ctx.now;
  const reqs = receivedOf(options);
  const ivt = reqs && ivtFlag;
  trace.sources = result.fates;
  trace.indexedOut = result.indexedOut;
  if (result.indexedOutCampaigns) trace.indexedOutCampaigns = result.indexedOutCampaigns;
  const w = result.winner;
  // the decision: delivery control reserves the winner's price on its budgets, the tag's daily
  // impressions and the viewer's frequency; refused (another process spent it first, a cap reached
  // since the auction looked), the request goes unfilled with that reason, or, for a format another
  // follows, is left to that one (DecideOptions.nextFormat, refusedBefore). A test spends nothing.
  // Admitted before the fates are counted: a refused winner counts as a bid that lost, not a win.
  let admission: Admission | null = null;
  let refusal = '';
  if (w) {
    decision.id = newDecisionId();
    admission = options.test
      ? null
      : admissionOf(deps.pacing, snapshot, channel, w.bid, w.clearingCpm, ctx, sellerDeals);
    const refused = admission ? deps.pacing.delivery.admit(decision.id, admission, now) : null;
    if (refused) refusal = refusedWinner(w.fate, `delivery.${refused}`);
  }
  countFates(counters, result.fates, w, snapshot, channel.tenantId, now, sellerDeals);
  if (!options.test) {
    // an optimised channel learns what each tag called was worth
    if (channel.optimise && deps.tagValues) measureCalls(deps.tagValues, channel, result.fates, now);
    if (deps.observeCall)
      for (const f of result.fates)
        if (f.ms !== undefined && f.source !== 'campaign') deps.observeCall(f.source, f.fate, f.ms);
    // a VAST demand's no-fill reported where its answers asked, as a player would (demand/errorPings.ts)
    if (deps.notify) for (const f of result.fates) if (f.errorPings) for (const url of f.errorPings) deps.notify(url);
  }
  if (!w) {
    const offered = result.offered > 0 || options.offeredBefore === true;
    const reason = offered ? 'no_bid' : 'no_demand';
    // (a format followed by another counts nothing yet: the last format's decision is the request's)
    if ((reqs || offered) && !options.nextFormat)
      counters.add({ nofill_reason: options.refusedBefore ?? reason }, { reqs, opps: offered ? 1 : 0, ivt }, now);
    decision.id = unfilledDecisionId();
    out.token = deps.signer.sign(decision);
    settleProgrammatic(ctx, result.fates, null, {
      test: !!options.test,
      token: out.token,
      signer: deps.signer,
      notify: deps.notify,
    });
    return finish(out, started, 200, reason);
  }
  const b = w.bid;
  if (refusal) {
    out.deliveryRefusal = refusal;
    if (!options.nextFormat) counters.add({ nofill_reason: refusal }, { reqs, opps: 1, ivt }, now);
    // (nothing filled: numbered as a no-fill, whose token only ever reports errors)
    decision.id = unfilledDecisionId();
    out.token = deps.signer.sign(decision);
    settleProgrammatic(ctx, result.fates, null, {
      test: false,
      token: out.token,
      signer: deps.signer,
      notify: deps.notify,
    });
    return finish(out, started, 200, refusal);
  }
  if (admission) decision.viewer = admission.viewer ?? '';
  counters.add({}, { reqs, opps: 1, ivt }, now);
  trace.winner = w.fate;
  out.winner = w;
  decision.tagId = b.tagId;
  decision.campaignId = b.campaignId;
  decision.creativeId = b.creativeId;
  decision.advertiserId = b.advertiserId;
  decision.revenueCpm = w.clearingCpm;
  decision.costCpm = w.payoutCpm;
  decision.adexchangeId = b.adexchangeId ?? 0;
  decision.dealId = b.dealId ?? '';
  decision.partner = b.partner ?? '';
  decision.marketplace = b.marketplace ?? '';
  // response out: the account's post-bid pixels on the sampled share (the token says so: its impression counts as post-bid)
  if (deps.postbid) {
    const chosen = deps.postbid.choose(snapshot.postbid, channel, decision.id, now, !!options.test);
    trace.postbid = chosen.trace;
    if (chosen.pixels.length) {
      decision.postbid = 1;
      out.postbidUrls = postbidPixelUrls(chosen.pixels, ctx, decision, deps.signer);
    }
  }
  out.token = deps.signer.sign(decision);
  // programmatic demand: the winner's macros and billing notice, its win notice and the losers' loss notices
  settleProgrammatic(ctx, result.fates, w, {
    test: !!options.test,
    token: out.token,
    signer: deps.signer,
    notify: deps.notify,
  });
  // a demand's VAST error trackers, for the versions whose one <Error> is ours (errorPings.ts errorForwardQuery)
  if (b.markup.kind !== 'campaign' && !options.test) {
    const errors = demandErrorTrackers(b.markup);
    if (errors.length) b.markup.errorForward = errorForwardQuery(errors, ctx, out.token, deps.signer);
  }
  return finish(out, started, 200, 'filled');
}

/**
 * What the winner would spend (null: neither a campaign nor a demand tag of the snapshot, nothing to
 * count): a tag's bid on one of the supply deals its request offered spends one of the deal's impressions too.
 */
function admissionOf(
  pacing: DeliveryGate,
  snapshot: Snapshot,
  channel: SnapChannel,
  bid: Winner['bid'],
  revenueCpm: number,
  ctx: RequestContext,
  sellerDeals: readonly SnapSupplyDeal[] | undefined,
): Admission | null {
  const campaign = bid.campaignId ? (snapshot.campaigns.get(bid.campaignId) ?? null) : null;
  const tag = bid.tagId ? (snapshot.tags.get(bid.tagId) ?? null) : null;
  if (!campaign && !tag) return null;
  const deal = (tag && bid.dealId && sellerDeals?.find((d) => d.dealId === bid.dealId)) || null;
  return pacing.admission(
    campaign,
    tag,
    snapshot.tenants.get(channel.tenantId)?.timezone ?? 0,
    revenueCpm,
    campaign?.frequencyCap ? pacing.viewerOf(ctx) : '',
    deal,
  );
}

/**
 * The deals in force that delivery control still offers (docs/delivery.md, "Supply deals' impression
 * caps"): a deal whose impressions have reached a cap is left out of the request, named in a traced
 * request's `dealsLeftOut` with why. The same list when none is left out.
 */
function dealsWithRoom(
  deals: readonly SnapSupplyDeal[],
  pacing: DeliveryGate,
  now: number,
  trace: DecisionTrace | null,
): readonly SnapSupplyDeal[] {
  let out: SnapSupplyDeal[] | null = null;
  for (let i = 0; i < deals.length; i++) {
    const d = deals[i]!;
    const refused = pacing.dealRefusal(d, now);
    if (refused) {
      out ??= deals.slice(0, i);
      if (trace) (trace.dealsLeftOut ??= []).push({ dealId: d.dealId, name: d.name, reason: refused });
    } else if (out) out.push(d);
  }
  return out ?? deals;
}

/** The VAST entry point's decision: the outcome rendered as a VAST document in the channel's version (at once when runDecision's is). */
export function decide(
  deps: EdgeDeps,
  channelUid: string,
  ctx: RequestContext,
  options: DecideOptions = NO_OPTIONS,
): DecisionOutcome | Promise<DecisionOutcome> {
  const o = runDecision(deps, channelUid, ctx, options);
  return o instanceof Promise ? o.then((done) => rendered(deps, done)) : rendered(deps, o);
}

/** An outcome as the VAST entry point answers it: the winner's document in the channel's version, or the empty one. */
export function rendered(deps: EdgeDeps, o: AdOutcome): DecisionOutcome {
  if (!o.channel || !o.snapshot)
    return {
      status: o.status,
      xml: emptyDocument(DEFAULT_VAST_VERSION, deps.origin, null),
      trace: o.trace,
      decisionId: null,
    };
  if (!o.winner)
    return {
      status: o.status,
      xml: emptyDocument(o.channel.vastVersion, deps.origin, o.token),
      trace: o.trace,
      decisionId: null,
    };
  const xml = withImpressionPixels(
    winnerDocument(o.channel, o.winner, deps.origin, o.token!, o.decision!.id),
    o.postbidUrls,
  );
  return { status: o.status, xml, trace: o.trace, decisionId: o.decision!.id };
}
