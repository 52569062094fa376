/**
 * A user agent typical of each operating system and device type, for "Test this tag" when the person
 * picks a platform but types no user agent: a demand tag called server-side then receives a user
 * agent that agrees with the chosen platform (partners check it), not the console's own browser.
 * Each string reads back as its platform through ivt/userAgent.ts (sampleUserAgents.test.ts).
 */
export const SAMPLE_UA_BY_OS: Readonly<Record<string, string>> = {
  windows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  macos:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  linux: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  ios: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  roku: 'Roku/DVP-13.0 (13.0.0.4177-46)',
  tizen:
    'Mozilla/5.0 (SMART-TV; LINUX; Tizen 7.0) AppleWebKit/537.36 (KHTML, like Gecko) 94.0.4606.31/7.0 TV Safari/537.36',
  webos:
    'Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 Safari/537.36 WebAppManager',
  tvos: 'AppleCoreMedia/1.0.0.21L569 (Apple TV; U; CPU OS 17_4 like Mac OS X; en_us)',
  fireos:
    'Mozilla/5.0 (Linux; Android 9; AFTKA Build/PS7624.3337N; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.230 Mobile Safari/537.36',
};

const OS_OF_DEVICE: Readonly<Record<string, string>> = { desktop: 'windows', mobile: 'ios', smarttv: 'roku' };

/** The sample user agent for a chosen OS, else for a chosen device type; '' when neither is chosen. */
export function sampleUserAgent(os: string | undefined, device: string | undefined): string {
  if (os && SAMPLE_UA_BY_OS[os]) return SAMPLE_UA_BY_OS[os];
  const byDevice = device ? OS_OF_DEVICE[device] : undefined;
  return byDevice ? SAMPLE_UA_BY_OS[byDevice]! : '';
}
