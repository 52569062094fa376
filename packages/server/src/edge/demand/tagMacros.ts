import { randomInt, randomUUID } from 'node:crypto';
import { type SupplyChainNode } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { outboundSupplyChain, serializeSupplyChain } from '../ortb/supplyChain.js';

/**
 * Fill the macros of a demand tag's VAST URL from the request: adplane's own {{macros}} (the same
 * names the console prints in channel tags; an unknown one becomes empty) and the IAB's VAST 4
 * [MACROS] that a partner's tag carries (iabMacros). Every value is URL-encoded. `{{schain}}` is the
 * request's supply chain with our node (`node`) appended, serialized (the SupplyChain spec's
 * "Non-OpenRTB Requests"), as our bid requests' `source.schain`.
 */
export function fillTagUrl(template: string, ctx: RequestContext, cachebuster: string, node: SupplyChainNode): string {
  return fillIabMacros(fillOwnMacros(template, ctx, cachebuster, node), ctx);
}

function fillOwnMacros(template: string, ctx: RequestContext, cachebuster: string, node: SupplyChainNode): string {
  if (!template.includes('{{')) return template;
  const q = ctx.query;
  const values: Record<string, string> = {
    width: q.width ? String(q.width) : '',
    height: q.height ? String(q.height) : '',
    ip: ctx.ip,
    user_agent: ctx.ua,
    ua: ctx.ua,
    cachebuster,
    cb: cachebuster,
    app_bundle: q.appBundle,
    app_name: q.appName,
    app_store_url: q.appStoreUrl,
    device_id: q.deviceId,
    device_type: q.deviceType ? String(q.deviceType) : '',
    us_privacy: q.usPrivacy,
    gdpr: q.gdpr === null ? '' : String(q.gdpr),
    gdpr_consent: q.gdprConsent,
    gpp: q.gpp,
    gpp_sid: q.gppSid,
    coppa: String(q.coppa),
    dnt: String(q.dnt),
    domain: ctx.domain,
    page_url: q.pageUrl,
    content_genre: q.contentGenre,
    content_category: q.contentCategory,
    content_rating: q.contentRating,
    livestream: String(q.livestream),
    country: ctx.geo.country,
    schain: template.includes('schain')
      ? serializeSupplyChain(outboundSupplyChain({ ortb: ctx.ortb?.request, schain: q.schain }, node))
      : '',
    min_duration: q.minDuration ? String(q.minDuration) : '',
    max_duration: q.maxDuration ? String(q.maxDuration) : '',
  };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (_, name: string) =>
    encodeURIComponent(values[name.toLowerCase()] ?? ''),
  );
}

/** Unknown, but would be shared if known (VAST 4.x, "Marking Macro Values as Unknown or Unavailable"). */
const UNKNOWN = '-1';

/** The advertising id's type, by the device's OS (the IAB's IFA type names). */
const IFA_TYPE: Readonly<Record<string, string>> = {
  ios: 'idfa',
  tvos: 'idfa',
  android: 'aaid',
  roku: 'rida',
  tizen: 'tifa',
  webos: 'lgudid',
  fireos: 'afai',
};

/** Every VAST version adplane reads in a demand's answer, as OpenRTB protocol ids (inline and wrapper, 2.0 to 4.2). */
const READABLE_VAST = '2,3,5,6,7,8,11,12,13,14';

/** A list macro's values: each URL-encoded, joined by unencoded commas (as VAST 4 asks). */
const list = (values: readonly string[]): string => values.map(encodeURIComponent).join(',');

/** ISO 8601 with milliseconds and the zone offset, as [TIMESTAMP] wants it (UTC here). */
const timestamp = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

/**
 * The IAB VAST 4 macros a VAST request URI may carry (the IAB's macro list, contexts "VAST request
 * URIs"), filled from the request as the player would have: adplane makes the request on the
 * player's behalf ([SERVERSIDE] 1). A value the request did not give is -1 ("unknown, but would be
 * shared if known"), as is a macro adplane has no value for at all (ad-break and player-capability
 * details a VAST tag call does not carry); a name not in the list is left as it is.
 */
