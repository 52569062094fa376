import { randomUUID } from 'node:crypto';
import { type Bid, type BidRequest, type BidResponse, type Imp, MTYPE, type SeatBid } from '@adplane/shared';
import { runDecision } from '../../decision/adDecision.js';
import { adMarkupOf } from '../../decision/adMarkup.js';
import { microsToCpm } from '../../ortb/bidRequestReader.js';
import { cpmIn, CurrencyRates, currencyCode, floorMicros, type RateSource, RatesInTurn } from '../../ortb/currency.js';
import { type ConnectionFacts } from '../../request/context.js';
import { contextOfBidRequest } from '../../request/openrtbContext.js';
import { type VastRequestDeps } from '../vastRequest.js';
import { type AuctionAsk, bidAdjustment, type OurImp } from './auctionRequest.js';
import { CACHE_PATH, type PrebidCache, cacheTtl, cacheUrl } from './bidCache.js';
import { targetingKeys } from './targetingKeys.js';
import { type EventUrlParts, eventUrls, vastEventUrl } from './prebidEvents.js';
import { withVastImpression } from './vastImpressions.js';

/**
 * One Prebid Server auction request decided: each of our impressions is a decision for its channel
 * (runDecision with integration PreBid, under the request's tmax), all in parallel, and the answer
 * is a Prebid Server bid response: one seat (adplane, or the alias the request used), a bid per
 * filled impression with its markup (adMarkupOf: VAST for video, HTML for a banner), the targeting
 * keys and cache entries the request asked for, and per-bidder errors and warnings in ext as Prebid
 * Server reports them (Prebid.js files them under the bidder's serverErrors).
 *
 * The price of a bid is what the publisher earns for the impression (the channel's payout: its
 * share of the clearing price, or its fixed CPM), not what demand pays. Prebid.js takes a Prebid
 * Server bid as net revenue and puts it against the page's other bidders and the ad server's line
 * items at that price: the publisher must compare what each would pay it. adplane's margin stays
 * inside, as an exchange's does.
 */
export interface PrebidDeps extends VastRequestDeps {
  cache: PrebidCache;
  /** The operator's exchange rates (ortb/currency.ts); absent: USD only. */
  rates?: () => CurrencyRates;
}

/** What converts currencies for this request: its own rates first (unless absent), then the operator's (unless it says not to). */
function ratesOf(deps: PrebidDeps, ask: AuctionAsk): RateSource {
  const server = ask.useServerRates ? (deps.rates?.() ?? CurrencyRates.USD_ONLY) : null;
  return new RatesInTurn([ask.rates, server].filter((r): r is CurrencyRates => r !== null));
}

/** Prebid Server's error and warning codes (errortypes/code.go). */
export const PBS_CODES = {
  badInput: 2,
  failedToRequestBids: 5,
  noConversionRate: 9,
  unknown: 999,
  floorRejection: 10009,
  unknownWarning: 10999,
} as const;

/**
 * Prebid Server's seat non-bid status codes (openrtb_ext/seat_non_bids.go, prebid-server-java's
 * BidRejectionReason; the IAB's seat-non-bid community extension): why an impression of ours got no
 * bid, in `ext.seatnonbid` when the request asks `ext.prebid.returnallbidstatus`.
 */
const NONBID = {
  /** Declined to bid: no demand, no bid, a paused channel, its targeting, IVT, a cap or budget spent. */
  noBid: 0,
  /** An error: an unknown channel, the edge starting, a failed decision. */
  errorGeneral: 100,
  /** Every demand called ran out of time. */
  errorTimeout: 101,
  /** Not decided: the ad unit offers none of the channel's format. */
  unsupportedMediaType: 202,
  /** Not decided: no rate converts USD into the request's currency. */
  unacceptableCurrency: 205,
  /** Decided, then refused: the winning ad is not of the channel's format, or a floor no rate converts. */
  rejectedGeneral: 300,
  rejectedBelowFloor: 301,
  rejectedBelowDealFloor: 304,
} as const;

interface NonBid {
  impid: string;
  statuscode: number;
  /** The refused bid (a floor rejection), as Prebid Server describes it. */
  ext?: { prebid: { bid: Record<string, unknown> } };
}

/** The no-bid status of a decision that found no winner, by its result (adDecision.ts) and its sources' fates. */
function noWinnerStatus(result: string, fates: readonly { fate: string }[]): number {
  if (result === 'auction_error' || result === 'unknown_channel' || result === 'warming_up') return NONBID.errorGeneral;
  if (
    fates.some((f) => f.fate === 'timeout') &&
    !fates.some((f) => f.fate === 'no_fill' || f.fate === 'lost' || f.fate === 'below_floor')
  )
    return NONBID.errorTimeout;
  return NONBID.noBid;
}

