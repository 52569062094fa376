import { type BidRequest, type Imp } from '@adplane/shared';
import { isObj, readBidRequest } from '../../ortb/bidRequestReader.js';
import { type CurrencyRates, parseCurrencyFile } from '../../ortb/currency.js';
import { droppedUsPrivacy, pbsRuleBreach, prunedEids, type RuleNote } from '../../ortb/pbsRules.js';
import { DEFAULT_GRANULARITY, type PriceGranularity, readGranularity } from './priceGranularity.js';

/**
 * What the Prebid Server auction endpoint reads from a request beyond the OpenRTB contract
 * (ortb/bidRequestReader.ts): which impressions are ours and for which channel, the targeting
 * keys asked (ext.prebid.targeting) and the caching asked (ext.prebid.cache). Stored-request-free:
 * the request carries everything, and a "stored request id" is read as a channel uid.
 *
 * An impression is ours, for a channel, when it names it (first match wins):
 * 1. `imp.ext.prebid.bidder.adplane.channel` (Prebid.js's prebidServerBidAdapter with params
 *    `{ channel }`; the code in any case, as Prebid Server matches bidder names), or the same under
 *    an alias of adplane (`ext.prebid.aliases`);
 * 2. `imp.ext.adplane.channel` (bidder params straight under imp.ext, the older Prebid Server form,
 *    the code in any case or an alias there too);
 *    in either place a missing `channel` is taken from the request's `ext.prebid.bidderparams.<code>`,
 *    as Prebid Server merges request-level bidder params into the impression's;
 * 3. `imp.ext.prebid.storedrequest.id`;
 * 4. the request's `ext.prebid.storedrequest.id`, for an impression that names no bidder at all.
 * An impression only for other bidders is not ours: adplane is one bidder, it ignores it. One that
 * names no bidder and no stored request is for no one: a 400, as Prebid Server answers it.
 *
 * Every field is checked by type; a wrong type is a 400 naming it (Prebid Server answers
 * "Invalid request: ..."), never a guess; so is what Prebid Server's own validation refuses
 * (pbsRules.ts).
 */
export const BIDDER_CODE = 'adplane';

export interface TargetingAsk {
  granularity: PriceGranularity;
  /** Per media type (mediatypepricegranularity), over `granularity`. */
  banner: PriceGranularity | null;
  video: PriceGranularity | null;
  includeWinners: boolean;
  includeBidderKeys: boolean;
  includeFormat: boolean;
  /** Bidder-suffixed keys for a deal bid even without includebidderkeys. */
  alwaysIncludeDeals: boolean;
  /** The key prefix ("hb" unless asked). */
  prefix: string;
  /** Keys longer than this are cut (20 unless truncateattrchars says otherwise). */
  maxKeyLength: number;
}

interface CacheAsk {
  /** Seconds asked, null for our default. */
  ttl: number | null;
  returnCreative: boolean;
}

export interface OurImp {
  /** Position in the request (errors name it). */
  index: number;
  imp: Imp;
  channelUid: string;
  /** The bidder code the request used for us: adplane or its alias (the seat of our bids). */
  seat: string;
}

export interface AuctionAsk {
  request: BidRequest;
  imps: OurImp[];
  targeting: TargetingAsk | null;
  cacheBids: CacheAsk | null;
  cacheVast: CacheAsk | null;
  /** The request's tmax in ms, null when absent or 0. */
  tmax: number | null;
  /**
   * The rates the request brings (`ext.prebid.currency.rates`, Prebid.js's currency module: tried
   * before the operator's unless `usepbsrates` is false, then alone), null when none.
   */
  rates: CurrencyRates | null;
  /** `ext.prebid.currency.usepbsrates` (default true): the operator's rates may answer what the request's do not. */
  useServerRates: boolean;
  /** `test: 1` or `ext.prebid.debug: true` (Prebid.js's `debug` config): the answer carries `ext.debug`. */
  debug: boolean;
  /**
   * `ext.prebid.events` present (any object, `{}` included, as Prebid Server enables them): each banner
   * bid carries `ext.prebid.events.win` / `.imp`, URLs to GET /event (prebidEvents.ts).
   */
  events: boolean;
  /** `ext.prebid.integration` (the `int` of the event URLs), '' when absent. */
  integration: string;
  /** `ext.prebid.returnallbidstatus: true`: the answer lists the impressions without a bid in `ext.seatnonbid`. */
  returnAllBidStatus: boolean;
  /** `ext.prebid.bidadjustmentfactors`: what each bidder's bids are multiplied by (bidAdjustment). */
  adjustments: BidAdjustments;
  /** The request's own warnings (what was removed from it, as Prebid Server removes it), answered under `general`. */
  warnings: RuleNote[];
}

