import { MTYPE } from '@adplane/shared';
import { type DemandInline, type DemandWrapper, type EmptyAnswer, readVastAnswer } from '../vast/vastAnswer.js';
import { isObj } from './bidRequestReader.js';
import { type CurrencyRates } from './currency.js';

/**
 * Reads a demand's OpenRTB 2.6 bid response to the one impression we offered: the response must
 * answer our request (`id`), in USD; of its bids for our impression, the valid ones (a finite price
 * above zero, markup in `adm` or served on the win notice `nurl`, the media we asked for, a deal we
 * offered, nothing we blocked) are each an offer in our auction (every seat is a bidder, as Prebid
 * Server treats them), the highest-priced first. Anything else is a no-fill with its reason,
 * never an error of ours. The body is a stranger's JSON: every field is read by its type.
 */
export interface OrtbBid {
  /** The demand's price, USD CPM in micro-dollars. */
  priceCpm: number;
  /** What `${AUCTION_BID_ID}` names: the response's `bidid`, else the bid's `id`. */
  bidId: string;
  impId: string;
  seat: string;
  /** Markup in the bid ('' when served on the win notice). */
  adm: string;
  /** A video bid's `adm` as read when it came in (null: no adm, or a banner): the winner renders from it, not from a second parse. */
  vast: DemandInline | DemandWrapper | null;
  nurl: string;
  burl: string;
  lurl: string;
  adid: string;
  adomain: string[];
  cat: string[];
  crid: string;
  dealId: string;
  w: number;
  h: number;
  mtype: 1 | 2;
  /** The response's currency (`cur`), and what one unit of it is worth in USD (1 for USD): `priceCpm` is converted. */
  currency: string;
  usdPerUnit: number;
}

export interface ResponseExpectation {
  requestId: string;
  impId: string;
  media: 'video' | 'banner';
  /** Deal ids offered in the request (a bid naming another is refused). */
  deals: ReadonlySet<string>;
  /** imp.pmp.private_auction = 1: only deal bids. */
  privateAuction: boolean;
  bcat: readonly string[];
  badv: readonly string[];
  /** Exchange rates for a response in another currency than USD (ortb/currency.ts); absent: USD only. */
  rates?: CurrencyRates;
}

/**
 * A bid refused for `reason`, read far enough to be told of it (its loss notice: auction/notices.ts);
 * `unplayable`: its VAST `adm` had no ad a player could play, with the code and the error trackers.
 */
export interface RefusedBid {
  reason: string;
  bid: OrtbBid;
  unplayable?: EmptyAnswer;
}

/**
 * `bid`: the best valid bid. `others`: the response's other valid bids for our impression (other
 * seats', or more of one seat's), each an offer in our auction as the best is (absent: it had one).
 * `refusals`: every bid refused after it was read far enough to be told (absent: none).
 * `refused`: with no valid bid, the first of them, and its reason is the no-fill's. `unplayable`: that
 * bid's VAST `adm` when no ad of it could play (`bad_adm_<why>`), with the code a player reports and
 * the error trackers it gave.
 */
export type BidRead =
  | { ok: true; bid: OrtbBid; others?: OrtbBid[]; refusals?: RefusedBid[] }
  | { ok: false; reason: string; refused?: OrtbBid; unplayable?: EmptyAnswer; refusals?: RefusedBid[] };

/**
 * At most this many bids of one response are read (we offered one impression: a seat per bidder of a
 * Prebid Server and a few bids each is far below it); the rest are not looked at, so that an answer of
 * thousands of bids, each with a VAST to parse, cannot hold the event loop.
 */
export const MAX_BIDS_READ = 64;

/** Above this (USD CPM) a price is garbage, not a bid (the VAST <Pricing> reader draws the same line). */
const MAX_PRICE_USD = 1000;

const str = (v: unknown, max = 4096): string => (typeof v === 'string' ? v.trim().slice(0, max) : '');
const httpUrl = (v: unknown): string => {
  const s = str(v, 8192);
  return /^https?:\/\/\S+$/i.test(s) ? s : '';
};
const strings = (v: unknown, max = 50): string[] =>
  Array.isArray(v)
    ? v
        .filter((s): s is string => typeof s === 'string' && !!s.trim())
        .slice(0, max)
        .map((s) => s.trim())
    : [];
