/**
 * The query parameters a channel's VAST tag carries (see packages/shared edge/tagMacros.ts for what the console
 * prints), read back defensively: a player that did not fill a macro sends `{{width}}` or `[WIDTH]`
 * literally, which must read as "absent", never as a value.
 */
import { MAX_POD_SECONDS } from '@adplane/shared';

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
  /** The ad lengths the player takes, in seconds (0: not stated): a video shorter or longer does not serve. */
  minDuration: number;
  maxDuration: number;
  /**
   * An ad pod (CTV's ad break): how many ads the player takes at most, and their total length in
   * seconds (0: not stated). More than one ad asked: the answer is a pod (decision/adPod.ts).
   */
  podMaxAds: number;
  podMaxDuration: number;
  /** An SDK app's key (the app's uid in SDK Admin): the request is the app's, checked and attributed by the decision. */
  appKey: string;
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
  minDuration: ['min_dur', 'min_duration', 'minduration'],
  maxDuration: ['max_dur', 'max_duration', 'maxduration'],
  podMaxAds: ['pod_max_ads', 'pod_size', 'podsize', 'max_ads'],
  podMaxDuration: ['pod_max_dur', 'pod_max_duration', 'pod_dur', 'pod_duration', 'poddur'],
  appKey: ['app_key'],
} as const;

const MAX_TEXT = 2048;
/** Above every name's rank: no value yet. */
const NO_RANK = 99;
/** An unfilled macro: {{name}}, [NAME], ${NAME}, %%NAME%%. */
const UNFILLED = /^(\{\{.*\}\}|\[[A-Z0-9_]+\]|\$\{.*\}|%%.*%%)$/;

export type RawQuery = Record<string, string | string[] | undefined>;

/** A bare host name from a domain or URL macro: `https://News.Example.com/x` -> `news.example.com`. */
export function hostOf(value: string): string {
  if (!value) return '';
  const v = value
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[/?#:].*$/, '')
    .replace(/^www\./, '');
  return /^[a-z0-9.-]{1,253}$/.test(v) && v.includes('.') ? v : '';
}

type Field = keyof typeof NAMES;
const FIELDS = Object.keys(NAMES) as Field[];
/** Each field's place in FIELDS (the index of its value while a query is read). */
const F = Object.fromEntries(FIELDS.map((f, i) => [f, i])) as Record<Field, number>;
/**
 * Each parameter name's field and its rank among that field's names: a query is read in one pass
 * over the parameters it has (a tag fills a few of the 40 names), not by looking each name up in it.
 */
const NAME_AT = new Map<string, { field: number; rank: number }>(
  FIELDS.flatMap((f) => NAMES[f].map((name, rank) => [name, { field: F[f], rank }] as const)),
);

/** A parameter's value as a macro's text: trimmed, '' when empty or unfilled, at most MAX_TEXT long. */
function usable(v: string | string[] | undefined): string {
  if (Array.isArray(v)) v = v[0];
  if (typeof v !== 'string') return '';
  const t = v.trim();
  if (!t || UNFILLED.test(t)) return '';
  return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) : t;
}

/** A parameter's value as a macro's text: trimmed, '' when empty or unfilled (`{{genre}}`). */
export const macroText = (v: string): string => usable(v);

/** Whether a query parameter is one of the tag's macros (any of its names). */
export const isTagMacroName = (name: string): boolean => NAME_AT.has(name);

function int(t: string, max: number): number {
  if (!t || !/^\d{1,6}$/.test(t)) return 0;
  const n = Number(t);
  return n > max ? 0 : n;
}

const flag = (t: string): 0 | 1 => (t && /^(1|true)$/i.test(t) ? 1 : 0);

export function readTagQuery(query: RawQuery): TagQuery {
  // per field, the usable value of its first name (NAMES order) that has one
  const values = new Array<string>(FIELDS.length).fill('');
  const ranks = new Array<number>(FIELDS.length).fill(NO_RANK);
  for (const name in query) {
    const at = NAME_AT.get(name);
    if (at === undefined || at.rank >= ranks[at.field]!) continue;
    const t = usable(query[name]);
    if (!t) continue;
    values[at.field] = t;
    ranks[at.field] = at.rank;
  }
  const gdpr = values[F.gdpr];
  return {
    ip: values[F.ip]!,
    ua: values[F.ua]!,
    width: int(values[F.width]!, 16_384),
    height: int(values[F.height]!, 16_384),
    appBundle: values[F.appBundle]!.slice(0, 255),
    appName: values[F.appName]!.slice(0, 255),
    appStoreUrl: values[F.appStoreUrl]!,
    domain: hostOf(values[F.domain]!),
    pageUrl: values[F.pageUrl]!,
    deviceId: values[F.deviceId]!.slice(0, 128),
    deviceType: int(values[F.deviceType]!, 7),
    cb: values[F.cb]!.slice(0, 64),
    usPrivacy: values[F.usPrivacy]!.slice(0, 16),
    gdpr: gdpr === '1' ? 1 : gdpr === '0' ? 0 : null,
    gdprConsent: values[F.gdprConsent]!,
    gpp: values[F.gpp]!,
    gppSid: values[F.gppSid]!.slice(0, 64),
    coppa: flag(values[F.coppa]!),
    dnt: flag(values[F.dnt]!),
    contentGenre: values[F.contentGenre]!.slice(0, 128),
    contentCategory: values[F.contentCategory]!.slice(0, 128),
    contentRating: values[F.contentRating]!.slice(0, 32),
    livestream: flag(values[F.livestream]!),
    schain: values[F.schain]!,
    minDuration: int(values[F.minDuration]!, 3600),
    maxDuration: int(values[F.maxDuration]!, 3600),
    podMaxAds: int(values[F.podMaxAds]!, 1000),
    podMaxDuration: int(values[F.podMaxDuration]!, MAX_POD_SECONDS),
    appKey: values[F.appKey]!.slice(0, 64),
  };
}
