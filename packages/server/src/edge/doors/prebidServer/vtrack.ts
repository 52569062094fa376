import { EVENT_PATH, PREBID_EVENT_PATH } from '@adplane/shared';
import { type TokenSigner } from '../../tracking/trackingToken.js';
import { isObject, type PutsRead, putLimits, readPuts } from './cachePuts.js';
import { INTEGRATION, vastEventUrl } from './prebidEvents.js';
import { type VastImpression, vastImpressions, withImpression } from './vastImpressions.js';

/**
 * Prebid Server's `POST /vtrack?a=<account>[&int=<integration>]` (endpoints/events/vtrack.go,
 * Prebid Server Java's VtrackHandler): Prebid.js's videoCache with `cache: { url: '<pbs>/vtrack?a=…',
 * vasttrack: true }` posts its video bids' VAST there instead of to Prebid Cache,
 *
 *   {"puts": [{"bidid": "<bid request id>", "bidder": "<code>", "aid": "<auction id>", "type": "xml",
 *              "value": "<VAST ...>", "ttlseconds": 315, "timestamp": 1760000000000}]}
 *   -> {"responses": [{"uuid": "..."}]}  (same order; each served at GET /cache?uuid=)
 *
 * and Prebid Server writes its impression event into the VAST of each put whose bidder may have its
 * VAST changed (ModifyVastXmlString: one more <Impression>, after the first; vastImpressions.ts), then
 * stores them all.
 *
 * adplane's impression event counts only with the decision's signed token (prebidEvents.ts), so the
 * "bidder that allows VAST modification" is adplane's own bid, recognised by its VAST: the impression
 * URL of ours it carries (`<origin>/ev?e=impression&t=<token>[&b=…&bs=…&w=…&ws=…]`) with a token that
 * verifies. Its event then carries that token and the notices, goes in the ad that carries our URL,
 * and /event counts the impression once with our pixel (the replay guard). Any other VAST (another
 * bidder's, a Prebid.js wrapper of a URL, what is not well-formed XML) is stored as posted, as Prebid
 * Server stores a bidder it is not allowed to modify.
 */

export interface VtrackPut {
  bidId: string;
  bidder: string;
  vast: string;
  ttlSeconds: number | null;
  /** The auction's start (ms), Prebid.js's `timestamp`; 0 when none. */
  timestamp: number;
}

export type VtrackRead = PutsRead<VtrackPut>;

const filled = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The puts of a /vtrack body, checked as Prebid Server checks them (`bidid`, `bidder` required and not
 * empty; Java's: type `xml` only, a value that is VAST), and as POST /cache checks its puts (at most
 * MAX_PUTS, a value of at most MAX_VALUE_BYTES, `ttlseconds` a non-negative number). No `puts`, or an
 * empty list, answers no uuids, as Prebid Server does.
 */
export function readVtrackPuts(body: unknown): VtrackRead {
  if (!isObject(body)) return { ok: false, message: 'the body must be a JSON object with a "puts" array' };
  if (body.puts === undefined || body.puts === null) return { ok: true, puts: [] };
  if (!Array.isArray(body.puts)) return { ok: false, message: 'puts must be an array' };
  return readPuts(body.puts, (p, at) => {
    if (!filled(p.bidid)) return `${at}.bidid: 'bidid' is required field and can't be empty`;
    if (!filled(p.bidder)) return `${at}.bidder: 'bidder' is required field and can't be empty`;
    if (p.type !== 'xml') return `${at}.type: vtrack only accepts type xml`;
    if (typeof p.value !== 'string' || !/<vast/i.test(p.value))
      return `${at}.value: vtrack content must be VAST (a string of XML)`;
    const limits = putLimits(at, p.value, p.ttlseconds);
    if ('message' in limits) return limits.message;
    const ts = p.timestamp;
    if (ts !== undefined && ts !== null && (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0))
      return `${at}.timestamp must be a whole number (the auction's start, in ms)`;
    return {
      bidId: p.bidid,
      bidder: p.bidder,
      vast: p.value,
      ttlSeconds: limits.ttlSeconds,
      timestamp: typeof ts === 'number' ? ts : 0,
    };
  });
}

