import { DEFAULT_RATE_LIMIT, type RateLimit } from './requestRate.js';
import { type TrafficListFiles, trafficListFilesFromEnv } from './trafficLists.js';

/**
 * The IVT check's settings, read from the environment once at start, with problems reported in
 * the shape settings.ts reports its own (one per bad variable), so that it can fold them in:
 *
 *   ADPLANE_IVT_RANGES_FILE      CIDR file extending (or, with @replace, replacing) the datacenter ranges
 *   ADPLANE_IVT_UA_FILE          user-agent pattern file extending (or replacing) the shipped patterns
 *   ADPLANE_IVT_RATE_WINDOW_S    the rate rule's window in seconds (default 10)
 *   ADPLANE_IVT_MAX_PER_DEVICE   requests one device id may send per window and source (default 30; 0: off)
 *   ADPLANE_IVT_MAX_PER_IP_UA    the same for IP + user agent when there is no device id (default 60; 0: off)
 */
export interface IvtSettings {
  files: TrafficListFiles;
  rate: RateLimit;
}

export interface IvtSettingProblem {
  variable: string;
  message: string;
}

function wholeNumber(
  env: NodeJS.ProcessEnv,
  variable: string,
  fallback: number,
  min: number,
  max: number,
  problems: IvtSettingProblem[],
): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push({ variable, message: `must be a whole number from ${min} to ${max}` });
    return fallback;
  }
  return n;
}

export function readIvtSettings(env: NodeJS.ProcessEnv = process.env): {
  settings: IvtSettings;
  problems: IvtSettingProblem[];
} {
  const problems: IvtSettingProblem[] = [];
  const windowS = wholeNumber(env, 'ADPLANE_IVT_RATE_WINDOW_S', DEFAULT_RATE_LIMIT.windowMs / 1000, 1, 3600, problems);
  const rate: RateLimit = {
    ...DEFAULT_RATE_LIMIT,
    windowMs: windowS * 1000,
    maxPerDevice: wholeNumber(
      env,
      'ADPLANE_IVT_MAX_PER_DEVICE',
      DEFAULT_RATE_LIMIT.maxPerDevice,
      0,
      1_000_000,
      problems,
    ),
    maxPerIpUa: wholeNumber(env, 'ADPLANE_IVT_MAX_PER_IP_UA', DEFAULT_RATE_LIMIT.maxPerIpUa, 0, 1_000_000, problems),
  };
  return { settings: { files: trafficListFilesFromEnv(env), rate }, problems };
}
