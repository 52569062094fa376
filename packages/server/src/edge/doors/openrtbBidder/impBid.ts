import { type Bid as OrtbBid, type BidRequest, type Imp, MTYPE } from '@adplane/shared';
import { type DecideOptions, type EdgeDeps, runDecision } from '../../decision/adDecision.js';
import { withFloorInForce } from '../../decision/floorInForce.js';
import { type DurationFloor, durationFloorOf } from '../../demand/demandSource.js';
import { type DecisionTrace } from '@adplane/shared';
import { type Metrics } from '../../counters/hourlyCounters.js';
import { adMarkupJsonOf } from '../../decision/adMarkup.js';
import { contextOfBidRequest } from '../../request/openrtbContext.js';
import { type GeoLookup } from '../../request/geo.js';
import { type SnapChannel, type SnapDeal, type Snapshot, type SnapSupplier } from '../../snapshot/types.js';
import { refusal } from '../../targeting/compiledTargeting.js';
import { type PodSoFar } from '../../request/context.js';
import { type DemandHops } from '../../request/demandHops.js';
import { rememberInPod } from '../../decision/adPod.js';
import { DEFAULT_VAST_VERSION } from '../../vast/vastVersion.js';
import { cpmIn, type CurrencyRates, floorMicros } from '../../ortb/currency.js';
import { protocolOfVersion, SKIPPABLE_ATTR as SKIPPABLE, vastVersionOfImp } from '../../targeting/impFit.js';
import { environmentOf, formatOf, rtbChannel, supplierChannel } from './bidChannels.js';
import { type DealTerms, matchDeals, tenantSeat } from './dealMatch.js';
import { channelDemandFloor, demandFloor, grossUp, NEVER } from './margins.js';
import { syncOnWin } from './supplierSync.js';

/**
 * One impression of an inbound bid request decided and turned into a bid (or null: no bid, counted
 * with its reason). The caller of a bid request is an exchange's server, not the viewer: the
 * viewer is the device the request describes, never the connection.
 */
export type Target =
  | { kind: 'supplier'; supplier: SnapSupplier; tenantId: number }
  | { kind: 'channel'; channel: SnapChannel; tenantId: number };

export interface ImpDeps {
  edge: EdgeDeps;
  /** Exchange rates: floors in another currency are converted to USD (absent: USD only). */
  rates?: () => CurrencyRates;
  geo: GeoLookup;
  origin: string;
  /** Counts a refusal of the request or an impression on the target's report row (nothing for a test request). */
  refuse(target: Target, reason: string, reqs: number, now: number, test: boolean): void;
}

export interface ImpBid {
  seat: string;
  /** The bid without its `adm`, which is admJson. */
  bid: OrtbBid;
  /** The markup as the contents of a JSON string (adMarkupJsonOf): the answer splices it in (rtbEntry bidJson). */
  admJson: string;
  /** The decision's pre-bid IVT verdict: a dynamic pod's next ad takes it (bidForImp's `previous`). */
  ivt: DecisionTrace['ivt'];
}

const NO_CONNECTION = { remoteAddress: '', userAgent: '' };
const NO_DEALS: readonly SnapDeal[] = [];

export interface ImpJob {
  target: Target;
  snapshot: Snapshot;
  request: BidRequest;
  arrival: number;
  deadline: number;
  test: boolean;
  /** The currency the answer bids in (the request's `cur`: USD when it allows it), and what one unit of it is worth in USD. */
  currency: string;
  usdPerUnit: number;
  /** A request one of the edge's own demand calls made, within the hops allowed (request/demandHops.ts); absent: anyone else's. */
  hops?: DemandHops | null;
}

/** Report dimensions of a refused impression: its target, nothing of the viewer (it was never read). */
export function refusalDims(target: Target, reason: string) {
  return target.kind === 'supplier'
    ? {
        tenant_id: target.tenantId,
        channel_id: 0,
        subpublisher_id: 0,
        supplier_id: target.supplier.id,
        integration: 'RTB',
        nofill_reason: reason,
      }
    : {
        tenant_id: target.tenantId,
        channel_id: target.channel.id,
        subpublisher_id: target.channel.subpublisherId,
        supplier_id: 0,
        integration: 'RTB',
        nofill_reason: reason,
      };
}

export const REQ: Metrics = { reqs: 1 };

