import { CURRENCY, TIMEZONES } from '../constants.js';
import { formatTimezone } from '../format.js';
import { type ReferenceItem } from './types.js';

/**
 * Small fixed lists of the console: integrations, environments, formats, operating systems, devices,
 * smart-TV and browser families, currencies, time zones and video events. Every item is `{ id, name }`;
 * ids are what rows and targeting store, names are what people read.
 *
 * The integration, environment and format ids are the ones the entity contract uses (entities/ssp.ts
 * `INTEGRATIONS`, `ENVIRONMENTS`, `AD_FORMATS`); these lists add the labels, under `*_OPTIONS` names so
 * that both can be exported from the package.
 */

const byId = <T extends ReferenceItem>(items: readonly T[]): ReadonlyMap<string, T> =>
  new Map(items.map((i) => [i.id, i]));

export const INTEGRATION_OPTIONS = [
  { id: 'VAST', name: 'VAST' },
  { id: 'RTB', name: 'RTB' },
  { id: 'PreBid', name: 'PreBid' },
] as const satisfies readonly ReferenceItem[];

export const ENVIRONMENT_OPTIONS = [
  { id: 'ctv', name: 'CTV' },
  { id: 'app', name: 'Mobile app' },
  { id: 'web', name: 'Web' },
] as const satisfies readonly ReferenceItem[];

export const AD_FORMAT_OPTIONS = [
  { id: 'video', name: 'Video' },
  { id: 'display', name: 'Display' },
] as const satisfies readonly ReferenceItem[];

/** The console's seven first (the order its pickers have always shown), then the TV operating systems the edge also recognises in user agents. */
export const OPERATING_SYSTEMS = [
  { id: 'windows', name: 'Windows' },
  { id: 'ios', name: 'iOS' },
  { id: 'android', name: 'Android' },
  { id: 'roku', name: 'Roku' },
  { id: 'tizen', name: 'Tizen' },
  { id: 'macos', name: 'macOS' },
  { id: 'linux', name: 'Linux' },
  { id: 'webos', name: 'webOS' },
  { id: 'tvos', name: 'tvOS' },
  { id: 'fireos', name: 'Fire OS' },
] as const satisfies readonly ReferenceItem[];
export const OPERATING_SYSTEM_BY_ID = byId(OPERATING_SYSTEMS);

/**
 * Device types the console targets. `ortbDeviceTypes` are the OpenRTB 2.6 `device.devicetype` values (AdCOM
 * "List: Device Types") each one covers, so an exchange's bid request maps onto the same targeting.
 */
export const DEVICE_TYPES = [
  { id: 'mobile', name: 'Mobile', ortbDeviceTypes: [1, 4, 5] }, // Mobile/Tablet - General, Phone, Tablet
  { id: 'desktop', name: 'Desktop', ortbDeviceTypes: [2] }, // Personal Computer
  { id: 'smarttv', name: 'SmartTV', ortbDeviceTypes: [3, 7] }, // Connected TV, Set Top Box
] as const satisfies readonly (ReferenceItem & { ortbDeviceTypes: readonly number[] })[];
export const DEVICE_TYPE_BY_ID = byId(DEVICE_TYPES);

/** Smart-TV, streaming-stick and console families, as CTV supply is bought and reported. */
export const SMART_TV_FAMILIES = [
  { id: 'roku', name: 'Roku' },
  { id: 'tizen', name: 'Samsung Tizen' },
  { id: 'webos', name: 'LG webOS' },
  { id: 'firetv', name: 'Amazon Fire TV' },
  { id: 'appletv', name: 'Apple TV' },
  { id: 'androidtv', name: 'Android TV / Google TV' },
  { id: 'vizio', name: 'Vizio SmartCast' },
  { id: 'vidaa', name: 'Hisense VIDAA' },
  { id: 'xbox', name: 'Xbox' },
  { id: 'playstation', name: 'PlayStation' },
  { id: 'chromecast', name: 'Chromecast' },
] as const satisfies readonly ReferenceItem[];
export const SMART_TV_FAMILY_BY_ID = byId(SMART_TV_FAMILIES);

/** Browser families as a user-agent parser tells them apart (Chromium forks that hide behind Chrome's UA are Chrome). */
export const BROWSER_FAMILIES = [
  { id: 'chrome', name: 'Chrome' },
  { id: 'safari', name: 'Safari' },
  { id: 'firefox', name: 'Firefox' },
  { id: 'edge', name: 'Edge' },
  { id: 'opera', name: 'Opera' },
  { id: 'samsung', name: 'Samsung Internet' },
  { id: 'webview', name: 'Android WebView' },
  { id: 'ucbrowser', name: 'UC Browser' },
  { id: 'yandex', name: 'Yandex Browser' },
  { id: 'silk', name: 'Amazon Silk' },
  { id: 'ie', name: 'Internet Explorer' },
] as const satisfies readonly ReferenceItem[];
export const BROWSER_FAMILY_BY_ID = byId(BROWSER_FAMILIES);

/** The one currency of the product: USD, shown with the symbol $. */
export const CURRENCIES = [
  { id: CURRENCY.id, name: 'US Dollar', symbol: CURRENCY.symbol },
] as const satisfies readonly (ReferenceItem & { symbol: string })[];

/** Whole-hour offsets -12..+12 labelled with a sign: `UTC-5`, `UTC±0`, `UTC+3`. */
export const TIMEZONE_OPTIONS: readonly ReferenceItem<number>[] = TIMEZONES.map((offset) => ({
  id: offset,
  name: formatTimezone(offset),
}));

/** The VAST tracking events the product counts, with the console's labels. */
export const VIDEO_EVENTS = [
  { id: 'impression', name: 'Impression' },
  { id: 'start', name: 'Start' },
  { id: 'firstQuartile', name: 'First Quartile' },
  { id: 'midpoint', name: 'Mid Point' },
  { id: 'thirdQuartile', name: 'Third Quartile' },
  { id: 'complete', name: 'Complete' },
] as const satisfies readonly ReferenceItem[];
export type VideoEventId = (typeof VIDEO_EVENTS)[number]['id'];
export const VIDEO_EVENT_BY_ID = byId(VIDEO_EVENTS);

export function isVideoEvent(id: unknown): id is VideoEventId {
  return typeof id === 'string' && VIDEO_EVENT_BY_ID.has(id);
}
