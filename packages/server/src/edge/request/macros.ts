/**
 * The query parameters a channel's VAST tag carries (see packages/shared edge/tagMacros.ts for what the console
 * prints), read back defensively: a player that did not fill a macro sends `{{width}}` or `[WIDTH]`
 * literally, which must read as "absent", never as a value.
 */
export interface TagQuery {
  ip: string;
  ua: string;
  width: number;
  height: number;
  appBundle: string;
  appName: string;
  appStoreUrl: string;
  domain: string;
  pageUrl: string;
  deviceId: string;
  /** OpenRTB device type as the player says it (1..7), 0 when absent. */
  deviceType: number;
  cb: string;
  usPrivacy: string;
  gdpr: 0 | 1 | null;
  gdprConsent: string;
  gpp: string;
  gppSid: string;
  coppa: 0 | 1;
  /** Do not track or limit ad tracking. */
  dnt: 0 | 1;
  contentGenre: string;
  contentCategory: string;
  contentRating: string;
  livestream: 0 | 1;
  schain: string;
}

/** Query parameter names per field, first match wins (short names first: they are what our tags print). */
const NAMES = {
  ip: ['ip', 'uip'],
  ua: ['ua'],
  width: ['w', 'width'],
  height: ['h', 'height'],
  appBundle: ['app_bundle', 'bundle'],
  appName: ['app_name'],
  appStoreUrl: ['app_store_url', 'storeurl'],
  domain: ['domain'],
  pageUrl: ['page_url', 'url'],
  deviceId: ['device_id', 'ifa'],
  deviceType: ['device_type', 'devicetype'],
  cb: ['cb'],
  usPrivacy: ['us_privacy'],
  gdpr: ['gdpr'],
  gdprConsent: ['gdpr_consent'],
  gpp: ['gpp'],
  gppSid: ['gpp_sid'],
  coppa: ['coppa'],
  dnt: ['dnt', 'lmt'],
  contentGenre: ['content_genre'],
  contentCategory: ['content_cat', 'content_category'],
  contentRating: ['content_rating'],
  livestream: ['livestream'],
  schain: ['schain'],
} as const;

const MAX_TEXT = 2048;
/** An unfilled macro: {{name}}, [NAME], ${NAME}, %%NAME%%. */
const UNFILLED = /^(\{\{.*\}\}|\[[A-Z0-9_]+\]|\$\{.*\}|%%.*%%)$/;

export type RawQuery = Record<string, string | string[] | undefined>;

function text(query: RawQuery, names: readonly string[]): string {
  for (const name of names) {
    let v = query[name];
    if (Array.isArray(v)) v = v[0];
    if (typeof v !== 'string') continue;
    const t = v.trim();
    if (!t || UNFILLED.test(t)) continue;
    return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) : t;
  }
  return '';
}

function int(query: RawQuery, names: readonly string[], max: number): number {
  const t = text(query, names);
  if (!t || !/^\d{1,6}$/.test(t)) return 0;
  const n = Number(t);
  return n > max ? 0 : n;
}

function flag(query: RawQuery, names: readonly string[]): 0 | 1 {
  const t = text(query, names);
  return t && /^(1|true)$/i.test(t) ? 1 : 0;
}

/** A bare host name from a domain or URL macro: `https://News.Example.com/x` -> `news.example.com`. */
export function hostOf(value: string): string {
  if (!value) return '';
  const v = value.toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/[/?#:].*$/, '').replace(/^www\./, '');
  return /^[a-z0-9.-]{1,253}$/.test(v) && v.includes('.') ? v : '';
}

export function readTagQuery(query: RawQuery): TagQuery {
  const gdpr = text(query, NAMES.gdpr);
  return {
    ip: text(query, NAMES.ip),
    ua: text(query, NAMES.ua),
    width: int(query, NAMES.width, 16_384),
    height: int(query, NAMES.height, 16_384),
    appBundle: text(query, NAMES.appBundle).slice(0, 255),
    appName: text(query, NAMES.appName).slice(0, 255),
    appStoreUrl: text(query, NAMES.appStoreUrl),
    domain: hostOf(text(query, NAMES.domain)),
    pageUrl: text(query, NAMES.pageUrl),
    deviceId: text(query, NAMES.deviceId).slice(0, 128),
    deviceType: int(query, NAMES.deviceType, 7),
    cb: text(query, NAMES.cb).slice(0, 64),
    usPrivacy: text(query, NAMES.usPrivacy).slice(0, 16),
    gdpr: gdpr === '1' ? 1 : gdpr === '0' ? 0 : null,
    gdprConsent: text(query, NAMES.gdprConsent),
    gpp: text(query, NAMES.gpp),
    gppSid: text(query, NAMES.gppSid).slice(0, 64),
    coppa: flag(query, NAMES.coppa),
    dnt: flag(query, NAMES.dnt),
    contentGenre: text(query, NAMES.contentGenre).slice(0, 128),
    contentCategory: text(query, NAMES.contentCategory).slice(0, 128),
    contentRating: text(query, NAMES.contentRating).slice(0, 32),
    livestream: flag(query, NAMES.livestream),
    schain: text(query, NAMES.schain),
  };
}