interface Note {
  code: number;
  message: string;
}

/** Time kept from tmax for our own work and the trip back: a tenth of it, 10 to 100 ms. */
const tmaxMargin = (tmax: number): number => Math.min(100, Math.max(10, Math.round(tmax / 10)));

interface ImpAnswer {
  seat: string;
  bid: Bid | null;
  error?: Note;
  warning?: Note;
  /** What the targeting and the cache need beyond the bid. */
  type?: 'banner' | 'video';
  /** The bid's price in USD (its `price` is in the answer's currency). */
  usdPrice?: number;
  /** No bid: its Prebid Server non-bid status (ext.seatnonbid). */
  nonbid?: NonBid;
  /** The decision's signed tracking token, and the signed notices its impression URL carries (the event URLs carry both). */
  token?: string;
  notices?: string;
  /** The channel the bid is for (the event URLs' account when the request names none). */
  channelUid?: string;
}

const imps = (n: number) => (n === 1 ? 'imp' : 'imps');

/** The impression narrowed to the channel's media (a multi-format ad unit bids in the channel's format), or why it cannot be. */
function narrowed(imp: Imp, format: 'video' | 'display'): Imp | null {
  const { banner, video, ...rest } = imp;
  // An impression that states no media at all (a stored-request style imp) takes the channel's.
  const statesNone = !banner && !video && !imp.native && !imp.audio;
  if (format === 'video') return video || statesNone ? { ...rest, video: video ?? {} } : null;
  return banner || statesNone ? { ...rest, banner: banner ?? {} } : null;
}

