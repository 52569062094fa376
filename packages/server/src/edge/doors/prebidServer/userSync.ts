import { randomBytes } from 'node:crypto';
import { fillSyncUrl, partnerSyncBidder, PREBID_SETUID_PATH, type SyncMacro, tagOfSyncBidder } from '@adplane/shared';
import { NO_PARTNER_UIDS } from '../../request/context.js';
import { BIDDER_CODE } from './auctionRequest.js';
import { gdprApplies, gppSectionIds as sectionIds, optsOutOfSale } from '../../ortb/privacy.js';
import { sameOriginHeaders } from '../../../http/sameOrigin.js';

export { gdprApplies, sectionIds };

/**
 * Prebid Server's user sync (docs/prebid.md, "User sync"), for the one bidder adplane is: the
 * browser's adplane id lives in Prebid Server's `uids` cookie on adplane's host, so that a viewer
 * without an advertising id is still one viewer to a frequency cap (delivery/frequency.ts) from one
 * page, one IP address or one day to the next.
 *
 * - `POST /cookie_sync` (Prebid.js's `s2sConfig.syncEndpoint`): for a browser without an adplane
 *   id, the sync to run: a pixel on `/setuid?bidder=adplane&uid=<a new id>`;
 * - `GET /setuid?bidder=adplane&uid=<id>`: writes the id into the cookie (an empty uid removes it);
 * - `GET /getuids`: the ids the cookie holds;
 * - `GET /optout`, `POST /optout`: a page where a person opts the browser out of adplane's id (or
 *   back in): the cookie keeps no id and says `optout`, which every call above then honours.
 *
 * The cookie is Prebid Server's own: base64 (URL alphabet, padded) of
 * `{"tempUIDs":{"<bidder>":{"uid":"…","expires":"<RFC 3339>"}},"optout":true?}`, so a Prebid
 * Server sharing the host (without a cookie domain of its own) reads what adplane wrote and the other
 * way round. Other bidders' ids are kept as they are, expired ones too (Prebid Server still uses
 * them); an opted-out cookie is never synced or written; a cookie grown past what browsers keep sheds
 * its soonest-expiring ids (as Prebid Server's PrepareCookieForWrite does).
 *
 * Demand partners (SSP mode: an RTB demand tag with a user-sync URL) sync through the same calls:
 * a cookie_sync whose `account` is a channel's uid also hands out the sync of each of the channel's
 * partners the browser has no id for (as Prebid Server's cooperative sync adds bidders), and
 * `/setuid?bidder=adplane_tag_<id>` keeps the partner's id, which the tag's bid requests then carry
 * as `user.buyeruid` (demand/programmaticSources.ts).
 *
 * Privacy: adplane is not a registered TCF vendor, so where the GDPR applies (`gdpr=1`, or GPP
 * section 2 listed as applying) it issues, stores and uses no id; a US Privacy string that opts out
 * of sale (`1-Y-`) gets no id either.
 */
const UIDS_COOKIE = 'uids';
/** The one bidder adplane syncs: itself. */
export const ADPLANE_BIDDER = BIDDER_CODE;
/** How long an id is kept (Prebid Server's default host cookie life). */
const UID_TTL_DAYS = 90;
/** How long an opt-out is kept: the longest a browser keeps a cookie (Chrome caps Max-Age at 400 days); the opt-out page renews it. */
const OPTOUT_TTL_DAYS = 400;
const DAY_MS = 86_400_000;
/** The longest id /setuid stores. */
const MAX_UID_LENGTH = 128;
const VISIBLE = /^[\x21-\x7e]+$/;
/** A `uids` value longer than this is not read (a browser keeps at most about 4 KB a cookie). */
const MAX_VALUE_LENGTH = 8192;
/** The most a written `uids` value may be: browsers drop a cookie past about 4 KB, name and attributes included. */
export const MAX_WRITTEN_VALUE = 3800;

export interface UidEntry {
  uid: string;
  /** RFC 3339. */
  expires: string;
}

