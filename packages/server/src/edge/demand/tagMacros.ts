import { type RequestContext } from '../request/context.js';

/**
 * Fill the {{macros}} of a demand tag's VAST URL from the request (the same names the console
 * prints in channel tags). Unknown macros become empty; every value is URL-encoded.
 */
export function fillTagUrl(template: string, ctx: RequestContext, cachebuster: string): string {
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
    schain: q.schain,
  };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (_, name: string) => encodeURIComponent(values[name.toLowerCase()] ?? ''));
}
