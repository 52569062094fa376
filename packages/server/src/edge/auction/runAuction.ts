import {
  adSeconds,
  type AuctionRequest,
  durationFloorOf,
  lengthFloor,
  type Bid,
  type CallResult,
  type DemandCandidate,
  type DemandSource,
} from '../demand/demandSource.js';
import { errorPings } from '../demand/errorPings.js';
import { sellerDealRefusal } from '../demand/sellerDeals.js';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { clearingCpm, payoutCpm } from '../demand/money.js';
import { type IndexedOutCampaign, type SourceFate } from '@adplane/shared';

/**
 * The auction as fixed stages (prebid-server's hook stages, where IVT checks and post-bid pixels
 * will hang): eligible demand from every source -> calls (all in parallel under the channel's
 * deadline in `auction` mode; in `priority` mode a waterfall, lower numbers first, equal numbers in
 * parallel; an optimised auction with a cap on calls in sets, as a waterfall's tiers) -> floors ->
 * winner and clearing price (first or second price) -> payout and margin.
 */
export interface Winner {
  candidate: DemandCandidate;
  bid: Bid;
  clearingCpm: number;
  payoutCpm: number;
  /** The next-highest offer above its floor (another source's, or another bid of the winner's own answer); null: none. */
  runnerUpCpm: number | null;
  /** Its fate records the floor the auction held it to (`floorCpm`: a deal's, one per second of the ad...). */
  fate: SourceFate;
}

export interface AuctionResult {
  winner: Winner | null;
  fates: SourceFate[];
  indexedOut: number;
  /** A traced request: the campaigns behind `indexedOut`, named (DecisionTrace.indexedOutCampaigns). */
  indexedOutCampaigns?: IndexedOutCampaign[];
  /** Candidates offered the request (opportunity when > 0). */
  offered: number;
}