export interface SyncCookie {
  /** Whether the request carried a readable `uids` cookie. */
  present: boolean;
  /** Every bidder's entry, expired ones included (Prebid Server keeps and uses them). */
  uids: Record<string, UidEntry>;
  optout: boolean;
}

/** A request without a readable cookie. */
const noCookie = (): SyncCookie => ({ present: false, uids: {}, optout: false });
const EMPTY = noCookie;
/** Whether an id is still within its date. */
export const live = (entry: UidEntry | undefined, now: number): boolean => !!entry && Date.parse(entry.expires) > now;

/** The value of cookie `name` in a Cookie header ('' when absent). */
function cookieValue(header: string, name: string): string {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

/** The `uids` cookie of a request's Cookie header; an absent, damaged or foreign one reads as empty. Never throws. */
export function readSyncCookie(header: string | string[] | undefined): SyncCookie {
  const text = Array.isArray(header) ? header.join('; ') : header;
  if (!text || !text.includes(UIDS_COOKIE)) return EMPTY();
  const raw = cookieValue(text, UIDS_COOKIE);
  if (!raw || raw.length > MAX_VALUE_LENGTH) return EMPTY();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return EMPTY();
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return EMPTY();
  const read = json as { tempUIDs?: unknown; optout?: unknown };
  // (a map without a prototype: a bidder named __proto__ is only a name)
  const cookie: SyncCookie = {
    present: true,
    uids: Object.create(null) as Record<string, UidEntry>,
    optout: read.optout === true,
  };
  if (read.tempUIDs && typeof read.tempUIDs === 'object' && !Array.isArray(read.tempUIDs)) {
    for (const [bidder, entry] of Object.entries(read.tempUIDs as Record<string, unknown>)) {
      if (!entry || typeof entry !== 'object') continue;
      const { uid, expires } = entry as { uid?: unknown; expires?: unknown };
      if (typeof uid !== 'string' || !uid || typeof expires !== 'string' || Number.isNaN(Date.parse(expires))) continue;
      cookie.uids[bidder] = { uid, expires };
    }
  }
  return cookie;
}

/** Whether the cookie holds any id still within its date (Prebid Server's HasAnyLiveSyncs). */
const hasLiveIds = (cookie: SyncCookie, now: number): boolean => Object.values(cookie.uids).some((e) => live(e, now));

/** adplane's own id in a request's cookie ('' when there is none, it expired, or the viewer opted out). */
export function adplaneUid(header: string | string[] | undefined, now: number): string {
  return cookieIds(header, now).adplane;
}

export interface CookieIds {
  /** adplane's own id ('' for none). */
  adplane: string;
  /** The demand partners' live ids by their code (partnerSyncBidder); other bidders' are not read. */
  partners: Readonly<Record<string, string>>;
}
const NO_IDS: CookieIds = { adplane: '', partners: NO_PARTNER_UIDS };

/** The live ids of a request's cookie that adplane uses, read once: none when it has none or the viewer opted out. */
export function cookieIds(header: string | string[] | undefined, now: number): CookieIds {
  if (!header) return NO_IDS;
  const cookie = readSyncCookie(header);
  if (cookie.optout || !cookie.present) return NO_IDS;
  let adplane = '';
  let partners: Record<string, string> | null = null;
  for (const bidder in cookie.uids) {
    const entry = cookie.uids[bidder];
    if (!live(entry, now)) continue;
    if (bidder === ADPLANE_BIDDER) adplane = entry!.uid;
    else if (tagOfSyncBidder(bidder) !== null)
      (partners ??= Object.create(null) as Record<string, string>)[bidder] = entry!.uid;
  }
  return adplane || partners ? { adplane, partners: partners ?? NO_PARTNER_UIDS } : NO_IDS;
}

/** `cookie` with `bidder`'s id set to `uid` for UID_TTL_DAYS (removed for ''), the other ids kept as they are. */
export function withUid(cookie: SyncCookie, bidder: string, uid: string, now: number): SyncCookie {
  const uids: Record<string, UidEntry> = Object.assign(Object.create(null) as Record<string, UidEntry>, cookie.uids);
  if (uid) uids[bidder] = { uid, expires: new Date(now + UID_TTL_DAYS * DAY_MS).toISOString() };
  else delete uids[bidder];
  return { present: true, uids, optout: false };
}

/**
 * The privacy signals of a sync as query parameters (`gdpr`, `gdpr_consent`, `us_privacy`, `gpp`,
 * `gpp_sid`, each when given), onto `query`; `strings` false leaves out the consent and GPP strings
 * (often over a kilobyte) where only the flags matter.
 */
export function privacyQuery(privacy: SyncPrivacy, query = new URLSearchParams(), strings = true): URLSearchParams {
  if (privacy.gdpr !== null) query.set('gdpr', String(privacy.gdpr));
  if (strings && privacy.gdprConsent) query.set('gdpr_consent', privacy.gdprConsent);
  if (privacy.usPrivacy) query.set('us_privacy', privacy.usPrivacy);
  if (strings && privacy.gpp) query.set('gpp', privacy.gpp);
  if (privacy.gppSid.length) query.set('gpp_sid', privacy.gppSid.join(','));
  return query;
}

/** The privacy macros of a sync URL (userSyncUrl.ts), each filled ('' for a signal not given). */
export function privacyMacros(privacy: SyncPrivacy): Partial<Record<SyncMacro, string>> {
  return {
    GDPR: privacy.gdpr === null ? '' : String(privacy.gdpr),
    GDPR_CONSENT: privacy.gdprConsent,
    US_PRIVACY: privacy.usPrivacy,
    GPP: privacy.gpp,
    GPP_SID: privacy.gppSid.join(','),
  };
}

/** A filled sync URL as a URL serializes it (a host in punycode, other non-ASCII percent-encoded), '' when it no longer parses. */
export const serializedUrl = (url: string): string => (URL.canParse(url) ? new URL(url).href : '');

/** The cookie's value as Prebid Server writes it (Go's base64.URLEncoding: the URL alphabet, padded). */
export function syncCookieValue(cookie: SyncCookie): string {
  const json = JSON.stringify({ tempUIDs: cookie.uids, ...(cookie.optout ? { optout: true } : {}) });
  return Buffer.from(json, 'utf8').toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}

/**
 * The Set-Cookie header of `cookie`: third-party on publishers' pages, so SameSite=None and Secure
 * (browsers refuse the one without the other; localhost counts as secure), kept UID_TTL_DAYS. Past
 * MAX_WRITTEN_VALUE, other bidders' ids go first, the soonest-expiring first, until it fits.
 */
export function setCookieHeader(cookie: SyncCookie, now: number): string {
  const maxAge = (cookie.optout ? OPTOUT_TTL_DAYS : UID_TTL_DAYS) * 86_400;
  return `${UIDS_COOKIE}=${syncCookieValue(fitted(cookie))}; Path=/; Max-Age=${maxAge}; Expires=${new Date(now + maxAge * 1000).toUTCString()}; SameSite=None; Secure`;
}

/** The cookie with as many ids as fit a browser's limit (adplane's kept; the others by latest expiry). */
function fitted(cookie: SyncCookie): SyncCookie {
  if (syncCookieValue(cookie).length <= MAX_WRITTEN_VALUE) return cookie;
  const uids: Record<string, UidEntry> = Object.create(null) as Record<string, UidEntry>;
  const own = cookie.uids[ADPLANE_BIDDER];
  if (own) uids[ADPLANE_BIDDER] = own;
  const others = Object.entries(cookie.uids)
    .filter(([bidder]) => bidder !== ADPLANE_BIDDER)
    .sort((a, b) => Date.parse(b[1].expires) - Date.parse(a[1].expires));
  const out: SyncCookie = { ...cookie, uids };
  for (const [bidder, entry] of others) {
    uids[bidder] = entry;
    if (syncCookieValue(out).length > MAX_WRITTEN_VALUE) {
      delete uids[bidder];
      break;
    }
  }
  return out;
}

/** A new adplane id: 128 random bits, base64url. */
export const newUid = (): string => randomBytes(16).toString('base64url');

/** The privacy signals a sync reads (a cookie_sync body's, or a setuid query's). */
export interface SyncPrivacy {
  gdpr: number | null;
  gdprConsent: string;
  usPrivacy: string;
  gpp: string;
  /** GPP section ids that apply. */
  gppSid: readonly number[];
}

/** Why no id may be issued or stored for this browser, or null when one may. */
export function syncRefusal(privacy: SyncPrivacy, cookie: SyncCookie): 'optout' | 'gdpr' | 'us_privacy' | null {
  if (cookie.optout) return 'optout';
  if (gdprApplies(privacy.gdpr, privacy.gppSid)) return 'gdpr';
  if (optsOutOfSale(privacy.usPrivacy)) return 'us_privacy';
  return null;
}

/** What a cookie_sync request asks (Prebid.js's payload; every field optional). */
export interface CookieSyncAsk extends SyncPrivacy {
  /** The bidders to sync; null: every bidder the server syncs (cooperative sync). */
  bidders: string[] | null;
  /** At most this many syncs (0: no limit). */
  limit: number;
  /** Whether the page's `filterSettings.image` lets adplane's pixel (redirect) sync run. */
  imageAllowed: boolean;
  /** That filter, for the other bidders' pixels (null: none set, every pixel may run). */
  imageFilter: ImageFilter | null;
  /** `filterSettings.iframe` (null: none set, every iframe may run); no bidder adplane syncs has an iframe sync. */
  iframeFilter: ImageFilter | null;
  /** `debug: true`: the answer says in `debug` why each bidder asked got no sync, as Prebid Server does. */
  debug: boolean;
  /** The account (Prebid.js's s2sConfig.accountId): the channel's uid in the set-up the console gives ('' when absent). */
  account: string;
  /** Prebid.js's s2sConfig.coopSync: false syncs only the bidders named (default true, cooperative). */
  coopSync: boolean;
}

/** A page's pixel filter: the bidders it names ('*' for all), and whether it keeps or drops them. */
interface ImageFilter {
  bidders: '*' | readonly string[];
  exclude: boolean;
}

/**
 * Whether a page's pixel filter lets `bidder`'s pixel run. Bidder codes match in any case, as Prebid
 * Server matches them (usersync/bidderfilter.go lower-cases the filter's list and the bidder).
 */
function filterAllows(filter: ImageFilter | null, bidder: string): boolean {
  if (!filter) return true;
  const named = filter.bidders === '*' || filter.bidders.some((b) => sameBidder(b, bidder));
  return filter.exclude ? !named : named;
}

/** Whether two bidder codes name the same bidder: in any case, as Prebid Server normalises bidder names (openrtb_ext.NormalizeBidderName). */
const sameBidder = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export type CookieSyncRead = { ok: true; ask: CookieSyncAsk } | { ok: false; field: string; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A cookie_sync body read and checked as Prebid Server checks it; a wrong type names its field. */
export function readCookieSyncAsk(body: unknown): CookieSyncRead {
  // Prebid.js posts JSON; an empty body asks with the defaults
  const b = body === undefined || body === null ? {} : body;
  if (!isObject(b)) return { ok: false, field: '', reason: 'must be a JSON object' };
  const wrong = (field: string, reason: string): CookieSyncRead => ({ ok: false, field, reason });
  let bidders: string[] | null = null;
  if (b.bidders !== undefined && b.bidders !== null) {
    if (!Array.isArray(b.bidders) || b.bidders.some((x) => typeof x !== 'string'))
      return wrong('bidders', 'must be an array of bidder codes');
    bidders = (b.bidders as string[]).slice(0, 100);
  }
  let gdpr: number | null = null;
  if (b.gdpr !== undefined && b.gdpr !== null) {
    if (b.gdpr !== 0 && b.gdpr !== 1) return wrong('gdpr', 'must be 0 or 1');
    gdpr = b.gdpr;
  }
  const text = (field: string): string | CookieSyncRead => {
    const v = b[field];
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v.slice(0, 4096) : wrong(field, 'must be a string');
  };
  const gdprConsent = text('gdpr_consent');
  const usPrivacy = text('us_privacy');
  const gpp = text('gpp');
  const gppSidText = text('gpp_sid');
  for (const v of [gdprConsent, usPrivacy, gpp, gppSidText]) if (typeof v !== 'string') return v;
  let limit = 0;
  if (b.limit !== undefined && b.limit !== null) {
    if (typeof b.limit !== 'number' || !Number.isInteger(b.limit)) return wrong('limit', 'must be a whole number');
    // (0 or less: no limit, as Prebid Server reads it)
    limit = Math.max(0, b.limit);
  }
  const filters = syncFilters(b.filterSettings);
  if (typeof filters === 'string') return wrong('filterSettings', filters);
  const filter = filters.image;
  if (b.debug !== undefined && b.debug !== null && typeof b.debug !== 'boolean')
    return wrong('debug', 'must be true or false');
  const account = text('account');
  if (typeof account !== 'string') return account;
  if (b.coopSync !== undefined && b.coopSync !== null && typeof b.coopSync !== 'boolean')
    return wrong('coopSync', 'must be true or false');
  const coopSync = b.coopSync !== false;
  return {
    ok: true,
    ask: {
      bidders,
      gdpr,
      gdprConsent: gdprConsent as string,
      usPrivacy: usPrivacy as string,
      gpp: gpp as string,
      gppSid: sectionIds(gppSidText as string),
      limit,
      imageAllowed: filterAllows(filter, ADPLANE_BIDDER),
      imageFilter: filter,
      iframeFilter: filters.iframe,
      debug: b.debug === true,
      account,
      coopSync,
    },
  };
}

/**
 * The page's filterSettings as Prebid Server reads them (endpoints/cookie_sync.go parseTypeFilter):
 * `iframe` and `image`, each `{ bidders: '*' | string[], filter: 'include' | 'exclude' }`, an absent
 * one letting every bidder's syncs of that type run. Nothing else is read: Prebid.js turns its
 * `all` into both before it posts. A malformed setting: the reason.
 */
function syncFilters(settings: unknown): { iframe: ImageFilter | null; image: ImageFilter | null } | string {
  if (settings === undefined || settings === null) return { iframe: null, image: null };
  if (!isObject(settings)) return 'must be an object';
  const iframe = typeFilter(settings.iframe, 'iframe');
  if (typeof iframe === 'string') return iframe;
  const image = typeFilter(settings.image, 'image');
  if (typeof image === 'string') return image;
  return { iframe, image };
}

function typeFilter(rule: unknown, type: 'iframe' | 'image'): ImageFilter | null | string {
  if (rule === undefined || rule === null) return null;
  if (!isObject(rule)) return `${type} must be an object`;
  const { bidders, filter } = rule;
  // (Prebid Server refuses a filter without its mode, as any other mode)
  if (filter !== 'include' && filter !== 'exclude') return `${type}.filter must be 'include' or 'exclude'`;
  if (bidders !== '*' && !(Array.isArray(bidders) && bidders.every((b) => typeof b === 'string')))
    return `${type}.bidders must be '*' or an array of bidder codes`;
  return { bidders: bidders === '*' ? '*' : (bidders as string[]), exclude: filter === 'exclude' };
}

interface BidderStatus {
  bidder: string;
  no_cookie: true;
  usersync: { url: string; type: 'redirect'; supportCORS: false };
}

export interface CookieSyncAnswer {
  /** Prebid Server's: `ok` when the browser's cookie holds a live id (any bidder's), `no_cookie` otherwise. */
  status: 'ok' | 'no_cookie';
  bidder_status: BidderStatus[];
  /** With `debug: true`: why each bidder asked got no sync, in Prebid Server's words (absent when none). */
  debug?: { bidder: string; error: string }[];
}

/** Prebid Server's reasons (cookie_sync.go getDebugMessage). */
const SYNC_REFUSED = {
  alreadySynced: 'Already in sync',
  privacy: 'Rejected by privacy',
  optout: 'Status blocked by user opt out',
  unknownBidder: 'Unsupported bidder',
  filter: 'Rejected by request filter',
  typeNotSupported: 'Type not supported',
} as const;

/**
 * Why a redirect-only syncer's sync may not run under the page's filters, or null when it may: as
 * Prebid Server chooses (usersync/chooser.go): no type allowed for the bidder is "rejected by
 * request filter", only types it has no sync of (an iframe) "type not supported".
 */
function filterRefusal(ask: Pick<CookieSyncAsk, 'imageFilter' | 'iframeFilter'>, bidder: string): string | null {
  if (filterAllows(ask.imageFilter, bidder)) return null;
  return filterAllows(ask.iframeFilter, bidder) ? SYNC_REFUSED.typeNotSupported : SYNC_REFUSED.filter;
}

/** A demand partner that syncs (SSP mode): its RTB demand tag and the partner's user-sync URL. */
export interface PartnerSync {
  tagId: number;
  url: string;
}

/**
 * The answer to a cookie_sync: a pixel sync for adplane when the browser has no live adplane id, and
 * one for each demand partner of the channel (`partners`) it has no live id for, when adplane was
 * asked for (or no bidder was named) and cooperative sync is on (`coopSync`, the default), or when
 * the partner's code was named, the page's filter
 * lets its pixel run and privacy allows it; at most `limit` (0: no limit), adplane's first. `uid`
 * makes adplane's new id (its pixel's URL carries it to /setuid). An opted-out browser is the
 * caller's to refuse (401, as Prebid Server).
 */
/** Where and when a cookie sync is answered, and for which of the channel's demand partners. */
export interface CookieSyncPlace {
  /** The edge's public origin: adplane's own setuid URL starts with it. */
  origin: string;
  now: number;
  /** The channel's demand partners that sync (after adplane's own pixel, in this order). */
  partners?: readonly PartnerSync[];
  /** Makes adplane's id for a browser that has none (a fixed one in tests). */
  uid?: () => string;
}

export function cookieSyncAnswer(
  ask: CookieSyncAsk,
  cookie: SyncCookie,
  { origin, now, partners = [], uid = newUid }: CookieSyncPlace,
): CookieSyncAnswer {
  const status = hasLiveIds(cookie, now) ? 'ok' : 'no_cookie';
  /**
   * The page's name for the bidder whose code is `code` (its id's key in the cookie), undefined when
   * not named: in any case, as Prebid Server (usersync/chooser.go) normalises the names asked, and
   * answers each under the name the page gave (an "AdPlane" the auction bids for is synced too).
   */
  const named = (code: string): string | undefined =>
    ask.bidders === null ? code : ask.bidders.find((b) => sameBidder(b, code));
  const adplane = named(ADPLANE_BIDDER);
  // no bidder named: every bidder adplane syncs; else those named, and the channel's partners beside
  // adplane as Prebid Server's cooperative sync adds bidders (unless the page turns it off)
  const cooperative = ask.bidders === null || (ask.coopSync && adplane !== undefined);
  const debug: { bidder: string; error: string }[] = [];
  const refused = syncRefusal(ask, cookie);
  const out: BidderStatus[] = [];
  /** Whether the bidder with code `code` may sync now; why not goes to the debug list, under `name`. */
  const mayRun = (code: string, name: string): boolean => {
    const why = refused
      ? refused === 'optout'
        ? SYNC_REFUSED.optout
        : SYNC_REFUSED.privacy
      : live(cookie.uids[code], now)
        ? SYNC_REFUSED.alreadySynced
        : filterRefusal(ask, code);
    if (why) debug.push({ bidder: name, error: why });
    return !why;
  };
  if (adplane !== undefined && mayRun(ADPLANE_BIDDER, adplane)) {
    const query = privacyQuery(ask, new URLSearchParams({ bidder: ADPLANE_BIDDER, uid: uid(), f: 'i' }), false);
    out.push(pixelSync(adplane, `${origin}${PREBID_SETUID_PATH}?${query}`));
  }
  for (const partner of partners) {
    const code = partnerSyncBidder(partner.tagId);
    const name = named(code) ?? (cooperative ? code : undefined);
    if (name === undefined || !mayRun(code, name)) continue;
    const url = partnerSyncUrl(partner, ask, origin);
    if (url) out.push(pixelSync(name, url));
  }
  if (ask.debug && ask.bidders) {
    // a bidder the page named that adplane does not sync
    const known = [ADPLANE_BIDDER, ...partners.map((p) => partnerSyncBidder(p.tagId))];
    for (const bidder of new Set(ask.bidders))
      if (!known.some((code) => sameBidder(code, bidder))) debug.push({ bidder, error: SYNC_REFUSED.unknownBidder });
  }
  const answer: CookieSyncAnswer = { status, bidder_status: ask.limit > 0 ? out.slice(0, ask.limit) : out };
  if (ask.debug && debug.length) answer.debug = debug;
  return answer;
}

const pixelSync = (bidder: string, url: string): BidderStatus => ({
  bidder,
  no_cookie: true,
  usersync: { url, type: 'redirect', supportCORS: false },
});

/**
 * A partner's sync URL for this browser: its privacy macros filled, and `${REDIRECT}` with adplane's
 * setuid URL for the partner, where it writes its id in place of `$UID` (uid last, as Prebid Server
 * writes it: a partner that appends its id still lands in the uid).
 */
function partnerSyncUrl(partner: PartnerSync, privacy: SyncPrivacy, origin: string): string {
  const back = privacyQuery(privacy, new URLSearchParams({ bidder: partnerSyncBidder(partner.tagId) }));
  back.set('f', 'i');
  return serializedUrl(
    fillSyncUrl(partner.url, {
      ...privacyMacros(privacy),
      REDIRECT: `${origin}${PREBID_SETUID_PATH}?${back}&uid=$UID`,
    }),
  );
}

export type SetuidResult =
  | { ok: true; cookie: SyncCookie; image: boolean }
  | { ok: false; status: 400 | 401 | 451; message: string };

/**
 * A /setuid call: the cookie to write (the bidder's id set, or removed for an empty uid; other
 * bidders' ids kept), or why not. The bidder is adplane, or one `partner` says syncs (a demand
 * partner's code whose tag has a user-sync URL); with Prebid Server's status (401 opted out, 400 a bad bidder, uid or
 * parameter, or gdpr=1 without a consent string, 451 where the GDPR applies or the viewer opted out
 * of sale). `f=i` (the default, also for an empty `f`) answers a pixel, `f=b` an empty page.
 */
export function setuid(
  query: URLSearchParams,
  cookie: SyncCookie,
  now: number,
  partner: (bidder: string) => boolean = () => false,
): SetuidResult {
  if (cookie.optout) return { ok: false, status: 401, message: 'The user has opted out' };
  const asked = query.get('bidder');
  if (!asked) return { ok: false, status: 400, message: '"bidder" query param is required' };
  // the bidder's code in any case, its id kept under the code itself, as Prebid Server keeps it under the syncer's key (endpoints/setuid.go getSyncer)
  const bidder = asked.toLowerCase();
  if (bidder !== ADPLANE_BIDDER && !partner(bidder))
    return {
      ok: false,
      status: 400,
      message: `The bidder name provided is not supported by adplane: "${ADPLANE_BIDDER}" syncs here, and the demand partners of RTB demand tags with a user sync URL`,
    };
  const gdprText = query.get('gdpr') ?? '';
  if (gdprText !== '' && gdprText !== '0' && gdprText !== '1')
    return { ok: false, status: 400, message: 'the gdpr query param must be 0 or 1' };
  // an empty f is no f, as Prebid Server's getResponseFormat reads it: the pixel
  const f = (query.get('f') || 'i').toLowerCase();
  if (f !== 'i' && f !== 'b')
    return { ok: false, status: 400, message: 'the f query param must be i (a pixel) or b (an empty page)' };
  const privacy: SyncPrivacy = {
    gdpr: gdprText === '' ? null : Number(gdprText),
    gdprConsent: query.get('gdpr_consent') ?? '',
    usPrivacy: query.get('us_privacy') ?? '',
    gpp: query.get('gpp') ?? '',
    gppSid: sectionIds(query.get('gpp_sid') ?? ''),
  };
  if (privacy.gdpr === 1 && !privacy.gdprConsent)
    return { ok: false, status: 400, message: 'gdpr_consent is required when gdpr=1' };
  const refused = syncRefusal(privacy, cookie);
  if (refused === 'gdpr')
    return {
      ok: false,
      status: 451,
      message:
        'The gdpr_consent string prevents cookies from being saved (adplane stores no id where the GDPR applies)',
    };
  if (refused === 'us_privacy')
    return { ok: false, status: 451, message: 'The us_privacy string opts out of sale: adplane stores no id' };
  const uid = query.get('uid') ?? '';
  if (uid && (uid.length > MAX_UID_LENGTH || !VISIBLE.test(uid)))
    return { ok: false, status: 400, message: `"uid" must be at most ${MAX_UID_LENGTH} visible ASCII characters` };
  return { ok: true, cookie: withUid(cookie, bidder, uid, now), image: f === 'i' };
}

/** The cookie of a browser that opted out (no ids, `optout`), or back in (no ids). */
export const optedCookie = (optout: boolean): SyncCookie => ({
  present: true,
  uids: Object.create(null) as Record<string, UidEntry>,
  optout,
});

/**
 * Whether a POST comes from adplane's own page (or from no browser at all): the control plane's
 * same-origin check (http/sameOrigin.ts) with adplane's public origin and the request's own host,
 * under either scheme (the edge does not know which one a proxy in front of it was reached by). The
 * choice must be the person's own act on that page, never a form another site submits for them.
 */
export function fromOwnPage(
  headers: {
    'sec-fetch-site'?: string | string[];
    origin?: string | string[];
    referer?: string | string[];
    host?: string | string[];
  },
  publicOrigin: string,
): boolean {
  const host = typeof headers.host === 'string' ? headers.host : '';
  return sameOriginHeaders(headers, [publicOrigin, ...(host ? [`http://${host}`, `https://${host}`] : [])]);
}

/** The opt-out page: what the cookie says now, and the one button that changes it. */
export function optoutPage(cookie: SyncCookie, now: number): string {
  const hasId = !cookie.optout && live(cookie.uids[ADPLANE_BIDDER], now);
  const status = cookie.optout
    ? 'This browser is opted out: adplane keeps no id for it, and issues none.'
    : hasId
      ? 'adplane keeps an id for this browser (in its uids cookie), to cap how often one ad is shown to it.'
      : 'adplane keeps no id for this browser.';
  const [value, label] = cookie.optout ? ['0', 'Opt back in'] : ['1', 'Opt out'];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>adplane: opt out of the browser id</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1f2329}main{max-width:36rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}h1{font-size:1.4rem;margin:0 0 1rem}button{font:inherit;padding:.5rem 1.2rem;border:0;border-radius:6px;background:#1f5fd1;color:#fff;cursor:pointer}p.note{color:#5b6270;font-size:.9rem}</style>
</head><body><main>
<h1>adplane's browser id</h1>
<p id="status">${status}</p>
<form method="post" action="/optout"><input type="hidden" name="optout" value="${value}"><button type="submit">${label}</button></form>
<p class="note">Opting out keeps a cookie that says so on this browser alone, for 400 days from the last visit to this page; clearing cookies clears the choice too. Ads are still shown, capped by network address and browser type instead.</p>
</main></body></html>
`;
}