/**
 * The publisher's bid adjustments, as Prebid Server applies them: a factor by bidder code (any case),
 * and Prebid Server Java's by media type (`mediatypes.banner`, `.video`, `.video-instream`,
 * `.video-outstream`), which comes first. Keys lower-cased.
 */
export interface BidAdjustments {
  byBidder: Record<string, number>;
  byType: Record<string, Record<string, number>>;
}

/**
 * The factor a bid of `seat` in `type` is multiplied by (1 when none is set): the media type's (for
 * video, its instream or outstream one before plain `video`), else the bidder's.
 */
export function bidAdjustment(
  adjustments: BidAdjustments,
  seat: string,
  type: 'banner' | 'video',
  instream: boolean,
): number {
  const code = seat.toLowerCase();
  const types = type === 'video' ? [instream ? 'video-instream' : 'video-outstream', 'video'] : ['banner'];
  for (const t of types) {
    const factor = adjustments.byType[t]?.[code];
    if (factor !== undefined) return factor;
  }
  return adjustments.byBidder[code] ?? 1;
}

export type AskResult = { ok: true; ask: AuctionAsk } | { ok: false; field: string; reason: string };

type Obj = Record<string, unknown>;

class Invalid extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

/** An optional object at `field`: {} when absent, a 400 when it is something else. */
function objAt(parent: Obj, key: string, field: string): Obj {
  const v = parent[key];
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new Invalid(field, 'must be an object');
  return v;
}