/** The `?a=` and `?int=` of a /vtrack call as Prebid Server checks them (400 either way). */
export function readVtrackQuery(
  search: URLSearchParams,
): { ok: true; account: string; integration: string } | { ok: false; message: string } {
  const account = search.get('a') ?? '';
  if (!account) return { ok: false, message: "Account 'a' is required query parameter and can't be empty" };
  const integration = search.get('int') ?? '';
  if (!INTEGRATION.test(integration))
    return {
      ok: false,
      message: "Invalid integration type: parameter 'int' must be at most 64 letters, digits, '-' or '_'",
    };
  return { ok: true, account, integration };
}

/** The impression trackers read for ours, at most (a put's VAST is up to 100 KB). */
const MAX_IMPRESSIONS = 32;

export interface OurImpression {
  token: string;
  /** The signed notices our impression URL carries (`b=…&bs=…&w=…&ws=…`), '' when none. */
  notices: string;
  /** The first `<Impression>` of the ad that carries ours: where Prebid Server's event goes. */
  first: VastImpression;
}

/**
 * Our impression tracker in a VAST (`<origin>/ev?e=impression&t=<token>…`) whose token verifies now:
 * the VAST is a bid of adplane's. Null for anything else; also when the VAST already carries our
 * impression event for that token (an auction with `ext.prebid.events`), which needs no second one.
 */
export function ourImpression(
  vast: string,
  origin: string,
  signer: Pick<TokenSigner, 'verify'>,
  nowS: number,
): OurImpression | null {
  let ourOrigin: string;
  try {
    ourOrigin = new URL(origin).origin;
  } catch {
    return null;
  }
  const impressions = vastImpressions(vast);
  if (!impressions) return null;
  let found: OurImpression | null = null;
  const events = new Set<string>();
  for (const impression of impressions.slice(0, MAX_IMPRESSIONS)) {
    let url: URL;
    try {
      url = new URL(impression.url);
    } catch {
      continue;
    }
    if (url.origin !== ourOrigin) continue;
    if (url.pathname === PREBID_EVENT_PATH) {
      events.add(url.searchParams.get('tk') ?? '');
      continue;
    }
    if (found || url.pathname !== EVENT_PATH || url.searchParams.get('e') !== 'impression') continue;
    const token = url.searchParams.get('t') ?? '';
    if (!token || !signer.verify(token, nowS)) continue;
    const notices = new URLSearchParams(url.search);
    notices.delete('e');
    notices.delete('t');
    found = { token, notices: notices.toString(), first: impressions.find((i) => i.ad === impression.ad)! };
  }
  return found && !events.has(found.token) ? found : null;
}

export interface VtrackContext {
  origin: string;
  account: string;
  integration: string;
  /** The edge's token signer (its check only); null: no bid is recognised (every VAST is stored as posted). */
  signer: Pick<TokenSigner, 'verify'> | null;
  nowS: number;
}

/** A put's VAST as it is stored: with Prebid Server's impression event when it is one of our bids. */
export function trackedVast(put: VtrackPut, ctx: VtrackContext): { vast: string; tracked: boolean } {
  const ours = ctx.signer ? ourImpression(put.vast, ctx.origin, ctx.signer, ctx.nowS) : null;
  if (!ours) return { vast: put.vast, tracked: false };
  const url = vastEventUrl({
    origin: ctx.origin,
    bidId: put.bidId,
    account: ctx.account,
    bidder: put.bidder,
    integration: ctx.integration,
    timestamp: put.timestamp,
    token: ours.token,
    notices: ours.notices,
  });
  return { vast: withImpression(put.vast, ours.first, url), tracked: true };
}
