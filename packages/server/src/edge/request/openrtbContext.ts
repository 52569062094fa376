import { type BidRequest, countryFromAlpha3, type Imp, partnerSyncBidder } from '@adplane/shared';
import { categoriesOfBidRequest } from './contentCategories.js';
import { type ConnectionFacts, NO_PARTNER_UIDS, type RequestContext } from './context.js';
import { type GeoLookup, geoipLiteLookup, publicAddress, UNKNOWN_GEO } from './geo.js';
import { keyValuesOfBidRequest } from './keyValues.js';
import { hostOf, type TagQuery } from './macros.js';
import { playerSizeOf } from './playerSize.js';
import { deviceOfOrtbType, platformOf } from '../../ivt/userAgent.js';

/**
 * The request context of one impression of an OpenRTB 2.5/2.6 bid request: the same context a VAST
 * tag call builds from its macros, read from site or app, device, user and regs instead (2.5's
 * `ext` spellings of the privacy signals accepted). The bid request is a caller's JSON: every value
 * is read by its type and anything else reads as absent, never as an error.
 */
const str = (v: unknown, max = 2048): string => (typeof v === 'string' ? v.trim().slice(0, max) : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** Read only: an absent object is one shared empty object, so that reading a request's nested fields allocates nothing. */
const NONE: Readonly<Record<string, unknown>> = Object.freeze({});
const obj = (v: unknown): Readonly<Record<string, unknown>> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : NONE;
const bit = (v: unknown): 0 | 1 => (v === 1 || v === true || v === '1' ? 1 : 0);
/** A privacy flag as exchanges write it (1, "1", true; 0, "0", false), null when not stated. */
const flag = (v: unknown): 0 | 1 | null =>
  v === 1 || v === '1' || v === true ? 1 : v === 0 || v === '0' || v === false ? 0 : null;
const dim = (v: unknown): number => {
  const n = num(v);
  return n > 0 && n <= 16_384 ? Math.floor(n) : 0;
};

/** The impression's slot size: the video player's, else the banner's (its first format when it states none). */
function impSize(imp: Imp): { w: number; h: number } {
  const video = obj(imp.video);
  if (imp.video) return { w: dim(video.w), h: dim(video.h) };
  const banner = obj(imp.banner);
  let w = dim(banner.w);
  let h = dim(banner.h);
  if (!w || !h) {
    const first = obj(Array.isArray(banner.format) ? banner.format[0] : undefined);
    w = dim(first.w);
    h = dim(first.h);
  }
  return { w, h };
}

function queryOfBidRequest(req: BidRequest, imp: Imp): TagQuery {
  const site = obj(req.site);
  const app = obj(req.app);
  const device = obj(req.device);
  const user = obj(req.user);
  const regs = obj(req.regs);
  const regsExt = obj(regs.ext);
  const content = obj(req.app ? app.content : site.content);
  const { w, h } = impSize(imp);
  // the 2.6 field, else 2.5's regs.ext.gdpr ("1" read as 1: some exchanges quote it)
  const gdpr = flag(regs.gdpr) ?? flag(regsExt.gdpr);
  const gppSid = Array.isArray(regs.gpp_sid) ? regs.gpp_sid.filter((n) => typeof n === 'number').join(',') : '';
  // the content's first category, as a demand tag's macro passes it on; targeting reads all of a request's (contextOfBidRequest)
  const cat = Array.isArray(content.cat) ? str(content.cat[0], 128) : '';
  return {
    ip: str(device.ip, 64) || str(device.ipv6, 64),
    ua: str(device.ua, 1024),
    width: w,
    height: h,
    appBundle: str(app.bundle, 255),
    appName: str(app.name, 255),
    appStoreUrl: str(app.storeurl),
    domain: hostOf(str(site.domain) || str(site.page) || str(app.domain)),
    pageUrl: str(site.page),
    deviceId: str(device.ifa, 128),
    deviceType:
      Number.isInteger(device.devicetype) && num(device.devicetype) >= 1 && num(device.devicetype) <= 7
        ? num(device.devicetype)
        : 0,
    cb: str(req.id, 64),
    usPrivacy: str(regs.us_privacy, 16) || str(regsExt.us_privacy, 16),
    gdpr,
    gdprConsent: str(user.consent) || str(obj(user.ext).consent),
    gpp: str(regs.gpp),
    gppSid,
    coppa: bit(regs.coppa),
    dnt: bit(device.dnt) || bit(device.lmt) ? 1 : 0,
    contentGenre: str(content.genre, 128),
    contentCategory: cat,
    contentRating: str(content.contentrating, 32),
    livestream: bit(content.livestream),
    schain: '',
    // what an OpenRTB impression takes is read from it where it applies (targeting/impFit.ts)
    minDuration: 0,
    maxDuration: 0,
    podMaxAds: 0,
    podMaxDuration: 0,
    // a VAST tag's parameter: a bid request names its app in app.bundle
    appKey: '',
  };
}

export function contextOfBidRequest(
  req: BidRequest,
  imp: Imp,
  conn: ConnectionFacts,
  now: number,
  geoLookup: GeoLookup = geoipLiteLookup,
): RequestContext {
  const query = queryOfBidRequest(req, imp);
  // The viewer is the device the request describes. The connection stands in only where the caller
  // says it is the viewer (Prebid.js in the browser calling /openrtb2/auction); an exchange's server
  // passes remoteAddress '' so that its own address never reads as the viewer's.
  const ip = publicAddress(query.ip) || publicAddress(conn.remoteAddress);
  const ua = query.ua || conn.userAgent.slice(0, 1024);
  let platform = platformOf(ua);
  const stated = deviceOfOrtbType(query.deviceType);
  if (stated && stated !== platform.device) platform = { ...platform, device: stated };
  let geo = ip ? geoLookup(ip) : UNKNOWN_GEO;
  if (!geo.country) {
    // no usable address: the exchange's own geo object (alpha-3 country)
    const g = obj(obj(req.device).geo);
    const country = countryFromAlpha3(str(g.country, 3));
    const region = str(g.region, 3).toUpperCase();
    if (country) geo = { country, region, usState: country === 'US' ? region : '' };
  }
  // the app when there is one, else the site (as queryOfBidRequest reads them)
  const place = obj(req.app ? req.app : req.site);
  return {
    query,
    ip,
    ua,
    geo,
    platform,
    playerSize: query.width > 0 ? playerSizeOf(query.width) : '',
    appBundle: query.appBundle,
    domain: query.domain,
    iabCategories: categoriesOfBidRequest(place, obj(place.content)),
    keyValues: keyValuesOfBidRequest(req, imp),
    now,
    userId: userIdOf(req, conn),
    partnerUids: partnerUidsOf(req, conn),
    ortb: { request: req, imp },
    // (always present, undefined for most requests: one object shape for every context)
    hops: conn.hops ?? undefined,
  };
}

/**
 * adplane's id for the viewer on a bid request, as Prebid Server picks a bidder's: the request's
 * `user.ext.prebid.buyeruids.adplane` (an app's or a server's explicit ids), else `user.buyeruid`
 * (an exchange's id for its buyer, adplane, from its own cookie sync), else the `uids` cookie of the
 * caller's browser (Prebid.js calling with credentials); '' when none.
 */
function userIdOf(req: BidRequest, conn: ConnectionFacts): string {
  const user = obj(req.user);
  return str(obj(obj(obj(user.ext).prebid).buyeruids).adplane, 128) || str(user.buyeruid, 128) || (conn.userId ?? '');
}

/**
 * Demand partners' ids (request/context.ts partnerUids): a Prebid request's explicit
 * `user.ext.prebid.buyeruids` for a partner's code over the caller's cookie.
 */
function partnerUidsOf(req: BidRequest, conn: ConnectionFacts): Readonly<Record<string, string>> {
  const fromCookie = conn.partnerUids ?? NO_PARTNER_UIDS;
  const explicit = obj(obj(obj(obj(req.user).ext).prebid).buyeruids);
  let out: Record<string, string> | null = null;
  if (explicit === NONE) return fromCookie;
  for (const bidder in explicit) {
    if (!bidder.startsWith(PARTNER_PREFIX)) continue;
    const uid = str(explicit[bidder], 128);
    if (uid) (out ??= { ...fromCookie })[bidder] = uid;
  }
  return out ?? fromCookie;
}
const PARTNER_PREFIX = partnerSyncBidder(0).slice(0, -1);