async function decideImp(
  deps: PrebidDeps,
  ask: AuctionAsk,
  our: OurImp,
  conn: ConnectionFacts,
  deadline: number | undefined,
  money: Money,
): Promise<ImpAnswer> {
  const { imp, channelUid: uid, seat } = our;
  const nonbid = (statuscode: number, ext?: NonBid['ext']): NonBid => ({
    impid: imp.id,
    statuscode,
    ...(ext ? { ext } : {}),
  });
  const snapshot = deps.snapshot();
  if (!snapshot)
    return {
      seat,
      bid: null,
      nonbid: nonbid(NONBID.errorGeneral),
      error: {
        code: PBS_CODES.failedToRequestBids,
        message: `imp "${imp.id}": the ad server is starting, try again in a moment`,
      },
    };
  const channel = snapshot.channelsByUid.get(uid);
  if (!channel)
    return {
      seat,
      bid: null,
      nonbid: nonbid(NONBID.errorGeneral),
      error: {
        code: PBS_CODES.badInput,
        message: `imp "${imp.id}": unknown channel "${uid}" (the channel uid from the adplane console)`,
      },
    };
  const slot = narrowed(imp, channel.format);
  if (!slot) {
    const wants = channel.format === 'video' ? 'video (mediaTypes.video)' : 'banner (mediaTypes.banner)';
    return {
      seat,
      bid: null,
      nonbid: nonbid(NONBID.unsupportedMediaType),
      warning: {
        code: PBS_CODES.unknownWarning,
        message: `imp "${imp.id}": channel "${uid}" is a ${channel.format} channel; the ad unit offers no ${wants}`,
      },
    };
  }
  const ctx = contextOfBidRequest(ask.request, slot, conn, deps.clock.now(), deps.geo);
  const outcome = await runDecision(deps, uid, ctx, {
    integration: 'PreBid',
    trace: false,
    ...(deadline !== undefined ? { deadline } : {}),
  });
  const markup = outcome.winner ? adMarkupOf(outcome, deps.origin) : null;
  if (!outcome.winner || !markup || !outcome.decision) {
    return {
      seat,
      bid: null,
      nonbid: nonbid(outcome.winner ? NONBID.errorGeneral : noWinnerStatus(outcome.result, outcome.trace.sources)),
    };
  }
  const type = channel.format === 'video' ? 'video' : 'banner';
  if ((markup.mtype === MTYPE.video) !== (type === 'video'))
    return {
      seat,
      bid: null,
      nonbid: nonbid(NONBID.rejectedGeneral),
      warning: { code: PBS_CODES.unknownWarning, message: `imp "${imp.id}": the winning ad is not a ${type}` },
    };
  const usdPrice = microsToCpm(outcome.winner.payoutCpm);
  if (!(usdPrice > 0)) return { seat, bid: null, nonbid: nonbid(NONBID.noBid) };
  // the publisher's bid adjustment (ext.prebid.bidadjustmentfactors), as Prebid Server applies it before
  // the floor and the price bucket; origbidcpm stays the price before it
  const instream = slot.video?.plcmt === 1 || slot.video?.placement === 1;
  const bidMicros = outcome.winner.payoutCpm * bidAdjustment(ask.adjustments, seat, type, instream);
  // the bid in the answer's currency (USD unless the request's cur asks another)
  const price = cpmIn(bidMicros, money.usdPerUnit);
  const floor = floorMicros(imp.bidfloor, imp.bidfloorcur, money.rates);
  if (floor === null) {
    return {
      seat,
      bid: null,
      nonbid: nonbid(NONBID.rejectedGeneral),
      warning: {
        code: PBS_CODES.noConversionRate,
        message: `imp "${imp.id}": no exchange rate for the floor's currency (${String(imp.bidfloorcur)}): no bid`,
      },
    };
  }
  const videoSlot = slot.video ?? {};
  const w = markup.w || (type === 'video' ? (videoSlot.w ?? 0) : 0);
  const h = markup.h || (type === 'video' ? (videoSlot.h ?? 0) : 0);
  const dealId = outcome.winner.bid.dealId;
  if (bidMicros < floor) {
    // The decision is counted (a request, an opportunity); no impression can follow a bid not sent.
    // Prebid Server's non-bid describes the refused bid (openrtb_ext.NewNonBid)
    const refused = {
      price,
      ...(w > 0 && h > 0 ? { w, h } : {}),
      ...(markup.adomain.length ? { adomain: [...markup.adomain] } : {}),
      ...(dealId ? { dealid: dealId } : {}),
      mtype: markup.mtype,
      origbidcpm: usdPrice,
      origbidcur: 'USD',
    };
    return {
      seat,
      bid: null,
      nonbid: nonbid(dealId ? NONBID.rejectedBelowDealFloor : NONBID.rejectedBelowFloor, { prebid: { bid: refused } }),
      warning: {
        code: PBS_CODES.floorRejection,
        message: `imp "${imp.id}": the best price, ${price.toFixed(2)} ${money.currency}, is under the floor of ${imp.bidfloor} ${imp.bidfloorcur ?? 'USD'}`,
      },
    };
  }
  const bid: Bid = {
    id: outcome.decision.id,
    impid: imp.id,
    price,
    adm: markup.adm,
    crid: markup.crid,
    mtype: markup.mtype,
    ...(w > 0 && h > 0 ? { w, h } : {}),
    ...(markup.adomain.length ? { adomain: [...markup.adomain] } : {}),
    ...(markup.cat.length ? { cat: [...markup.cat] } : {}),
    ...(dealId ? { dealid: dealId } : {}),
    ...(type === 'video' && markup.dur > 0 ? { dur: markup.dur } : {}),
  };
  // the notices programmatic demand's impression URL carries (auction/notices.ts), for the event URLs
  const won = outcome.winner.bid.markup;
  const notices = won.kind === 'ortb' ? (won.settled?.billingQuery ?? '').replace(/^&/, '') : '';
  return { seat, bid, type, usdPrice, token: outcome.token ?? '', notices, channelUid: uid };
}

/** The answer's currency, what one unit of it is worth in USD, and the rates a floor in another is read with. */
interface Money {
  currency: string;
  usdPerUnit: number;
  rates: RateSource;
}

/** The response's ext.errors / ext.warnings: notes by bidder code, absent when there are none. */
function bySeat(notes: { seat: string; note: Note }[]): Record<string, Note[]> | undefined {
  if (!notes.length) return undefined;
  const out: Record<string, Note[]> = {};
  for (const { seat, note } of notes) (out[seat] ??= []).push(note);
  return out;
}