const IAB_MACROS: Readonly<Record<string, (ctx: RequestContext) => string>> = {
  TIMESTAMP: (ctx) => encodeURIComponent(timestamp(ctx.now)),
  CACHEBUSTING: () => String(randomInt(10_000_000, 100_000_000)),
  TRANSACTIONID: () => randomUUID(),
  IFA: (ctx) => encodeURIComponent(ctx.query.deviceId) || UNKNOWN,
  IFATYPE: (ctx) => (ctx.query.deviceId && IFA_TYPE[ctx.platform.os]) || UNKNOWN,
  DEVICEUA: (ctx) => encodeURIComponent(ctx.ua) || UNKNOWN,
  DEVICEIP: (ctx) => encodeURIComponent(ctx.ip) || UNKNOWN,
  SERVERSIDE: () => '1',
  DOMAIN: (ctx) => encodeURIComponent(ctx.domain) || UNKNOWN,
  PAGEURL: (ctx) => encodeURIComponent(ctx.query.pageUrl) || UNKNOWN,
  APPBUNDLE: (ctx) => encodeURIComponent(ctx.query.appBundle) || UNKNOWN,
  STOREURL: (ctx) => encodeURIComponent(ctx.query.appStoreUrl) || UNKNOWN,
  PLAYERSIZE: (ctx) =>
    ctx.query.width > 0 && ctx.query.height > 0 ? `${ctx.query.width},${ctx.query.height}` : UNKNOWN,
  VASTVERSIONS: () => READABLE_VAST,
  // what adplane keeps of a demand's answer beside the VAST elements themselves
  EXTENSIONS: () => 'AdVerifications',
  LIMITADTRACKING: (ctx) => String(ctx.query.dnt),
  REGULATIONS: (ctx) => list([...(ctx.query.gdpr === 1 ? ['gdpr'] : []), ...(ctx.query.coppa === 1 ? ['coppa'] : [])]),
  GDPRCONSENT: (ctx) => encodeURIComponent(ctx.query.gdprConsent) || UNKNOWN,
  GPPSTRING: (ctx) => encodeURIComponent(ctx.query.gpp) || UNKNOWN,
  GPPSECTIONID: (ctx) => list(ctx.query.gppSid.split(/[,_]/).filter(Boolean)) || UNKNOWN,
  CONTENTCAT: (ctx) =>
    list(
      ctx.query.contentCategory
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    ) || UNKNOWN,
  ...Object.fromEntries(
    [
      'CONTENTPLAYHEAD',
      'MEDIAPLAYHEAD',
      'BREAKPOSITION',
      'BLOCKEDADCATEGORIES',
      'ADCATEGORIES',
      'ADCOUNT',
      'PLACEMENTTYPE',
      'ADTYPE',
      'BREAKMAXDURATION',
      'BREAKMAXADS',
      'BREAKMINADLENGTH',
      'BREAKMAXADLENGTH',
      'CLIENTUA',
      'SERVERUA',
      'LATLONG',
      'APIFRAMEWORKS',
      'VERIFICATIONVENDORS',
      'OMIDPARTNER',
      'MEDIAMIME',
      'PLAYERCAPABILITIES',
      'CLICKTYPE',
      'INVENTORYSTATE',
      'CONTENTID',
      'CONTENTURI',
      'STOREID',
      'PLAYBACKMETHODS',
    ].map((name) => [name, () => UNKNOWN]),
  ),
};

/** A tag URL's IAB [MACROS] filled (IAB_MACROS); any other bracketed name is left as it is. */
export function fillIabMacros(url: string, ctx: RequestContext): string {
  if (!url.includes('[')) return url;
  return url.replace(/\[([A-Z]+)\]/g, (whole, name: string) => IAB_MACROS[name]?.(ctx) ?? whole);
}