const dim = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 16_384 ? v : 0);

/** Parses the body (a 200 with JSON): `invalid_response` when it is not a bid response at all. */
export function parseBidResponse(body: string): unknown {
  try {
    // a byte-order mark, which JSON.parse refuses and RFC 8259 section 8.1 lets a reader ignore
    return JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    return undefined;
  }
}

/** IAB7 blocks IAB7-39 as well. */
function blockedCategory(cats: readonly string[], bcat: readonly string[]): boolean {
  const blocked = bcat.map((b) => b.toUpperCase());
  return cats.some((c) => blocked.some((b) => c === b || c.startsWith(`${b}-`)));
}

/** Prebid Server's `ext.prebid.type`, the media a bid is for when it states no `mtype`. */
const PREBID_TYPE: ReadonlyMap<unknown, number> = new Map([
  ['banner', MTYPE.banner],
  ['video', MTYPE.video],
  ['audio', MTYPE.audio],
  ['native', MTYPE.native],
]);

/**
 * The media a bid states: its `mtype`, else Prebid Server's `ext.prebid.type`; undefined when it states
 * none (null, or 0, are how serializers write an unset field: no markup type is 0).
 */
function statedMedia(raw: Record<string, unknown>): unknown {
  if (raw.mtype !== undefined && raw.mtype !== null && raw.mtype !== 0) return raw.mtype;
  const ext = raw.ext;
  const prebid = isObj(ext) ? ext.prebid : undefined;
  return isObj(prebid) ? PREBID_TYPE.get(prebid.type) : undefined;
}

/** A VAST document's start: an optional byte-order mark, XML declaration and comments, then `<VAST` (any prefix-free case). */
const VAST_START = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<VAST[\s>/]/i;

/** Whether a bid's markup is a VAST document (its start only: the rest is read where VAST is wanted). */
const isVastDocument = (adm: string): boolean => VAST_START.test(adm);

/**
 * One bid of the response: the bid, or why it is refused. A bid refused after its price and ids
 * were read (a wrong media type, markup missing or unreadable, a deal not offered, a blocked
 * advertiser or category) comes with what was read, so that its loss notice can be sent.
 */
function readBid(
  raw: unknown,
  seat: string,
  bidid: string,
  x: ResponseExpectation,
  currency: string,
  usdPerUnit: number,
): OrtbBid | { reason: string; bid?: OrtbBid; unplayable?: EmptyAnswer } {
  if (!isObj(raw)) return { reason: 'invalid_response' };
  if (str(raw.impid) !== x.impId) return { reason: 'imp_id_mismatch' };
  const price = raw.price;
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price * usdPerUnit > MAX_PRICE_USD)
    return { reason: 'invalid_price' };
  const wanted = x.media === 'video' ? MTYPE.video : MTYPE.banner;
  const bid: OrtbBid = {
    priceCpm: Math.round(price * usdPerUnit * 1_000_000),
    bidId: bidid || str(raw.id, 128),
    impId: x.impId,
    seat,
    adm: typeof raw.adm === 'string' ? raw.adm.trim() : '',
    vast: null,
    nurl: httpUrl(raw.nurl),
    burl: httpUrl(raw.burl),
    lurl: httpUrl(raw.lurl),
    adid: str(raw.adid, 128),
    adomain: strings(raw.adomain).map((d) => d.toLowerCase()),
    cat: strings(raw.cat).map((c) => c.toUpperCase()),
    crid: str(raw.crid, 128),
    dealId: str(raw.dealid, 128),
    w: dim(raw.w),
    h: dim(raw.h),
    mtype: wanted,
    currency,
    usdPerUnit,
  };
  const stated = statedMedia(raw);
  if (stated !== undefined && stated !== wanted) return { reason: 'wrong_media', bid };
  if (!bid.adm && !bid.nurl) return { reason: 'no_markup', bid };
  // (a VAST document answered for a banner, by a bidder that states no mtype: a video, never HTML to show)
  if (bid.adm && x.media === 'banner' && isVastDocument(bid.adm)) return { reason: 'wrong_media', bid };
  if (bid.adm && x.media === 'video') {
    const read = readVastAnswer(bid.adm);
    if (read.kind === 'empty') return { reason: `bad_adm_${read.reason}`, bid, unplayable: read };
    bid.vast = read;
  }
  // the reasons the auction gives deal bids too (auction/runAuction.ts)
  if (bid.dealId && !x.deals.has(bid.dealId)) return { reason: 'deal_not_offered', bid };
  if (!bid.dealId && x.privateAuction) return { reason: 'private_auction', bid };
  const badv = x.badv.map((d) => d.toLowerCase());
  if (bid.adomain.some((d) => badv.includes(d))) return { reason: 'blocked_adomain', bid };
  if (blockedCategory(bid.cat, x.bcat)) return { reason: 'blocked_category', bid };
  return bid;
}

