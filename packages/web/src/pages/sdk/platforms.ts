import { SDK_PLATFORMS } from '@adplane/shared';

export const SDK_PLATFORM_NAMES: Record<(typeof SDK_PLATFORMS)[number], string> = {
  ios: 'iOS',
  android: 'Android',
  roku: 'Roku',
  tvos: 'tvOS (Apple TV)',
  androidtv: 'Android TV',
  firetv: 'Fire TV',
  tizen: 'Tizen (Samsung)',
  webos: 'webOS (LG)',
};

export const SDK_PLATFORM_OPTIONS = SDK_PLATFORMS.map((p) => ({ value: p, label: SDK_PLATFORM_NAMES[p] }));