/** Whether the request lets our open-auction seat buy (request wseat names it, when stated; bseat does not). */
function openSeatAllowed(request: BidRequest, seat: string): boolean {
  const { wseat, bseat } = request;
  if (Array.isArray(wseat) && wseat.length && !wseat.includes(seat)) return false;
  return !(Array.isArray(bseat) && bseat.includes(seat));
}

const positive = (v: unknown): v is number => typeof v === 'number' && v > 0;

/** imp.qty.multiplier (2.6 section 3.2.31): how many billable events one purchase of the impression is; 1 when not stated. */
export function quantityOf(imp: Imp): number {
  const qty: unknown = imp.qty;
  const m = qty && typeof qty === 'object' ? (qty as Record<string, unknown>).multiplier : undefined;
  return typeof m === 'number' && Number.isFinite(m) && m > 0 ? m : 1;
}

/**
 * A floor per billable event (micro-dollars CPM) as the floor of the whole purchase of `quantity`
 * events: what the demand must pay for one impression so that each event's share (our bid, the
 * payout divided by the quantity: bidInFormat) reaches it. 1: the floor itself, nothing computed.
 */
const purchaseFloor = (floor: number, quantity: number): number =>
  quantity === 1 || floor <= 0 ? floor : Math.ceil(floor * quantity - 1e-6);

/** Each billable event's share of what one purchase pays (imp.qty), in whole micro-dollars (a hair of float error forgiven, as purchaseFloor). */
const perEvent = (price: number, quantity: number): number =>
  quantity === 1 ? price : Math.floor(price / quantity + 1e-6);

/**
 * The floor (micro-dollars CPM) of an ad of `seconds` under video.durfloors (2.6 section 3.2.35):
 * the highest of the ranges holding that length (they may overlap), 0 when none does (imp.bidfloor
 * is then the floor), null when a range's floor is in a currency without a rate.
 */
export function durationFloor(
  durfloors: unknown,
  seconds: number,
  cur: unknown,
  rates: CurrencyRates | undefined,
): number | null {
  const ranges = auctionDurationFloors(durfloors, cur, rates, 1, (floor) => floor);
  return ranges === null ? null : ranges ? durationFloorOf(ranges, seconds) : 0;
}

/**
 * video.durfloors as the auction holds them (AuctionRequest.durationFloors): each range with a floor,
 * that floor per event made the purchase's (purchaseFloor) and turned into demand's money
 * (`toDemand`: the supplier's margin grossed up, or an RTB channel's payout: margins.ts); a range a
 * fixed payout reaches anyway is dropped, one it never reaches refuses every ad of its lengths.
 * Undefined when none; null when a range's floor is in a currency without a rate.
 */
function auctionDurationFloors(
  durfloors: unknown,
  cur: unknown,
  rates: CurrencyRates | undefined,
  quantity: number,
  toDemand: (floor: number) => number,
): DurationFloor[] | null | undefined {
  if (!Array.isArray(durfloors) || !durfloors.length) return undefined;
  let out: DurationFloor[] | undefined;
  for (const range of durfloors as unknown[]) {
    if (!range || typeof range !== 'object') continue;
    const { mindur, maxdur, bidfloor } = range as Record<string, unknown>;
    if (typeof mindur !== 'number' && typeof maxdur !== 'number') continue;
    if (!positive(bidfloor)) continue;
    const micros = floorMicros(bidfloor, cur, rates);
    if (micros === null) return null;
    const floorCpm = toDemand(purchaseFloor(micros, quantity));
    if (floorCpm <= 0) continue;
    (out ??= []).push({
      min: typeof mindur === 'number' ? mindur : 0,
      max: typeof maxdur === 'number' ? maxdur : Infinity,
      floorCpm,
    });
  }
  return out;
}

/**
 * The deals of an impression bought `quantity` events at once (imp.qty above 1): each deal's floor
 * held per event, as the open floor is (its offered floor the purchase's); a fixed-price deal is left
 * out, its price per event being its price divided by the quantity, under its own floor (never bid).
 */
function dealsPerPurchase(deals: readonly DealTerms[], quantity: number, marginPercent: number): DealTerms[] {
  const out: DealTerms[] = [];
  for (const d of deals)
    if (!d.fixed)
      out.push({
        ...d,
        offered: { ...d.offered, floorCpm: demandFloor(purchaseFloor(d.supplierFloorCpm, quantity), marginPercent) },
      });
  return out;
}

