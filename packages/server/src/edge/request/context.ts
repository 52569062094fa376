import { type BidRequest, type Imp } from '@adplane/shared';
import { categoriesOfMacro } from './contentCategories.js';
import { type Geo, type GeoLookup, geoipLiteLookup, publicAddress } from './geo.js';
import { keyValuesOfQuery } from './keyValues.js';
import { type RawQuery, readTagQuery, type TagQuery } from './macros.js';
import { deviceOfOrtbType, type Platform, platformOf } from '../../ivt/userAgent.js';
import { playerSizeOf } from './playerSize.js';
import { type DemandHops } from './demandHops.js';

/**
 * Everything the decision needs to know about one ad request, built once at the door: the tag's
 * macros, then the connection's address and User-Agent header where the macros are absent, geo from
 * the address, platform from the user agent and the player size bucket of the targeting contract.
 */
export interface RequestContext {
  query: TagQuery;
  /** The viewer's address (macro first, then the connection), '' when neither is usable. */
  ip: string;
  ua: string;
  geo: Geo;
  platform: Platform;
  /** small | medium | large | xlarge, '' when the player did not say its width. */
  playerSize: string;
  /** app bundle when in an app, else the site's domain: what app and publisher lists match. */
  appBundle: string;
  domain: string;
  /**
   * The request's IAB 1.0 content categories (request/contentCategories.ts): the tag's `content_cat`
   * split on commas, or a bid request's site or app and content categories; known codes only, each
   * once, a shared empty list when none. What category targeting matches.
   */
  iabCategories: readonly string[];
  /**
   * The request's key-values, `key=value` in lower case, each once (request/keyValues.ts): a tag's
   * custom parameters, a bid request's first-party data. What key-value targeting matches.
   * Absent or empty: none.
   */
  keyValues?: readonly string[];
  /** Request time, ms since the epoch. */
  now: number;
  /**
   * adplane's own id for the viewer's browser, '' when none: the `uids` cookie's (Prebid Server's
   * user sync: doors/prebidServer/userSync.ts) or, on a bid request, the buyer uid it carries for adplane. A
   * frequency cap counts it when there is no device id (delivery/frequency.ts viewerKey).
   */
  userId: string;
  /**
   * Demand partners' ids for the viewer, by the partner's bidder code (partnerSyncBidder: an RTB
   * demand tag's): the `uids` cookie's, or a Prebid request's `user.ext.prebid.buyeruids`. A tag's
   * bid request carries its own as `user.buyeruid` (demand/programmaticSources.ts).
   */
  partnerUids: Readonly<Record<string, string>>;
  /**
   * When the request came as OpenRTB (a supplier's bid request, a Prebid Server auction): the
   * request and the impression being decided, for outbound requests that forward what the
   * inbound one carried (site or app, device, user, regs, source.schain). Absent on a VAST tag call.
   */
  ortb?: { request: BidRequest; imp: Imp };
  /** A slot of an ad pod: the pod, and what the slots before it took (decision/adPod.ts). Absent for a single ad. */
  pod?: PodSoFar;
  /** A request one of the edge's own demand calls made: its hops (request/demandHops.ts). Absent for anyone else's. */
  hops?: DemandHops;
}

/**
 * What a pod's earlier slots were filled with, so that a later slot repeats none of it: not the
 * same campaign, nor the same advertiser (ours by id, a demand's by its <Advertiser> domain), nor
 * the same video twice (competitive separation within an ad break, as CTV players expect).
 */
export interface PodSoFar {
  /** The pod's id in outbound bid requests (OpenRTB 2.6 `video.podid`). */
  id: string;
  /** The slot being decided (1 first), and the most the pod may have (its last possible slot). */
  sequence: number;
  slots: number;
  campaigns: Set<number>;
  advertisers: Set<number>;
  domains: string[];
  media: Set<string>;
}

export interface ConnectionFacts {
  remoteAddress: string;
  userAgent: string;
  /** adplane's id in the request's `uids` cookie ('' or absent: none; doors/prebidServer/userSync.ts cookieIds). */
  userId?: string;
  /** The demand partners' live ids in that cookie, by their code (partnerSyncBidder; absent: none). */
  partnerUids?: Readonly<Record<string, string>>;
  /** The hops of a request one of the edge's own demand calls made (request/demandHops.ts); absent: anyone else's. */
  hops?: DemandHops | null;
}

/** No partner ids. */
export const NO_PARTNER_UIDS: Readonly<Record<string, string>> = Object.freeze({});

export function buildRequestContext(
  raw: RawQuery,
  conn: ConnectionFacts,
  now: number,
  geoLookup: GeoLookup = geoipLiteLookup,
): RequestContext {
  const query = readTagQuery(raw);
  const ip = publicAddress(query.ip) || publicAddress(conn.remoteAddress);
  const ua = query.ua || conn.userAgent.slice(0, 1024);
  let platform = platformOf(ua);
  const stated = deviceOfOrtbType(query.deviceType);
  if (stated && stated !== platform.device) platform = { ...platform, device: stated };
  return {
    query,
    ip,
    ua,
    geo: geoLookup(ip),
    platform,
    playerSize: query.width > 0 ? playerSizeOf(query.width) : '',
    appBundle: query.appBundle,
    domain: query.domain || (query.pageUrl ? hostFromUrl(query.pageUrl) : ''),
    iabCategories: categoriesOfMacro(query.contentCategory),
    keyValues: keyValuesOfQuery(raw),
    now,
    userId: conn.userId ?? '',
    partnerUids: conn.partnerUids ?? NO_PARTNER_UIDS,
    // (always present, undefined for most requests: one object shape for every context)
    hops: conn.hops ?? undefined,
  };
}

function hostFromUrl(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '').toLowerCase();
  } catch {
    return '';
  }
}
