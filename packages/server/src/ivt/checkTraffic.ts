import {
  appContradictsOs,
  deviceIdVerdict,
  deviceTypeContradicts,
  isPlausibleBundle,
  isPlausibleStoreUrl,
  statedOsFamily,
  uaOsFamily,
} from './appDeviceRules.js';
import { INVALID, IPV4, ip, isNonViewerV6, isReservedV4, parseViewerIp } from './ipAddress.js';
import { CLEAN, type IvtReason, type TrafficVerdict, verdictOf } from './reasons.js';
import { DEFAULT_RATE_LIMIT, type RateLimit, RequestRateCounter } from './requestRate.js';
import { shippedTrafficLists, type TrafficLists } from './trafficLists.js';
import { hash30 } from './userAgentProfile.js';

/**
 * The pre-bid invalid-traffic check: what one ad request says about itself, judged before any
 * demand is asked. Pure apart from the per-device request counter it is given, allocation-free on
 * the way through, and run on every request (docs/traffic-quality.md has the rules and their order).
 */
export interface TrafficFacts {
  /** How the request came: a VAST tag call, or an OpenRTB bid request (a supplier's, Prebid Server's). */
  origin: 'vast' | 'openrtb';
  /** The channel or supplier it came through: rates are counted per source, as one device reaches us through several exchanges. */
  source: string;
  /** The viewer's address as the request states it (macro, device.ip / ipv6), else the connection's; '' when none. */
  ip: string;
  /** `ip` is the connection's own address, not one the request stated. */
  ipFromConnection: boolean;
  /** The viewer's user agent as stated, else the connection's User-Agent header. */
  ua: string;
  /** Where the ad shows: an app ('app'), a TV app ('ctv'), a web page ('web'), '' when unknown. */
  environment: 'app' | 'ctv' | 'web' | '';
  bundle: string;
  storeUrl: string;
  /** The advertising id (IFA) as stated, '' when none. */
  deviceId: string;
  /** OpenRTB 2.6 `device.ext.ifa_type` when stated, '' otherwise. */
  deviceIdType: string;
  /** Limit ad tracking as stated; null when the request did not say. */
  lmt: boolean | null;
  /**
   * iOS App Tracking Transparency status as stated (OpenRTB `device.ext.atts`: 0 not determined,
   * 1 restricted, 2 denied, 3 authorized); null or absent when not stated (every VAST tag call).
   */
  atts?: number | null;
  /** OpenRTB device type as stated (1..7), 0 when not stated. */
  deviceType: number;
  /** The OS as stated (`device.os`), '' when not stated. */
  os: string;
  /** Request time, ms since the epoch. */
  now: number;
}

export interface TrafficCheckState {
  lists: TrafficLists;
  /** Requests per device; null leaves the rate rule out (as does a limit of 0 for its kind of key). */
  rates: RequestRateCounter | null;
}

/** The state an edge process keeps for the life of its lists: the lists, and a rate counter unless `rate` is false. */
export function createTrafficCheckState(
  options: { lists?: TrafficLists; rate?: Partial<RateLimit> | false } = {},
): TrafficCheckState {
  return {
    lists: options.lists ?? shippedTrafficLists(),
    rates: options.rate === false ? null : new RequestRateCounter({ ...DEFAULT_RATE_LIMIT, ...options.rate }),
  };
}

let stateless: TrafficCheckState | null = null;

/**
 * The IP + user agent rate of a reduced user agent (userAgentProfile.ts `reduced`) may be this many
 * times the limit: the string names a platform, not a device, so a carrier's NAT address with many
 * Android phones on Chrome sends it as one viewer would.
 */
const REDUCED_UA_FACTOR = 4;

/** Mixes an address and a user agent hash into a small-integer map key. */
function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 13), 0x27d4eb2f);
  return (h ^ (h >>> 16)) & 0x3fffffff;
}

/**
 * Flags a request as invalid traffic with the first reason that applies, or answers CLEAN. Without
 * a state the shipped lists apply and the rate rule is left out (it needs the counter).
 */
