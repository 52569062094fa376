import { type UaProfile } from './userAgentProfile.js';

/**
 * Malformed and contradictory app, device and OS data. Each rule flags only what no honest
 * request carries; where real traffic commonly gets a field wrong (an iOS app's bundle sent as
 * `com.vendor.app` rather than its App Store id, an Android TV stick stating "mobile"), the rule
 * stays silent. docs/traffic-quality.md lists every rule and what it deliberately lets through.
 */

/** Reverse-DNS package names, App Store ids, Amazon ASINs, Samsung and Roku store ids: dot-separated runs of letters, digits, `_` and `-`. */
const BUNDLE_SHAPE = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** Values players and SDKs send when they have no bundle. */
const BUNDLE_PLACEHOLDER =
  /^(?:null|undefined|none|unknown|n-?a|nil|test|bundle|app_?bundle|app_?id|bundle_?id|0+|-+|_+)$|^com\.example(?:\.|$)/i;

export function isPlausibleBundle(bundle: string): boolean {
  return bundle.length <= 200 && BUNDLE_SHAPE.test(bundle) && !BUNDLE_PLACEHOLDER.test(bundle);
}

/** An http(s) or App Store URL with a host (the scheme may be left out), or an Android `market://` link. */
const STORE_URL =
  /^(?:(?:https?|itms-apps|itms):\/\/)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d{1,5})?(?:[/?#]\S*)?$|^market:\/\/\S+$/i;

export function isPlausibleStoreUrl(url: string): boolean {
  return url.length <= 2048 && STORE_URL.test(url);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Hashed or dash-less ids (MD5, SHA-1, SHA-256 of an id, or a UUID without dashes). */
const HEX_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i;
const ZEROS = /^[0-]+$/;
/** OpenRTB 2.6 ifa_type values whose ids are the publisher's or the SSP's own, in any format. */
const FREE_FORM_ID_TYPES = /^(?:ppid|sspid|sessionid|pubid|custom)$/i;
/** What a free-form id holds when there is none: shared by every viewer, so never one device. */
const FREE_FORM_PLACEHOLDER = /^(?:[0-]+|null|undefined|none|unknown|n\/?a)$/i;

/**
 * `ok`: one device's id (the rate rule counts it); `zero`: an ad id of all zeros (no usable id);
 * `placeholder`: a free-form id that stands for none (`0`, `null`...), neither flagged nor counted
 * as a device; `invalid`: not an ad id at all.
 */
export type DeviceIdVerdict = 'ok' | 'invalid' | 'zero' | 'placeholder';

/** Advertising ids (IDFA, AAID, RIDA, AFAI, TIFA, LGUDID, VIDA, MSAI) are UUIDs; all zeros is what a device sends when tracking is limited. */
export function deviceIdVerdict(id: string, idType: string): DeviceIdVerdict {
  if (idType && FREE_FORM_ID_TYPES.test(idType)) return FREE_FORM_PLACEHOLDER.test(id) ? 'placeholder' : 'ok';
  if (!UUID.test(id) && !HEX_ID.test(id)) return 'invalid';
  return ZEROS.test(id) ? 'zero' : 'ok';
}

/** OS families that cannot be one another. '' for what is not one of them (Linux, unknown). */
const UA_OS_FAMILY: Record<string, string> = {
  ios: 'apple',
  tvos: 'apple',
  macos: 'apple',
  android: 'android',
  fireos: 'android',
  roku: 'roku',
  tizen: 'tizen',
  webos: 'webos',
  windows: 'windows',
};

const STATED_OS_FAMILY: [RegExp, string][] = [
  [/^(?:i(?:phone ?)?os|ipad ?os|tv ?os|watch ?os|mac ?os(?: ?x)?|os ?x|apple)/i, 'apple'],
  [/^(?:android|fire ?os|amazon)/i, 'android'],
  [/^roku/i, 'roku'],
  [/^tizen/i, 'tizen'],
  [/^web0?os/i, 'webos'],
  [/^windows/i, 'windows'],
];

const statedFamilies = new Map<string, string>();

/** The family of an OS as a request states it (`device.os`): a handful of distinct strings, cached. */
export function statedOsFamily(os: string): string {
  let family = statedFamilies.get(os);
  if (family !== undefined) return family;
  family = '';
  for (const [re, f] of STATED_OS_FAMILY) {
    if (re.test(os.trim())) {
      family = f;
      break;
    }
  }
  if (statedFamilies.size < 1_000) statedFamilies.set(os, family);
  return family;
}

export const uaOsFamily = (ua: UaProfile): string => UA_OS_FAMILY[ua.os] ?? '';

/** TV platforms that are not Android underneath: their user agents cannot come from a phone, a tablet or a PC. */
const NON_ANDROID_TV = new Set(['roku', 'tizen', 'webos', 'vizio', 'vidaa', 'appletv', 'playstation', 'xbox']);

/**
 * The device type a request states (OpenRTB 1..7) against its user agent. CTV or set-top box with
 * a Windows or Mac browser; phone, tablet or PC with a Roku, Tizen, webOS... user agent. Android
 * TV and Fire TV devices often state "mobile" (their SDKs are Android's), so they pass; so does an
 * Xbox stating "PC": it runs Windows and says so in its user agent (`Windows NT 10.0; ...; Xbox`),
 * and SDKs that map Windows to a PC state 2 honestly.
 */
export function deviceTypeContradicts(deviceType: number, ua: UaProfile): boolean {
  if (deviceType === 3 || deviceType === 7)
    return ua.device === 'desktop' && ua.tvFamily === '' && (ua.os === 'windows' || ua.os === 'macos');
  if (deviceType === 2) return ua.tvFamily !== 'xbox' && NON_ANDROID_TV.has(ua.tvFamily);
  if (deviceType === 4 || deviceType === 5) return NON_ANDROID_TV.has(ua.tvFamily);
  return false;
}

/** App Store ids: `id` + digits, or the 9-10 digit number itself. */
const APPLE_STORE_ID = /^(?:id\d{6,12}|\d{9,10})$/i;
const AMAZON_ASIN = /^B0[0-9A-Z]{8}$/;
const APPLE_STORE_URL = /^(?:(?:https?|itms-apps|itms):\/\/)?(?:apps|itunes)\.apple\.com\//i;
const GOOGLE_PLAY_URL = /^(?:(?:https?:\/\/)?play\.google\.com\/|market:\/\/)/i;

/**
 * The app's identity against the OS of its user agent, on phones and tablets (TV stores reuse
 * numeric ids): an App Store id or App Store link on Android, an Amazon ASIN or Google Play link on
 * iOS. An iOS request whose bundle is `com.vendor.app` is NOT flagged: exchanges commonly send the
 * iOS bundle id there instead of the App Store id.
 */
export function appContradictsOs(bundle: string, storeUrl: string, ua: UaProfile): boolean {
  if (ua.device !== 'mobile' || ua.tvFamily !== '') return false;
  if (ua.os === 'android')
    return (bundle !== '' && APPLE_STORE_ID.test(bundle)) || (storeUrl !== '' && APPLE_STORE_URL.test(storeUrl));
  if (ua.os === 'ios')
    return (bundle !== '' && AMAZON_ASIN.test(bundle)) || (storeUrl !== '' && GOOGLE_PLAY_URL.test(storeUrl));
  return false;
}