export async function runPrebidAuction(
  deps: PrebidDeps,
  ask: AuctionAsk,
  conn: ConnectionFacts,
  started = deps.clock.now(),
): Promise<BidResponse> {
  const { request } = ask;
  const errors: { seat: string; note: Note }[] = [];
  // the request's own (an eid Prebid Server would remove, removed), under general as Prebid Server files them
  const warnings: { seat: string; note: Note }[] = ask.warnings.map((note) => ({ seat: 'general', note }));
  const deadline = ask.tmax !== null ? started + Math.max(0, ask.tmax - tmaxMargin(ask.tmax)) : undefined;
  const decideStarted = performance.now();
  let answers: ImpAnswer[];
  // the answer's currency, as Prebid Server reads it: the first of the request's cur (the ad server's), else USD
  const rates = ratesOf(deps, ask);
  const wanted = Array.isArray(request.cur) && request.cur.length ? currencyCode(request.cur[0]) : 'USD';
  const usdPerUnit = wanted ? rates.rate(wanted, 'USD') : null;
  const answerIn = wanted && usdPerUnit ? { currency: wanted, usdPerUnit } : null;
  const money: Money = { currency: answerIn?.currency ?? 'USD', usdPerUnit: answerIn?.usdPerUnit ?? 1, rates };
  if (!answerIn) {
    answers = ask.imps.map((our) => ({
      seat: our.seat,
      bid: null,
      nonbid: { impid: our.imp.id, statuscode: NONBID.unacceptableCurrency },
      error: {
        code: PBS_CODES.noConversionRate,
        message: `no exchange rate from USD to ${String(request.cur?.[0])}, the request's currency: set ext.prebid.currency.rates, or ask the operator for rates`,
      },
    }));
  } else {
    answers = await Promise.all(
      ask.imps.map((our) =>
        decideImp(deps, ask, our, conn, deadline, money).catch((error: unknown): ImpAnswer => {
          deps.onError(error);
          return {
            seat: our.seat,
            bid: null,
            nonbid: { impid: our.imp.id, statuscode: NONBID.errorGeneral },
            error: { code: PBS_CODES.unknown, message: `imp "${our.imp.id}": the decision failed` },
          };
        }),
      ),
    );
  }
  const decideMs = Math.round(performance.now() - decideStarted);

  const origin = deps.origin;
  const cacheHost = hostOf(origin);
  const seats = new Map<string, Bid[]>();
  const nonbids = new Map<string, NonBid[]>();
  // Prebid Server's auction timestamp: the page's (analytics join on it), else its own
  const auctionTs = auctionTimestamp(request.ext) ?? started;
  const account = publisherId(request);
  for (const answer of answers) {
    if (answer.error) errors.push({ seat: answer.seat, note: answer.error });
    if (answer.warning) warnings.push({ seat: answer.seat, note: answer.warning });
    if (answer.nonbid) {
      const list = nonbids.get(answer.seat) ?? [];
      list.push(answer.nonbid);
      nonbids.set(answer.seat, list);
    }
    if (!answer.bid || !answer.type) continue;
    const bid = answer.bid;
    const type = answer.type;
    const bidid = randomUUID();
    // Prebid Server's events, when the request asks: a banner bid's win and imp URLs (ext.prebid.events,
    // below); a video bid's imp event written into its VAST as one more <Impression> (exchange/events.go
    // modifyBidVAST), before the VAST is cached, so that the cached copy carries it too. Either counts the
    // impression once with our own tracker (the token's replay guard: prebidEvents.ts)
    const eventParts: EventUrlParts | null =
      ask.events && answer.token
        ? {
            origin,
            bidId: bidid,
            account: account || answer.channelUid || '',
            bidder: answer.seat,
            integration: ask.integration,
            timestamp: auctionTs,
            token: answer.token,
            notices: answer.notices ?? '',
          }
        : null;
    if (eventParts && type === 'video' && bid.adm) bid.adm = withVastImpression(bid.adm, vastEventUrl(eventParts));
    // the cached bid JSON is the bid as the bidder answered it, before targeting and cache fields
    const [cachedBid, cachedVast] = await Promise.all([
      ask.cacheBids ? deps.cache.put({ type: 'json', body: JSON.stringify(bid) }, ask.cacheBids.ttl) : null,
      ask.cacheVast && type === 'video' && bid.adm
        ? deps.cache.put({ type: 'xml', body: bid.adm }, ask.cacheVast.ttl)
        : null,
    ]);
    const cache: Record<string, { url: string; cacheId: string }> = {};
    if (cachedBid) cache.bids = { url: cacheUrl(origin, cachedBid), cacheId: cachedBid };
    if (cachedVast) cache.vastXml = { url: cacheUrl(origin, cachedVast), cacheId: cachedVast };
    const targeting = ask.targeting
      ? targetingKeys(ask.targeting, answer.seat, {
          price: bid.price,
          type,
          w: bid.w ?? 0,
          h: bid.h ?? 0,
          dealId: bid.dealid ?? '',
          cacheId: cachedBid,
          vastCacheId: cachedVast,
          cacheHost,
          cachePath: CACHE_PATH,
          app: !!request.app,
        })
      : null;
    // returnCreative: false keeps the markup out of the answer once it is cached (the page loads it by URL)
    if (
      (cachedVast && ask.cacheVast?.returnCreative === false) ||
      (type !== 'video' && cachedBid && ask.cacheBids?.returnCreative === false)
    )
      delete bid.adm;
    // the bid lives as long as its cached markup
    if (cachedBid || cachedVast) bid.exp = cacheTtl((cachedVast ? ask.cacheVast?.ttl : ask.cacheBids?.ttl) ?? null);
    // Prebid Server's event URLs in ext.prebid.events: a banner bid's (a video bid gets none, as there: its VAST has the imp event)
    const events = eventParts && type === 'banner' ? eventUrls(eventParts) : null;
    bid.ext = {
      // as Prebid Server writes them: the bid before conversion, in the currency we bid in
      origbidcpm: answer.usdPrice!,
      origbidcur: 'USD',
      prebid: {
        type,
        bidid,
        meta: { adaptercode: answer.seat, mediaType: type, ...(bid.adomain ? { advertiserDomains: bid.adomain } : {}) },
        // no keys (includewinners and includebidderkeys both false): no targeting, as Prebid Server omits an empty one
        ...(targeting && Object.keys(targeting).length ? { targeting } : {}),
        ...(cachedBid || cachedVast ? { cache } : {}),
        ...(events ? { events } : {}),
        // as Prebid Server writes a video bid's duration (Prebid.js reads it for long-form ad pods)
        ...(type === 'video' && bid.dur ? { video: { duration: bid.dur, primary_category: '' } } : {}),
      },
    };
    const list = seats.get(answer.seat) ?? [];
    list.push(bid);
    seats.set(answer.seat, list);
  }

  const seatbid: SeatBid[] = [...seats].map(([seat, bid]) => ({ seat, bid }));
  const responsetimemillis: Record<string, number> = {};
  for (const our of ask.imps) responsetimemillis[our.seat] = decideMs;
  if (!ask.imps.length)
    warnings.push({
      seat: 'general',
      note: {
        code: PBS_CODES.unknownWarning,
        message: `no impression is for adplane: name the channel in imp.ext.prebid.bidder.adplane.channel (${request.imp.length} ${imps(request.imp.length)} read)`,
      },
    });
  const ext: Record<string, unknown> = {
    responsetimemillis,
    // the time the auction was given: the request's tmax, else (as Prebid Server puts its default
    // in) the longest of the asked channels' own time limits
    tmaxrequest: ask.tmax ?? channelsTimeout(deps, ask),
    // Prebid Server echoes the page's auction timestamp (analytics join on it), else its own
    prebid: { auctiontimestamp: auctionTs },
  };
  const errorsBySeat = bySeat(errors);
  const warningsBySeat = bySeat(warnings);
  if (errorsBySeat) ext.errors = errorsBySeat;
  if (warningsBySeat) ext.warnings = warningsBySeat;
  // Prebid Server's debug output (openrtb_ext.ExtResponseDebug): the request as the auction read it.
  // No httpcalls: adplane's demand calls belong to the tenant, not to the page.
  if (ask.debug) ext.debug = { resolvedrequest: request };
  // Prebid Server's seat non-bids (exchange.go: with returnallbidstatus), absent when every impression of ours got a bid
  if (ask.returnAllBidStatus && nonbids.size) ext.seatnonbid = [...nonbids].map(([seat, nonbid]) => ({ seat, nonbid }));
  return { id: request.id, seatbid, cur: money.currency, ext };
}