/** Whether a video impression names the protocols it takes (2.6 `protocols`, else 2.5's single `protocol`). */
const statesProtocols = (video: NonNullable<Imp['video']>): boolean =>
  Array.isArray(video.protocols) ? video.protocols.length > 0 : typeof video.protocol === 'number';

function refuse(deps: ImpDeps, job: ImpJob, reason: string): null {
  deps.refuse(job.target, reason, 1, job.arrival, job.test);
  return null;
}

/**
 * A format of a multi-format impression that found nothing and counted nothing (refused before its
 * decision, its auction without a winner, or its winner refused by delivery control after it): the
 * next format is decided and counts the request.
 */
interface Missed {
  missed: true;
  /** The pre-bid IVT verdict its decision gave (the next one takes it); undefined: no decision ran. */
  ivt?: DecisionTrace['ivt'];
  /** Whether its decision offered the impression to demand (an opportunity, whatever the next finds). */
  offered: boolean;
  /** `delivery.<refusal>` when delivery control refused its winner (DecideOptions.refusedBefore), else ''. */
  refusal: string;
}

const REFUSED: Missed = Object.freeze({ missed: true, offered: false, refusal: '' });
const NO_TURN: DecideOptions = Object.freeze({});
/** The first format of a multi-format impression: a no-fill leaves the next format the request (DecideOptions.nextFormat). */
const FIRST_FORMAT: DecideOptions = Object.freeze({ nextFormat: true });

/** A refusal of the impression: counted, or, for a format another follows (`turn.nextFormat`), left to that one. */
function refused(deps: ImpDeps, job: ImpJob, reason: string, turn: DecideOptions): null | Missed {
  return turn.nextFormat ? REFUSED : refuse(deps, job, reason);
}

/**
 * A video impression taking ads of at most `longest` seconds (its maxduration, or rqddurs, cut), or
 * null when it takes none that short: a fixed payout's longest ad (bidInFormat), what is left of a
 * dynamic pod's break (podBids.ts).
 */
export function cappedToLength(imp: Imp, longest: number): Imp | null {
  const video = imp.video!;
  if (longest < 1) return null;
  if (Array.isArray(video.rqddurs) && video.rqddurs.length) {
    const rqddurs = video.rqddurs.filter((d) => d <= longest);
    return rqddurs.length ? { ...imp, video: { ...video, rqddurs } } : null;
  }
  if (typeof video.minduration === 'number' && video.minduration > longest) return null;
  const maxduration =
    typeof video.maxduration === 'number' && video.maxduration > 0 ? Math.min(video.maxduration, longest) : longest;
  return { ...imp, video: { ...video, maxduration } };
}

/**
 * `pod`: the impression is a slot of an ad pod (imps sharing `video.podid`, decided one after
 * another: rtbEntry.ts), which must not repeat a campaign, an advertiser or a video of the slots
 * decided before it (decision/adPod.ts); its winner joins the pod. `previous`: the bid before this one
 * for the same impression (a dynamic pod's): this ad is an opportunity of the same request, counted
 * as one but not as another request, and takes its IVT verdict (DecideOptions.extraSlot).
 *
 * A multi-format impression (video and banner: outstream video with a banner fallback, a Prebid ad
 * unit with both mediaTypes) of a supplier set up for both is decided as video and, when that finds
 * no winner, as banner (multiFormatBid); of a target set up for display only, as its banner alone.
 * A slot of a pod too (OpenRTB 2.6 3.2.4: the impression is offered as each type it carries; the
 * pod is the video's): its banner, decided under the pod's separation, joins the pod when it wins.
 * A dynamic pod's later ads (`previous`) are video only: the break is made of videos. An impression
 * of one format is decided once, as before: no other allocation nor await.
 */