/** A call that never outlives the deadline: a hanging demand becomes a timeout, never a stuck request. */
async function callUnderDeadline(c: DemandCandidate, req: AuctionRequest): Promise<CallResult> {
  // our own campaigns price at once: no network, no timer
  if (!c.external) return c.call(req).catch((): CallResult => ({ kind: 'no_fill', reason: 'source_error', ms: 0 }));
  const started = req.clock.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CallResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'timeout', ms: req.clock.now() - started }),
      Math.max(0, req.deadline - started),
    );
  });
  try {
    return await Promise.race([
      c.call(req).catch((): CallResult => ({ kind: 'no_fill', reason: 'source_error', ms: req.clock.now() - started })),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Priced {
  candidate: DemandCandidate;
  bid: Bid;
  fate: SourceFate;
  /** The floor the bid was held to (floorOf). */
  floor: number;
}

/**
 * Deals (DSP mode): a bid made under a deal must name a deal the request offers, and reaches that
 * deal's floor instead of the open floor; a private auction (imp.pmp.private_auction) takes deal
 * bids only. Deal floors here are in the demand's money, as the channel floor is. A candidate
 * offered supply deals (SSP mode) is held to their terms as an exchange holds its buyers
 * (demand/sellerDeals.ts): the deal offered to it, its seats and advertiser domains.
 */
function dealRule(bid: Bid, c: DemandCandidate, req: AuctionRequest): string | null {
  if (c.sellerDeals) return sellerDealRefusal(bid, c.sellerDeals, req.privateAuction);
  if (!bid.dealId) return req.privateAuction ? 'private_auction' : null;
  return req.deals.some((d) => d.dealId === bid.dealId) ? null : 'deal_not_offered';
}

/** The supply deal a bid of `c` was made on (null: none, or a DSP deal). */
const sellerDealOf = (bid: Bid, c: DemandCandidate) =>
  (bid.dealId && c.sellerDeals?.find((d) => d.dealId === bid.dealId)) || null;

function floorOf(bid: Bid, c: DemandCandidate, req: AuctionRequest): number {
  if (bid.dealId && c.sellerDeals) return sellerDealOf(bid, c)?.floorCpm ?? c.floorCpm;
  if (!bid.dealId) {
    // a floor per second of the ad (OpenRTB 2.6 mincpmpersec) and a floor by its length (durfloors), for an ad of known length
    const perSecond = req.floorPerSecondCpm;
    const byLength = req.durationFloors;
    if (!byLength) return perSecond ? Math.max(c.floorCpm, lengthFloor(perSecond, adSeconds(bid.markup))) : c.floorCpm;
    const seconds = adSeconds(bid.markup);
    return Math.max(c.floorCpm, perSecond ? lengthFloor(perSecond, seconds) : 0, durationFloorOf(byLength, seconds));
  }
  for (const d of req.deals) {
    if (d.dealId !== bid.dealId) continue;
    return d.floorPerSecondCpm
      ? Math.max(d.floorCpm, lengthFloor(d.floorPerSecondCpm, adSeconds(bid.markup)))
      : d.floorCpm;
  }
  return c.floorCpm;
}

/** The answers of a group: at once when every candidate's is known (our campaigns: no promise, no timer), else called under the deadline. */
function callGroup(group: readonly DemandCandidate[], req: AuctionRequest): CallResult[] | Promise<CallResult[]> {
  const known: CallResult[] = [];
  for (const c of group) {
    if (!c.immediate) return Promise.all(group.map((c) => callUnderDeadline(c, req)));
    known.push(c.immediate);
  }
  return known;
}

function priceGroup(
  group: readonly DemandCandidate[],
  results: readonly CallResult[],
  req: AuctionRequest,
  fates: SourceFate[],
): Priced[] {
  const priced: Priced[] = [];
  for (let i = 0; i < group.length; i++) {
    const r = results[i]!;
    const c = group[i]!;
    if (r.kind === 'refused') {
      fates.push({
        source: c.source,
        id: c.id,
        name: c.name,
        priority: c.priority,
        fate: 'filtered',
        reason: r.reason,
      });
      continue;
    }
    const fate: SourceFate = {
      source: c.source,
      id: c.id,
      name: c.name,
      priority: c.priority,
      fate: 'no_fill',
      ms: r.ms,
    };
    fates.push(fate);
    if (r.kind === 'timeout') fate.fate = 'timeout';
    else if (r.kind === 'no_fill') {
      fate.reason = r.reason;
      if (r.vastError) fate.vastError = r.vastError;
      if (r.errorUrls?.length) {
        const pings = errorPings(r.errorUrls, r.vastError ?? VAST_ERRORS.undefined, req.ctx);
        if (pings.length) fate.errorPings = pings;
      }
    } else {
      // a VAST demand's ads that failed before the one it bids with (a buffet's fallback): reported as a player would
      if (r.errorUrls?.length) {
        const pings = errorPings(r.errorUrls, VAST_ERRORS.undefined, req.ctx);
        if (pings.length) fate.errorPings = pings;
      }
      if (r.more) priceOffers(c, r.bid, r.more, req, fate, priced);
      else {
        const floor = judge(r.bid, c, req, fate);
        if (floor >= 0) priced.push({ candidate: c, bid: r.bid, fate, floor });
      }
    }
  }
  return priced;
}

/** A bid held to the deal rules and its floor, its fate set: the floor it reaches, or -1 when it may not compete. */
function judge(bid: Bid, c: DemandCandidate, req: AuctionRequest, fate: SourceFate): number {
  fate.bidCpm = bid.priceCpm;
  if (bid.dealId) fate.dealId = bid.dealId;
  const refused = dealRule(bid, c, req);
  if (refused) {
    fate.reason = refused;
    return -1;
  }
  const floor = floorOf(bid, c, req);
  if (bid.priceCpm < floor || bid.priceCpm <= 0) {
    fate.fate = 'below_floor';
    fate.reason = bid.priceCpm <= 0 ? 'zero_price' : `floor_${floor}`;
    fate.floorCpm = floor;
    return -1;
  }
  fate.fate = 'lost';
  return floor;
}

/**
 * An answer of several bids (openrtbCall.ts: several seats): each is an offer held to its own floor
 * (a deal's, one per second of its ad), and every one above it competes, so that at second price the
 * runner-up may be another bid of the same answer. The trace keeps one fate per source: its best bid
 * that competes (else its best); each bid's own fate is on it (Bid.offerFate) for its loss notice.
 */
function priceOffers(
  c: DemandCandidate,
  best: Bid,
  more: readonly Bid[],
  req: AuctionRequest,
  fate: SourceFate,
  priced: Priced[],
): void {
  const base = { ...fate };
  let chosen: Priced | null = null;
  const others: Priced[] = [];
  for (let i = -1; i < more.length; i++) {
    const bid = i < 0 ? best : more[i]!;
    const own: SourceFate = { ...base };
    bid.offerFate = own;
    const floor = judge(bid, c, req, own);
    if (floor < 0) continue;
    const p = { candidate: c, bid, fate: own, floor };
    if (!chosen) chosen = p;
    else if (bid.priceCpm > chosen.bid.priceCpm) {
      others.push(chosen);
      chosen = p;
    } else others.push(p);
  }
  const shown = chosen?.bid ?? best;
  // the source's fate is its chosen bid's: the one the auction marks won or lost
  Object.assign(fate, shown.offerFate);
  shown.offerFate = fate;
  if (!chosen) return;
  chosen.fate = fate;
  // (the chosen first: a bid of the same answer at the same price ranks after it)
  priced.push(chosen);
  for (const p of others) priced.push(p);
}

/** Whether `a` ranks before `b`: the higher price, then the lower priority number (equals keep their order). */
const ranksBefore = (a: Priced, b: Priced): boolean =>
  a.bid.priceCpm > b.bid.priceCpm || (a.bid.priceCpm === b.bid.priceCpm && a.candidate.priority < b.candidate.priority);

/**
 * What a bid on a supply deal pays: its deal's auction type decides, not the channel's (first price
 * its bid, second price the runner-up or the deal's floor plus a cent, fixed price the deal's floor,
 * the agreed price). null: not on a supply deal.
 */
function dealClearing(top: Priced, runnerUp: number | null): number | null {
  const deal = sellerDealOf(top.bid, top.candidate);
  if (!deal) return null;
  if (deal.auctionType === 3) return top.floor;
  return clearingCpm(deal.auctionType === 2 ? 'second' : 'first', top.bid.priceCpm, runnerUp, top.floor, false);
}

function decide(priced: Priced[], req: AuctionRequest): Winner | null {
  if (!priced.length) return null;
  // the first and second of a stable sort by rank, found in one pass each (no sort, no comparator closure)
  let topAt = 0;
  for (let i = 1; i < priced.length; i++) if (ranksBefore(priced[i]!, priced[topAt]!)) topAt = i;
  const top = priced[topAt]!;
  let second: Priced | null = null;
  for (let i = 0; i < priced.length; i++)
    if (i !== topAt && (!second || ranksBefore(priced[i]!, second))) second = priced[i]!;
  const runnerUp = second?.bid.priceCpm ?? null;
  // (at second price a bid clears at least the floor it was held to: a deal's under a deal (its terms, above
  // or below the open floor), a floor per second included; the minimum to win its notices tell is the same)
  const clearing =
    dealClearing(top, runnerUp) ??
    clearingCpm(req.channel.auctionPrice, top.bid.priceCpm, runnerUp, top.floor, top.bid.fixedPrice);
  const payout = payoutCpm(req.channel.payout, clearing);
  if (priced.length > 1) {
    const lostTo = `${top.candidate.source}#${top.candidate.id}`;
    for (let i = 0; i < priced.length; i++) if (i !== topAt) priced[i]!.fate.lostTo = lostTo;
  }
  top.fate.fate = 'won';
  // the floor it was held to, which its minimum to win is never under (auction/notices.ts)
  top.fate.floorCpm = top.floor;
  top.fate.clearingCpm = clearing;
  top.fate.payoutCpm = payout;
  top.fate.marginCpm = clearing - payout;
  return {
    candidate: top.candidate,
    bid: top.bid,
    clearingCpm: clearing,
    payoutCpm: payout,
    runnerUpCpm: runnerUp,
    fate: top.fate,
  };
}

/**
 * The auction. Its answer is at once (no promise) when no candidate had to be called over the
 * network: our campaigns win a waterfall's first tier on most requests, and the caller then
 * continues without a microtask; `await` reads either.
 */
export function runAuction(
  req: AuctionRequest,
  sources: readonly DemandSource[],
): AuctionResult | Promise<AuctionResult> {
  const fates: SourceFate[] = [];
  // one collector per auction (a bound push, not a named closure)
  const filtered: (f: SourceFate) => void = fates.push.bind(fates);
  const candidates: DemandCandidate[] = [];
  let indexedOut = 0;
  let named: IndexedOutCampaign[] | undefined;
  for (const source of sources) {
    const found = source.candidates(req, filtered);
    for (const c of found.candidates) candidates.push(c);
    indexedOut += found.indexedOut;
    if (found.indexedOutCampaigns) named = named ? named.concat(found.indexedOutCampaigns) : found.indexedOutCampaigns;
  }
  if (!candidates.length) return { winner: null, fates, indexedOut, indexedOutCampaigns: named, offered: 0 };

  let result: AuctionResult | Promise<AuctionResult>;
  if (req.channel.auctionSets) {
    // an optimised auction with a cap on calls: its sets called as tiers, our campaigns in the first
    result = waterfall(req, candidates, tiersOf(candidates, setOf), fates, indexedOut, setOf);
  } else if (req.channel.demandMode === 'auction') {
    const answers = callGroup(candidates, req);
    result = Array.isArray(answers)
      ? auctionResult(req, candidates, answers, fates, indexedOut)
      : answers.then((known) => auctionResult(req, candidates, known, fates, indexedOut));
  } else result = waterfall(req, candidates, tiersOf(candidates, priorityOf), fates, indexedOut, priorityOf);
  // (only a traced request has names: the serving path adds no step)
  if (!named) return result;
  const names = named;
  return result instanceof Promise ? result.then((r) => withNames(r, names)) : withNames(result, names);
}

const withNames = (r: AuctionResult, named: IndexedOutCampaign[]): AuctionResult => {
  r.indexedOutCampaigns = named;
  return r;
};

/** `auction` mode: every candidate's answer priced together. */
function auctionResult(
  req: AuctionRequest,
  candidates: DemandCandidate[],
  answers: CallResult[],
  fates: SourceFate[],
  indexedOut: number,
): AuctionResult {
  return {
    winner: decide(priceGroup(candidates, answers, req, fates), req),
    fates,
    indexedOut,
    offered: candidates.length,
  };
}

/** The tier a candidate is called in: its priority (a waterfall). */
const priorityOf = (c: DemandCandidate): number => c.priority;
/** The set a candidate is called in (an auction in sets): a tag's priority is its set; our campaigns compete in the first. */
const setOf = (c: DemandCandidate): number => (c.source === 'campaign' ? 1 : c.priority);

/** A waterfall's tiers in order: each tier known at once is priced here; from the first that must be called, the rest waits for it. */
function waterfall(
  req: AuctionRequest,
  candidates: DemandCandidate[],
  tiers: number[],
  fates: SourceFate[],
  indexedOut: number,
  tierOf: (c: DemandCandidate) => number,
): AuctionResult | Promise<AuctionResult> {
  for (let i = 0; i < tiers.length; i++) {
    const group = tiers.length === 1 ? candidates : candidates.filter((c) => tierOf(c) === tiers[i]);
    const answers = callGroup(group, req);
    if (!Array.isArray(answers))
      return waterfallFrom(req, candidates, tiers, i, group, answers, fates, indexedOut, tierOf);
    const done = tierDone(req, candidates, tiers[i]!, group, answers, fates, indexedOut, tierOf);
    if (done) return done;
  }
  return { winner: null, fates, indexedOut, offered: candidates.length };
}

async function waterfallFrom(
  req: AuctionRequest,
  candidates: DemandCandidate[],
  tiers: number[],
  from: number,
  firstGroup: DemandCandidate[],
  firstAnswers: Promise<CallResult[]>,
  fates: SourceFate[],
  indexedOut: number,
  tierOf: (c: DemandCandidate) => number,
): Promise<AuctionResult> {
  for (let i = from; i < tiers.length; i++) {
    const group = i === from ? firstGroup : candidates.filter((c) => tierOf(c) === tiers[i]);
    const answers = i === from ? await firstAnswers : await callGroup(group, req);
    const done = tierDone(req, candidates, tiers[i]!, group, answers, fates, indexedOut, tierOf);
    if (done) return done;
  }
  return { winner: null, fates, indexedOut, offered: candidates.length };
}

/** A tier's answers priced: the result when it won or the deadline passed (the later tiers not called), else null. */
function tierDone(
  req: AuctionRequest,
  candidates: DemandCandidate[],
  tier: number,
  group: DemandCandidate[],
  answers: CallResult[],
  fates: SourceFate[],
  indexedOut: number,
  tierOf: (c: DemandCandidate) => number,
): AuctionResult | null {
  const winner = decide(priceGroup(group, answers, req, fates), req);
  if (!winner && req.clock.now() < req.deadline) return null;
  for (const c of candidates)
    if (tierOf(c) > tier)
      fates.push({
        source: c.source,
        id: c.id,
        name: c.name,
        priority: c.priority,
        fate: 'not_called',
        reason: winner ? 'filled_earlier' : 'deadline',
      });
  return { winner, fates, indexedOut, offered: candidates.length };
}

/** The candidates' tiers, each once, lowest first (inserted in place: a handful, no sort call). */
function tiersOf(candidates: readonly DemandCandidate[], tierOf: (c: DemandCandidate) => number): number[] {
  const tiers: number[] = [];
  for (const c of candidates) {
    const p = tierOf(c);
    let at = tiers.length;
    while (at > 0 && tiers[at - 1]! > p) at--;
    if (at > 0 && tiers[at - 1] === p) continue;
    tiers.splice(at, 0, p);
  }
  return tiers;
}