/** The longest time limit of the channels the request names (0 when none is known). */
function channelsTimeout(deps: PrebidDeps, ask: AuctionAsk): number {
  const snapshot = deps.snapshot();
  let most = 0;
  for (const our of ask.imps) most = Math.max(most, snapshot?.channelsByUid.get(our.channelUid)?.timeoutMs ?? 0);
  return most;
}

function auctionTimestamp(ext: unknown): number | null {
  const prebid = ext && typeof ext === 'object' ? (ext as { prebid?: unknown }).prebid : null;
  const at = prebid && typeof prebid === 'object' ? (prebid as { auctiontimestamp?: unknown }).auctiontimestamp : null;
  return typeof at === 'number' && Number.isFinite(at) ? at : null;
}

/** The request's account as Prebid Server reads it: its site's, app's or dooh's publisher id ('' when none). */
function publisherId(request: BidRequest): string {
  for (const holder of [request.site, request.app, (request as { dooh?: unknown }).dooh]) {
    const publisher = holder && typeof holder === 'object' ? (holder as { publisher?: unknown }).publisher : null;
    const id = publisher && typeof publisher === 'object' ? (publisher as { id?: unknown }).id : null;
    if (typeof id === 'string' && id) return id;
  }
  return '';
}

/** host[:port] of an origin (hb_cache_host), '' for a malformed one. */
function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return '';
  }
}