function boolAt(parent: Obj, key: string, field: string, fallback: boolean): boolean {
  const v = parent[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw new Invalid(field, 'must be true or false');
  return v;
}

function uidAt(parent: Obj, key: string, field: string): string | null {
  const v = parent[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !v.trim() || v.length > 64)
    throw new Invalid(field, 'must be a channel uid (a non-empty string)');
  return v.trim();
}

const MAX_KEY_LENGTH = 20;
/** The longest key without its prefix ("_cache_host"); a prefix that leaves no room for it is refused (Prebid Server falls back to hb). */
const LONGEST_KEY_SUFFIX = 12;

function readTargeting(ext: Obj): TargetingAsk | null {
  const prebid = objAt(ext, 'prebid', 'ext.prebid');
  if (prebid.targeting === undefined || prebid.targeting === null) return null;
  const t = objAt(prebid, 'targeting', 'ext.prebid.targeting');
  const at = 'ext.prebid.targeting';
  const granularityOf = (value: unknown, field: string): PriceGranularity => {
    const r = readGranularity(value, field);
    if (!r.ok) throw new Invalid(r.field, r.reason);
    return r.value;
  };
  const granularity =
    t.pricegranularity === undefined || t.pricegranularity === null
      ? DEFAULT_GRANULARITY
      : granularityOf(t.pricegranularity, `${at}.pricegranularity`);
  const byType = objAt(t, 'mediatypepricegranularity', `${at}.mediatypepricegranularity`);
  const typed = (key: 'banner' | 'video') =>
    byType[key] === undefined || byType[key] === null
      ? null
      : granularityOf(byType[key], `${at}.mediatypepricegranularity.${key}`);
  const includeWinners = boolAt(t, 'includewinners', `${at}.includewinners`, true);
  // Both false is a valid request that asks for no keys (Prebid Server Go's targeting-optional-all-false
  // sample: 200, no targeting in the bids); Prebid Server Java and older Go refused it with a 400
  const includeBidderKeys = boolAt(t, 'includebidderkeys', `${at}.includebidderkeys`, true);
  let maxKeyLength = MAX_KEY_LENGTH;
  const truncate = t.truncateattrchars;
  if (truncate !== undefined && truncate !== null) {
    if (!Number.isInteger(truncate) || (truncate as number) < 0 || (truncate as number) > 255)
      throw new Invalid(`${at}.truncateattrchars`, 'must be an integer from 0 to 255');
    if ((truncate as number) > 0) maxKeyLength = truncate as number;
  }
  let prefix = 'hb';
  if (t.prefix !== undefined && t.prefix !== null) {
    if (typeof t.prefix !== 'string' || !/^[A-Za-z0-9_-]{1,20}$/.test(t.prefix))
      throw new Invalid(`${at}.prefix`, 'must be letters, digits, _ or - (at most 20)');
    if (t.prefix.length + LONGEST_KEY_SUFFIX <= maxKeyLength) prefix = t.prefix;
  }
  return {
    granularity,
    banner: typed('banner'),
    video: typed('video'),
    includeWinners,
    includeBidderKeys,
    includeFormat: boolAt(t, 'includeformat', `${at}.includeformat`, false),
    alwaysIncludeDeals: boolAt(t, 'alwaysincludedeals', `${at}.alwaysincludedeals`, false),
    prefix,
    maxKeyLength,
  };
}

function readCache(ext: Obj, kind: 'bids' | 'vastxml'): CacheAsk | null {
  const prebid = objAt(ext, 'prebid', 'ext.prebid');
  const cache = objAt(prebid, 'cache', 'ext.prebid.cache');
  if (cache[kind] === undefined || cache[kind] === null) return null;
  const at = `ext.prebid.cache.${kind}`;
  const c = objAt(cache, kind, at);
  const ttl = c.ttlseconds;
  if (ttl !== undefined && ttl !== null && (!Number.isInteger(ttl) || (ttl as number) < 0))
    throw new Invalid(`${at}.ttlseconds`, 'must be a whole number of seconds');
  return {
    ttl: typeof ttl === 'number' && ttl > 0 ? ttl : null,
    returnCreative: boolAt(c, 'returnCreative', `${at}.returnCreative`, true),
  };
}

/**
 * Factors by bidder code, each a number above 0 (Prebid Server refuses another, for any bidder), and
 * each bidder named once: two codes that differ only in case ("ADPLANE" and "AdPlane") are refused, as
 * Prebid Server refuses them, rather than one of them picked.
 */
function factorsAt(o: Obj, field: string): Record<string, number> {
  const out: Record<string, number> = {};
  const named = new Map<string, string>();
  for (const [bidder, factor] of Object.entries(o)) {
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor <= 0)
      throw new Invalid(`${field}.${bidder}`, 'must be a positive number');
    const code = bidder.toLowerCase();
    const twin = named.get(code);
    if (twin !== undefined)
      throw new Invalid(
        field,
        `cannot have multiple bidders that differ only in case style ("${twin}" and "${bidder}")`,
      );
    named.set(code, bidder);
    out[code] = factor;
  }
  return out;
}

function readAdjustments(prebid: Obj): BidAdjustments {
  const at = 'ext.prebid.bidadjustmentfactors';
  const { mediatypes: _mediatypes, ...bidders } = objAt(prebid, 'bidadjustmentfactors', at);
  const types = objAt(objAt(prebid, 'bidadjustmentfactors', at), 'mediatypes', `${at}.mediatypes`);
  const byType: Record<string, Record<string, number>> = {};
  for (const type of Object.keys(types))
    byType[type] = factorsAt(objAt(types, type, `${at}.mediatypes.${type}`), `${at}.mediatypes.${type}`);
  return { byBidder: factorsAt(bidders, at), byType };
}

