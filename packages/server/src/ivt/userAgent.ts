import UAParser from 'ua-parser-js';

/**
 * Device type, operating system, browser and smart-TV family of a user agent, as the reference
 * data's ids (packages/shared reference/platforms.ts), so targeting matches on exactly those codes.
 * ua-parser-js 1.x (MIT) reads the string; results are cached because players repeat a handful of
 * user agents all day, and the parse is the most expensive step of a request.
 */
export interface Platform {
  /** mobile | desktop | smarttv | '' */
  device: string;
  /** windows | ios | android | roku | tizen | macos | linux | webos | tvos | fireos | '' */
  os: string;
  browser: string;
  tvFamily: string;
}

const OS: Record<string, string> = {
  windows: 'windows',
  ios: 'ios',
  android: 'android',
  roku: 'roku',
  tizen: 'tizen',
  'mac os': 'macos',
  macos: 'macos',
  linux: 'linux',
  ubuntu: 'linux',
  debian: 'linux',
  fedora: 'linux',
  webos: 'webos',
  netcast: 'webos',
  tvos: 'tvos',
  'fire os': 'fireos',
  chromecast: 'android',
  playstation: '',
  xbox: 'windows',
};

const BROWSER: Record<string, string> = {
  chrome: 'chrome',
  'chrome headless': 'chrome',
  'mobile chrome': 'chrome',
  chromium: 'chrome',
  'chrome webview': 'webview',
  safari: 'safari',
  'mobile safari': 'safari',
  firefox: 'firefox',
  'mobile firefox': 'firefox',
  edge: 'edge',
  opera: 'opera',
  'opera mobi': 'opera',
  'samsung browser': 'samsung',
  webview: 'webview',
  'android browser': 'webview',
  ucbrowser: 'ucbrowser',
  yandex: 'yandex',
  silk: 'silk',
  ie: 'ie',
  iemobile: 'ie',
};

/** TV families by a marker in the user agent: ua-parser-js does not name most TV platforms. */
const TV_MARKERS: [RegExp, string][] = [
  [/roku/i, 'roku'],
  [/tizen/i, 'tizen'],
  [/web0s|webos|netcast/i, 'webos'],
  [/aft[a-z0-9]*\b|fire ?tv/i, 'firetv'],
  [/apple ?tv|tvos/i, 'appletv'],
  [/android ?tv|google ?tv|bravia|\bmibox\b/i, 'androidtv'],
  [/vizio|smartcast/i, 'vizio'],
  [/vidaa|hisense/i, 'vidaa'],
  [/xbox/i, 'xbox'],
  [/playstation/i, 'playstation'],
  [/crkey|chromecast/i, 'chromecast'],
];

const cache = new Map<string, Platform>();
const CACHE_LIMIT = 10_000;
const UNKNOWN_PLATFORM: Platform = Object.freeze({ device: '', os: '', browser: '', tvFamily: '' });

export function platformOf(ua: string): Platform {
  if (!ua) return UNKNOWN_PLATFORM;
  const hit = cache.get(ua);
  if (hit) return hit;
  const parsed = new UAParser(ua).getResult();
  let tvFamily = '';
  for (const [marker, family] of TV_MARKERS) {
    if (marker.test(ua)) {
      tvFamily = family;
      break;
    }
  }
  const osName = (parsed.os.name ?? '').toLowerCase();
  let os = OS[osName] ?? '';
  if (!os && tvFamily === 'roku') os = 'roku';
  if (tvFamily === 'firetv') os = 'fireos';
  if (tvFamily === 'appletv') os = 'tvos';
  const type = parsed.device.type ?? '';
  const device =
    tvFamily || type === 'smarttv' || type === 'console'
      ? 'smarttv'
      : type === 'mobile' || type === 'tablet' || type === 'wearable'
        ? 'mobile'
        : os === 'ios' || os === 'android'
          ? 'mobile'
          : os || parsed.browser.name
            ? 'desktop'
            : '';
  const platform: Platform = Object.freeze({
    device,
    os,
    browser: device === 'smarttv' ? '' : (BROWSER[(parsed.browser.name ?? '').toLowerCase()] ?? ''),
    tvFamily,
  });
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(ua, platform);
  return platform;
}

/** OpenRTB device types the player may state (`device_type`), mapped to our device ids. */
export function deviceOfOrtbType(type: number): string {
  if (type === 1 || type === 4 || type === 5) return 'mobile';
  if (type === 2) return 'desktop';
  if (type === 3 || type === 7) return 'smarttv';
  return '';
}