export function bidForImp(
  deps: ImpDeps,
  job: ImpJob,
  offered: Imp,
  pod?: PodSoFar,
  previous?: ImpBid,
): Promise<ImpBid | null> {
  const { target } = job;
  const formats = formatsOf(target);
  const format = formatOf(offered, formats);
  if (!format)
    return Promise.resolve(
      refuse(deps, job, offered.video || offered.banner ? 'format_not_set_up' : 'unsupported_media'),
    );
  if (offered.video && offered.banner && !previous) {
    // a multi-format impression: video then banner; or, for a supplier set up for display only, the banner alone
    if (format === 'video' && formats.includes('display')) return multiFormatBid(deps, job, offered, pod);
    if (format === 'display')
      return bidInFormat(deps, job, bannerOnly(offered), format, pod, NO_TURN) as Promise<ImpBid | null>;
  }
  // (with no format after it, a try counts its own no-fill: never Missed)
  return bidInFormat(
    deps,
    job,
    offered,
    format,
    pod,
    previous ? { extraSlot: true, ivtVerdict: previous.ivt } : NO_TURN,
  ) as Promise<ImpBid | null>;
}

/** The formats a target is set up for (a channel: its one). */
const formatsOf = (target: Target): readonly SnapChannel['format'][] =>
  target.kind === 'supplier' ? target.supplier.formats : [target.channel.format];

/**
 * The banner of an impression whose target is set up for display (a multi-format dynamic pod whose
 * break is too short for any video it takes: podBids.ts), or null.
 */
export function bannerOffered(job: ImpJob, imp: Imp): Imp | null {
  return imp.banner && formatsOf(job.target).includes('display') ? bannerOnly(imp) : null;
}

/**
 * A multi-format impression: video first (the richer ad, as before); when it finds no winner, is
 * refused (a player reading no VAST we write, a floor per second in a currency without a rate), or
 * its winner is refused by delivery control after the auction (a budget another process spent
 * first, the viewer's frequency cap reached since the auction looked), the banner, decided as an
 * impression of that format alone (its size, floor, deals and channel). One request, counted by the
 * decision that fills or by the last: the banner's takes the video's IVT verdict and, when the video
 * was offered to demand, counts the opportunity (DecideOptions.nextFormat, offeredBefore). The video's
 * delivery refusal names the request when the banner finds no winner either (refusedBefore: as
 * before the banner was tried); when the banner fills, the request is filled, and the refusal is on
 * delivery control's own count (adplane_delivery_refused). A video blocked as IVT is not followed:
 * that request is blocked in every format. The floors held on the winner (its length's,
 * video.durfloors; the quantity's, imp.qty) are held in the video's auction, so that a bid under
 * them loses there: the next best video wins, and without one the banner is tried. `pod`: a slot of
 * an ad pod, both formats under its separation.
 */
async function multiFormatBid(deps: ImpDeps, job: ImpJob, imp: Imp, pod: PodSoFar | undefined): Promise<ImpBid | null> {
  const video = await bidInFormat(deps, job, imp, 'video', pod, FIRST_FORMAT);
  if (!video || !('missed' in video)) return video;
  // (no decision ran: no verdict to pass on; a refused winner was offered, its decision's verdict given)
  let turn: DecideOptions = video.offered ? { offeredBefore: true } : NO_TURN;
  if (video.ivt !== undefined)
    turn = video.refusal
      ? { ivtVerdict: video.ivt, offeredBefore: true, refusedBefore: video.refusal }
      : { ivtVerdict: video.ivt, offeredBefore: video.offered };
  return bidInFormat(deps, job, bannerOnly(imp), 'display', pod, turn) as Promise<ImpBid | null>;
}

/** A multi-format impression as its banner alone: decided on its sizes, floor and deals, never its video's (its player size, mincpmpersec, durfloors). */
function bannerOnly(imp: Imp): Imp {
  const { video: _video, ...banner } = imp;
  return banner;
}