/** The valid bids of a parsed response, the best first, and the refused ones; or why there is none. */
export function readBidResponse(body: unknown, x: ResponseExpectation): BidRead {
  if (!isObj(body)) return { ok: false, reason: 'invalid_response' };
  // no bids is a no-bid, with or without an id: `{}` and `{"id": ..., "nbr": 2}` are the no-bid signals of
  // the implementation guide (7.1), and a response with no actual bids is one (2.6 section 4.2); null is unset
  const none =
    body.seatbid === undefined || body.seatbid === null || (Array.isArray(body.seatbid) && body.seatbid.length === 0);
  if (none && (body.id === undefined || body.id === x.requestId)) return { ok: false, reason: 'no_bid' };
  if (typeof body.id !== 'string') return { ok: false, reason: 'invalid_response' };
  if (body.id !== x.requestId) return { ok: false, reason: 'request_id_mismatch' };
  if (!Array.isArray(body.seatbid)) return { ok: false, reason: 'invalid_response' };
  // absent (null, or empty, as serializers write an unset field): the default, USD
  const cur = body.cur === undefined || body.cur === null || body.cur === '' ? 'USD' : str(body.cur, 8).toUpperCase();
  // another currency: converted at the operator's rates (ortb/currency.ts), refused without one
  if (!/^[A-Z]{3}$/.test(cur)) return { ok: false, reason: 'currency_invalid' };
  const usdPerUnit = cur === 'USD' ? 1 : (x.rates?.rate(cur, 'USD') ?? null);
  if (usdPerUnit === null) return { ok: false, reason: `currency_${cur}` };
  const bidid = str(body.bidid, 128);
  let best: OrtbBid | null = null;
  // (allocated only for a response with more than one bid to tell of: the common single bid needs none)
  let others: OrtbBid[] | undefined;
  let refusals: RefusedBid[] | undefined;
  let refusal = '';
  let refused: OrtbBid | undefined;
  let unplayable: EmptyAnswer | undefined;
  let left = MAX_BIDS_READ;
  for (const seatbid of body.seatbid) {
    if (!isObj(seatbid) || !Array.isArray(seatbid.bid)) {
      refusal ||= 'invalid_response';
      continue;
    }
    const seat = str(seatbid.seat, 128);
    for (const raw of seatbid.bid) {
      if (left <= 0) break;
      left--;
      const bid = readBid(raw, seat, bidid, x, cur, usdPerUnit);
      if ('reason' in bid) {
        if (!refusal) {
          refusal = bid.reason;
          refused = bid.bid;
          unplayable = bid.unplayable;
        }
        // every refused bid hears why, not only the first
        if (bid.bid)
          (refusals ??= []).push(
            bid.unplayable
              ? { reason: bid.reason, bid: bid.bid, unplayable: bid.unplayable }
              : { reason: bid.reason, bid: bid.bid },
          );
      } else if (!best) best = bid;
      else if (bid.priceCpm > best.priceCpm) {
        (others ??= []).push(best);
        best = bid;
      } else (others ??= []).push(bid);
    }
  }
  if (best) {
    const read: BidRead = { ok: true, bid: best };
    if (others) read.others = others;
    if (refusals) read.refusals = refusals;
    return read;
  }
  if (!refused) return { ok: false, reason: refusal || 'no_bid' };
  const read: BidRead = unplayable
    ? { ok: false, reason: refusal, refused, unplayable }
    : { ok: false, reason: refusal, refused };
  if (refusals) read.refusals = refusals;
  return read;
}