/** Bidder codes that mean us: adplane and its aliases (`ext.prebid.aliases: { alias: 'adplane' }`). */
function ourCodes(ext: Obj): Set<string> {
  const prebid = objAt(ext, 'prebid', 'ext.prebid');
  const aliases = objAt(prebid, 'aliases', 'ext.prebid.aliases');
  const codes = new Set([BIDDER_CODE]);
  for (const [alias, bidder] of Object.entries(aliases)) {
    if (typeof bidder !== 'string') throw new Invalid(`ext.prebid.aliases.${alias}`, 'must be a bidder code');
    // an alias of a bidder to its own code is nothing (Prebid Server refuses it: validateAliases)
    if (alias === bidder.toLowerCase())
      throw new Invalid(
        `ext.prebid.aliases.${alias}`,
        'defines a no-op alias: choose a different alias, or remove this entry',
      );
    // the adapter's code in any case ("AdPlane"), as Prebid Server normalises an alias's bidder
    if (bidder.toLowerCase() === BIDDER_CODE) codes.add(alias);
  }
  return codes;
}

/**
 * The keys of imp.ext that are not bidders (Prebid Server's openrtb_ext.IsPotentialBidder): first-party
 * data, the global placement id, the transaction id, SKAdNetwork, Protected Audience (ae, igs), and
 * prebid itself.
 */
const NOT_BIDDERS = new Set(['prebid', 'context', 'data', 'gpid', 'skadn', 'tid', 'ae', 'igs']);

/**
 * The bidders an impression names, with their parameters' place, as Prebid Server reads them:
 * `imp.ext.prebid.bidder.<code>`, then every other key of `imp.ext` (the older place, which Prebid
 * Server promotes into `prebid.bidder` unless the code is already there).
 */
function biddersOfImp(ext: Obj, prebid: Obj, at: string): { code: string; params: unknown; field: string }[] {
  const bidders = objAt(prebid, 'bidder', `${at}.prebid.bidder`);
  const out = Object.keys(bidders).map((code) => ({
    code,
    params: bidders[code],
    field: `${at}.prebid.bidder.${code}`,
  }));
  for (const code of Object.keys(ext))
    if (!NOT_BIDDERS.has(code) && !Object.hasOwn(bidders, code))
      out.push({ code, params: ext[code], field: `${at}.${code}` });
  return out;
}

/**
 * Which channel an impression is for, and under which bidder code; null when it is not ours. An
 * impression that names no bidder at all and no stored request (its own or the request's) is refused,
 * as Prebid Server refuses it: it is for no one.
 */
function channelOfImp(
  imp: Imp,
  index: number,
  codes: Set<string>,
  requestStored: string | null,
  requestParams: Obj,
): { uid: string; seat: string } | null {
  const at = `imp[${index}].ext`;
  const ext = (imp.ext ?? {}) as Obj;
  const prebid = objAt(ext, 'prebid', `${at}.prebid`);
  const bidders = biddersOfImp(ext, prebid, at);
  for (const { code, params, field } of bidders) {
    // as Prebid Server resolves a bidder: its code in any case ("AdPlane"), an alias as declared; the seat is the code as written
    if (!codes.has(code) && code.toLowerCase() !== BIDDER_CODE) continue;
    if (params !== undefined && params !== null && !isObj(params)) throw new Invalid(field, 'must be an object');
    // Prebid Server's ext.prebid.bidderparams: the request's parameters for a bidder code, where the impression's lack them
    const uid =
      uidAt(isObj(params) ? params : {}, 'channel', `${field}.channel`) ??
      uidAt(
        objAt(requestParams, code, `ext.prebid.bidderparams.${code}`),
        'channel',
        `ext.prebid.bidderparams.${code}.channel`,
      );
    if (!uid) throw new Invalid(`${field}.channel`, 'is required: the uid of the adplane channel to bid for');
    return { uid, seat: code };
  }
  const stored = uidAt(
    objAt(prebid, 'storedrequest', `${at}.prebid.storedrequest`),
    'id',
    `${at}.prebid.storedrequest.id`,
  );
  if (stored) return { uid: stored, seat: BIDDER_CODE };
  // Only an impression that names no bidder at all takes the request's stored request as its channel.
  if (bidders.length) return null;
  if (requestStored) return { uid: requestStored, seat: BIDDER_CODE };
  if (imp.ext === undefined)
    throw new Invalid(at, 'is required: name the bidder in imp.ext.prebid.bidder (adplane: { channel })');
  throw new Invalid(`${at}.prebid.bidder`, 'must contain at least one bidder');
}