export function checkTraffic(facts: TrafficFacts, state?: TrafficCheckState): TrafficVerdict {
  const s = state ?? (stateless ??= { lists: shippedTrafficLists(), rates: null });
  const ua = facts.ua;
  if (ua.length === 0 || ua.trim().length === 0) return verdictOf('empty_user_agent');
  const profile = s.lists.ua.profile(ua);

  // the address, parsed once into `ip` (module scratch) for every rule below
  let family = INVALID;
  if (facts.ip !== '') {
    family = parseViewerIp(facts.ip);
    if (family === INVALID) return verdictOf('malformed_ip');
    if (family === IPV4 ? isReservedV4(ip.v4) : isNonViewerV6()) {
      if (!facts.ipFromConnection) return verdictOf('private_ip');
      // a private connection address is our own network (a load balancer, a test) that every
      // viewer shares: it says nothing about the viewer, so no rule below reads it
      family = INVALID;
    }
  }
  const v4 = ip.v4;
  const hi = ip.hi;
  const lo = ip.lo;

  // the rate counts every request with a usable address or id, flagged or not, so that it reflects
  // what the device really sends
  let rateReason: IvtReason | null = null;
  const inApp = facts.environment === 'app' || facts.environment === 'ctv' || facts.bundle !== '';
  const idVerdict = facts.deviceId === '' ? 'none' : deviceIdVerdict(facts.deviceId, facts.deviceIdType);
  if (s.rates) {
    const sourceHash = hash30(facts.source);
    if (idVerdict === 'ok') {
      if (
        s.rates.limit.maxPerDevice > 0 &&
        s.rates.exceeds(hash30(facts.deviceId, sourceHash), facts.now, s.rates.limit.maxPerDevice)
      )
        rateReason = 'device_rate';
    } else if (family !== INVALID) {
      // IPv6 by its /64: a device's privacy addresses change within it
      const address = family === IPV4 ? v4 : hi ^ Math.imul(lo, 0x9e3779b1);
      // a reduced user agent is shared by every device of its platform behind a carrier's NAT address
      const max = profile.reduced ? s.rates.limit.maxPerIpUa * REDUCED_UA_FACTOR : s.rates.limit.maxPerIpUa;
      if (max > 0 && s.rates.exceeds(mix(address, profile.hash, sourceHash), facts.now, max)) rateReason = 'ip_ua_rate';
    }
  }

  if (profile.bot !== '') return verdictOf(profile.bot);
  if (profile.shapeOnly && !inApp) return verdictOf('bot_user_agent');

  if (family !== INVALID && (family === IPV4 ? s.lists.datacenter.hasV4(v4) : s.lists.datacenter.hasV6(hi, lo))) {
    const exempt = family === IPV4 ? s.lists.exempt.hasV4(v4) : s.lists.exempt.hasV6(hi, lo);
    if (!exempt) return verdictOf('datacenter_ip');
  }

  if (idVerdict === 'invalid') return verdictOf('invalid_device_id');
  // All zeros is what a device sends without a usable ad id, whatever lmt says: iOS 14.5+ before the
  // ATT prompt (Prebid Server then writes lmt=0), Android apps without the AD_ID permission. Only an
  // Apple device that states tracking as authorized (atts=3, when the IDFA is always there) contradicts it.
  if (
    idVerdict === 'zero' &&
    facts.atts === 3 &&
    facts.lmt !== true &&
    (uaOsFamily(profile) === 'apple' || statedOsFamily(facts.os) === 'apple')
  ) {
    return verdictOf('zero_device_id');
  }

  if (facts.bundle !== '') {
    if (!isPlausibleBundle(facts.bundle)) return verdictOf('invalid_bundle');
  } else if (facts.environment === 'app' || facts.environment === 'ctv') return verdictOf('app_without_bundle');
  if (facts.storeUrl !== '' && !isPlausibleStoreUrl(facts.storeUrl)) return verdictOf('invalid_store_url');

  if (facts.deviceType !== 0 && deviceTypeContradicts(facts.deviceType, profile))
    return verdictOf('ua_device_mismatch');
  if (facts.os !== '') {
    const stated = statedOsFamily(facts.os);
    const parsed = uaOsFamily(profile);
    if (stated !== '' && parsed !== '' && stated !== parsed) return verdictOf('ua_os_mismatch');
  }
  if ((facts.bundle !== '' || facts.storeUrl !== '') && appContradictsOs(facts.bundle, facts.storeUrl, profile))
    return verdictOf('app_os_mismatch');

  return rateReason ? verdictOf(rateReason) : CLEAN;
}