/** The impression decided in one format, `turn` the decision's place in its request (DecideOptions: a pod's later ad, a multi-format impression's try). */
async function bidInFormat(
  deps: ImpDeps,
  job: ImpJob,
  offered: Imp,
  format: SnapChannel['format'],
  pod: PodSoFar | undefined,
  turn: DecideOptions,
): Promise<ImpBid | Missed | null> {
  let imp = offered;
  const { target, request, arrival, test } = job;
  // a floor in another currency is taken at the operator's rates; without one, no bid
  const rates = deps.rates?.();
  // (no floor: its currency, even one without a rate, asks nothing)
  const impFloor = positive(imp.bidfloor) ? floorMicros(imp.bidfloor, imp.bidfloorcur, rates) : 0;
  if (impFloor === null) return refused(deps, job, 'currency', turn);
  // OpenRTB 2.6 video.mincpmpersec: a floor per second of the ad, in bidfloorcur, what the caller earns
  const perSecond =
    imp.video && typeof imp.video.mincpmpersec === 'number' && imp.video.mincpmpersec > 0
      ? floorMicros(imp.video.mincpmpersec, imp.bidfloorcur, rates)
      : 0;
  if (perSecond === null) return refused(deps, job, 'currency', turn);
  if (perSecond && target.kind === 'channel' && target.channel.payout.type === 'cpm') {
    // a channel paying its publisher a fixed CPM pays it whatever the demand bids: the floor per
    // second is a longest ad that payout reaches
    const capped = cappedToLength(imp, Math.floor(target.channel.payout.cpm / perSecond));
    if (!capped) return refused(deps, job, 'floor_above_payout', turn);
    imp = capped;
  }
  // 2.6 imp.qty: buying this impression is `multiplier` billable events (a DOOH screen's audience);
  // the demand pays for one, so each event is bid its share, every floor held per event: the
  // auction holds the purchase's (purchaseFloor), and a bid under it loses there to the next best
  const stated = quantityOf(imp);
  // (a multiplier under 1 is bid as one event, as before)
  const quantity = stated > 1 ? stated : 1;
  const version = imp.video ? vastVersionOfImp(imp.video) : null;
  // a player stating only protocols we write no VAST in (VAST 1.0, DAAST): nothing of ours plays there
  if (format === 'video' && !version && statesProtocols(imp.video!))
    return refused(deps, job, 'protocol_not_supported', turn);
  const ctx = contextOfBidRequest(
    request,
    imp,
    job.hops ? { ...NO_CONNECTION, hops: job.hops } : NO_CONNECTION,
    arrival,
    deps.geo,
  );
  if (pod) ctx.pod = pod;

  // 2.6 video.durfloors: the floor of the ad's length, when a range names it (the open auction's; a
  // deal has its own), held in the auction (AuctionRequest.durationFloors)
  const durfloors = format === 'video' ? (imp.video as { durfloors?: unknown } | undefined)?.durfloors : undefined;
  let seat = tenantSeat(target.tenantId);
  let deals: DealTerms[] = [];
  let options: DecideOptions;
  if (target.kind === 'supplier') {
    const { supplier } = target;
    const rule = supplier.targeting ? refusal(supplier.targeting, ctx) : null;
    if (rule) return refused(deps, job, `supplier_targeting.${rule}`, turn);
    deals = matchDeals(request, imp, job.snapshot.deals.get(supplier.tenantId), supplier, arrival, rates);
    if (quantity !== 1 && deals.length) deals = dealsPerPurchase(deals, quantity, supplier.marginPercent);
    const openAllowed = openSeatAllowed(request, seat);
    const privateAuction = imp.pmp?.private_auction === 1 || !openAllowed;
    if (privateAuction && !deals.length)
      return refused(deps, job, openAllowed ? 'private_auction_no_deal' : 'seat_not_allowed', turn);
    const channel = supplierChannel(
      job.snapshot,
      supplier,
      format,
      version ?? DEFAULT_VAST_VERSION,
      environmentOf(request),
      purchaseFloor(impFloor, quantity),
    );
    const floorPerSecondCpm = demandFloor(perSecond, supplier.marginPercent);
    options = {
      channel,
      integration: 'RTB',
      supplier,
      deals: deals.length ? deals.map((d) => d.offered) : NO_DEALS,
      privateAuction,
      deadline: job.deadline,
      test,
      trace: false,
      floorPerSecondCpm,
      ...turn,
    };
    if (durfloors) {
      const durationFloors = auctionDurationFloors(durfloors, imp.bidfloorcur, rates, quantity, (floor) =>
        demandFloor(floor, supplier.marginPercent),
      );
      if (durationFloors === null) return refused(deps, job, 'currency', turn);
      if (durationFloors) options.durationFloors = durationFloors;
    }
  } else {
    const channel = rtbChannel(withFloorInForce(target.channel, ctx), version, purchaseFloor(impFloor, quantity));
    if (channel.floorCpm >= NEVER) return refused(deps, job, 'floor_above_payout', turn);
    // (a channel paying its publisher a fixed CPM: the floor per second capped the ad's length above)
    const { payout } = target.channel;
    const floorPerSecondCpm = payout.type === 'revshare' ? grossUp(perSecond, payout.percent) : 0;
    options = { channel, integration: 'RTB', deadline: job.deadline, test, trace: false, floorPerSecondCpm, ...turn };
    if (durfloors) {
      const durationFloors = auctionDurationFloors(durfloors, imp.bidfloorcur, rates, quantity, (floor) =>
        channelDemandFloor(payout, floor),
      );
      if (durationFloors === null) return refused(deps, job, 'currency', turn);
      if (durationFloors) options.durationFloors = durationFloors;
    }
  }

  const outcome = await runDecision(deps.edge, '', ctx, options);
  const w = outcome.winner;
  if (!w) {
    // a format another follows, its auction without a winner or its winner refused by delivery control
    // (nothing counted): the next is tried. Blocked as IVT (counted), it is not: blocked in every format
    const { result, deliveryRefusal } = outcome;
    if (turn.nextFormat && (result === 'no_bid' || result === 'no_demand' || deliveryRefusal))
      return { missed: true, ivt: outcome.trace.ivt, offered: result !== 'no_demand', refusal: deliveryRefusal };
    return null;
  }
  if (!outcome.decision || !outcome.token) return null;
  // the price is what the caller earns: the winner's payout, or a fixed deal's price
  let price = w.payoutCpm;
  let floor = impFloor;
  const dealId = w.bid.dealId ?? '';
  if (dealId) {
    const terms = deals.find((d) => d.deal.dealId === dealId);
    if (!terms) return null;
    seat = terms.seat;
    floor = terms.supplierFloorCpm;
    if (terms.fixed) price = terms.supplierFloorCpm;
  }
  // (imp.qty: each billable event's share; the auction held the floors on the purchase, so that share
  // reaches them: what is checked here is a winner that could not be bid whatever its floor, a price of 0)
  price = perEvent(price, quantity);
  if (price <= 0 || price < floor) return null;
  // the VAST's <Pricing> states the price the caller pays (our bid), not what the demand pays us
  // (and a supplier that does not know our id for the viewer gets its sync pixel beside the ad's own: supplierSync.ts)
  const sync = target.kind === 'supplier' ? syncOnWin(target.supplier, ctx, deps.origin) : null;
  const postbidUrls = sync ? [...outcome.postbidUrls, sync] : outcome.postbidUrls;
  const markup = adMarkupJsonOf({ ...outcome, postbidUrls, winner: { ...w, clearingCpm: price } }, deps.origin);
  if (!markup) return null;

  const video = markup.mtype === MTYPE.video;
  // an ad that is itself skippable says so (creative attribute 16); where the impression blocks it, it
  // was refused before the auction (impFit.ts: our creatives and every demand's VAST ad alike)
  const bid: OrtbBid = {
    id: outcome.decision.id,
    impid: imp.id,
    // in the answer's currency (USD unless the request's cur asks another)
    price: cpmIn(price, job.usdPerUnit),
    nurl: `${deps.origin}/rtb/win?t=${outcome.token}&p=\${AUCTION_PRICE}`,
    adid: markup.crid,
    crid: markup.crid,
    mtype: markup.mtype,
  };
  if (w.bid.campaignId) bid.cid = String(w.bid.campaignId);
  if (markup.adomain.length) bid.adomain = [...markup.adomain];
  if (markup.cat.length) bid.cat = [...markup.cat];
  if (dealId) bid.dealid = dealId;
  // a video's size is the player's (the VAST's media files are picked by it); a banner's is its own
  const vw = video ? (imp.video?.w ?? 0) : 0;
  const vh = video ? (imp.video?.h ?? 0) : 0;
  const width = vw > 0 && vh > 0 ? vw : markup.w;
  const height = vw > 0 && vh > 0 ? vh : markup.h;
  if (width > 0 && height > 0) {
    bid.w = width;
    bid.h = height;
  }
  if (video) bid.protocol = protocolOfVersion(outcome.channel?.vastVersion ?? DEFAULT_VAST_VERSION);
  if (video && markup.dur > 0) bid.dur = markup.dur;
  if (video && markup.skippable) bid.attr = [SKIPPABLE];
  if (pod) rememberInPod(pod, w);
  return { seat, bid, admJson: markup.admJson, ivt: outcome.trace.ivt };
}