export function readAuctionRequest(body: unknown): AskResult {
  const read = readBidRequest(body);
  if (!read.ok) return read;
  const request = read.request;
  const breach = pbsRuleBreach(request);
  if (breach) return { ok: false, ...breach };
  const warnings = [...droppedUsPrivacy(request), ...prunedEids(request)];
  try {
    const ext = (request.ext ?? {}) as Obj;
    const codes = ourCodes(ext);
    const prebid = objAt(ext, 'prebid', 'ext.prebid');
    const requestStored = uidAt(
      objAt(prebid, 'storedrequest', 'ext.prebid.storedrequest'),
      'id',
      'ext.prebid.storedrequest.id',
    );
    const tmax = typeof request.tmax === 'number' && request.tmax > 0 ? request.tmax : null;
    const currency = objAt(prebid, 'currency', 'ext.prebid.currency');
    let rates: CurrencyRates | null = null;
    if (currency.rates !== undefined) {
      try {
        rates = parseCurrencyFile({ conversions: currency.rates });
      } catch (error) {
        throw new Invalid('ext.prebid.currency.rates', (error as Error).message.replace(/^conversions/, 'rates'));
      }
    }
    if (currency.usepbsrates !== undefined && typeof currency.usepbsrates !== 'boolean')
      throw new Invalid('ext.prebid.currency.usepbsrates', 'must be true or false');
    const useServerRates = currency.usepbsrates !== false;
    const debug = request.test === 1 || boolAt(prebid, 'debug', 'ext.prebid.debug', false);
    if (prebid.events !== undefined && prebid.events !== null && !isObj(prebid.events))
      throw new Invalid('ext.prebid.events', 'must be an object');
    const events = isObj(prebid.events);
    const integration = prebid.integration;
    // Prebid Server's own limit on the event URL's `int`: 64 letters, digits, - or _
    if (
      integration !== undefined &&
      integration !== null &&
      (typeof integration !== 'string' || !/^[\p{L}\p{N}_-]{0,64}$/u.test(integration))
    ) {
      throw new Invalid('ext.prebid.integration', 'must be a string of at most 64 letters, digits, - or _');
    }
    const returnAllBidStatus = boolAt(prebid, 'returnallbidstatus', 'ext.prebid.returnallbidstatus', false);
    const targeting = readTargeting(ext);
    const cacheBids = readCache(ext, 'bids');
    const cacheVast = readCache(ext, 'vastxml');
    const adjustments = readAdjustments(prebid);
    // the impressions after the request's own extensions, as Prebid Server checks them (validateRequest);
    // ext.prebid.bidderparams is read only where an impression of ours lacks its channel (Prebid Server ignores the rest of it)
    const requestParams = isObj(prebid.bidderparams) ? prebid.bidderparams : {};
    const imps: OurImp[] = [];
    request.imp.forEach((imp, index) => {
      const found = channelOfImp(imp, index, codes, requestStored, requestParams);
      if (found) imps.push({ index, imp, channelUid: found.uid, seat: found.seat });
    });
    return {
      ok: true,
      ask: {
        request,
        imps,
        targeting,
        cacheBids,
        cacheVast,
        tmax,
        rates,
        useServerRates,
        debug,
        events,
        integration: typeof integration === 'string' ? integration : '',
        returnAllBidStatus,
        adjustments,
        warnings,
      },
    };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, field: error.field, reason: error.reason };
    throw error;
  }
}
