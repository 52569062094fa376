import { type EdgeRequest, type EdgeResponse } from '../../http/edgeHttp.js';
import { clientAddress, type ProxyTrust } from '../../http/clientAddress.js';
import { VAST_VERSION_PARAM } from '@adplane/shared';
import { type DecideOptions, type DecisionOutcome, type EdgeDeps } from '../decision/adDecision.js';
import { buildRequestContext, type ConnectionFacts, NO_PARTNER_UIDS } from '../request/context.js';
import { cookieIds } from './prebidServer/userSync.js';
import { type GeoLookup } from '../request/geo.js';
import { type RawQuery } from '../request/macros.js';
import { emptyDocument } from '../decision/adResponse.js';
import { decideVastAds } from '../decision/adPod.js';
import { type SnapChannel } from '../snapshot/types.js';
import { DEFAULT_VAST_VERSION, VAST_VERSIONS, type VastVersion } from '../vast/vastVersion.js';
import { DEMAND_LOOP, type DemandHops, NOFILL_HEADER } from '../request/demandHops.js';

/**
 * GET /vast/<channel uid> on the raw node request: no body parsing, no JSON; the answer is the XML
 * string with CORS headers for players on any site. Anything unexpected still answers an empty VAST.
 */
export interface VastRequestDeps extends EdgeDeps {
  geo: GeoLookup;
  /** Read the client address from X-Forwarded-For (behind a trusted load balancer). */
  /** Whose X-Forwarded-For is believed (ADPLANE_TRUST_PROXY: http/clientAddress.ts). */
  trustProxy: ProxyTrust;
  onError: (error: unknown) => void;
}

function queryObject(search: URLSearchParams): RawQuery {
  const out: RawQuery = {};
  for (const [k, v] of search) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * Who a request is for. A player calls for itself: its connection (behind trusted proxies, the
 * address they name: http/clientAddress.ts) and its User-Agent. A server calling on a device's behalf (server-side ad
 * insertion, a CTV stitcher) names the device in `X-Device-IP` and `X-Device-User-Agent` (VAST 4.1+
 * section 1.1.3), which then stand for the viewer: otherwise the stitcher's own datacenter address
 * would decide geo and read as invalid traffic. The tag's `ip` and `ua` macros still come first.
 */
export function connectionFacts(req: EdgeRequest, trustProxy: ProxyTrust, now: number): ConnectionFacts {
  // one address by the spec; a list (a proxy appended its own) is read from its first
  const named = req.headers['x-device-ip'];
  const deviceIp = typeof named === 'string' ? named.split(',')[0]!.trim() : '';
  const deviceUa = req.headers['x-device-user-agent'];
  const cookie = req.headers.cookie;
  // a browser's adplane id and its demand partners' (Prebid Server's user sync: doors/prebidServer/userSync.ts); a player without cookies sends none
  const ids = cookie ? cookieIds(cookie, now) : null;
  return {
    remoteAddress: deviceIp || clientAddress(req, trustProxy),
    userAgent: typeof deviceUa === 'string' && deviceUa ? deviceUa : (req.headers['user-agent'] ?? ''),
    userId: ids ? ids.adplane : '',
    partnerUids: ids ? ids.partners : NO_PARTNER_UIDS,
  };
}

/**
 * The channel's decision for a VAST request (at once when nothing was called: adDecision.ts
 * runDecision), null when it failed (logged); `options.trace` false when nobody reads the trace
 * (the plain entry).
 */
export function decideVast(
  deps: VastRequestDeps,
  req: EdgeRequest,
  uid: string,
  search: URLSearchParams,
  options?: DecideOptions,
  hops: DemandHops | null | undefined = deps.loops?.inbound(req.headers),
): DecisionOutcome | null | Promise<DecisionOutcome | null> {
  try {
    const now = deps.clock.now();
    const conn = connectionFacts(req, deps.trustProxy, now);
    // a request one of the edge's own demand calls made (its hop marker): the decision refuses it beyond the limit
    if (hops) conn.hops = hops;
    const ctx = buildRequestContext(queryObject(search), conn, now, deps.geo);
    const asked = search.get(VAST_VERSION_PARAM);
    const channel = asked && !options?.channel ? inVersion(deps, uid, asked) : null;
    const decideOptions = channel ? { ...options, channel } : options;
    // an ad break asked for (pod_max_ads > 1): a pod of ads, each slot decided in turn (decision/adPod.ts)
    const outcome = decideVastAds(deps, uid, ctx, decideOptions);
    return outcome instanceof Promise ? outcome.catch((error: unknown) => failed(deps, error)) : outcome;
  } catch (error) {
    return failed(deps, error);
  }
}

function failed(deps: VastRequestDeps, error: unknown): null {
  deps.onError(error);
  return null;
}

/** Each channel in the VAST versions tags asked for (`vast_version`), kept with the snapshot's channel object. */
const versioned = new WeakMap<SnapChannel, Map<VastVersion, SnapChannel>>();

/**
 * The channel answering in the VAST version a tag asks for, when it is one of ours and not the
 * channel's own (null: the channel as set up, or no such channel: the decision says why).
 */
function inVersion(deps: EdgeDeps, uid: string, asked: string): SnapChannel | null {
  const version = (VAST_VERSIONS as readonly string[]).includes(asked) ? (asked as VastVersion) : null;
  const channel = version ? deps.snapshot()?.channelsByUid.get(uid) : undefined;
  if (!version || !channel || channel.vastVersion === version) return null;
  let byVersion = versioned.get(channel);
  if (!byVersion) versioned.set(channel, (byVersion = new Map()));
  let copy = byVersion.get(version);
  if (!copy) byVersion.set(version, (copy = { ...channel, vastVersion: version }));
  return copy;
}

/** The plain VAST entry reads no trace. */
const UNTRACED: DecideOptions = Object.freeze({ trace: false });

/** Answers a VAST request: in the same turn when its decision is known at once (then undefined), else when it is (the promise). */
export function handleVast(
  deps: VastRequestDeps,
  req: EdgeRequest,
  res: EdgeResponse,
  uid: string,
  search: URLSearchParams,
): Promise<void> | undefined {
  const hops = deps.loops?.inbound(req.headers);
  const outcome = decideVast(deps, req, uid, search, UNTRACED, hops);
  if (outcome instanceof Promise) return outcome.then((done) => answerVast(deps, req, res, done, hops));
  answerVast(deps, req, res, outcome, hops);
  return undefined;
}

function answerVast(
  deps: VastRequestDeps,
  req: EdgeRequest,
  res: EdgeResponse,
  outcome: DecisionOutcome | null,
  hops?: DemandHops | null,
): void {
  if (req.socket?.destroyed) {
    // the player hung up while demand answered: no ad will play, so what delivery control reserved
    // for this decision goes back now instead of holding the budget for the reservation's lifetime
    if (outcome?.podDecisionIds) for (const id of outcome.podDecisionIds) deps.pacing.delivery.release(id);
    else if (outcome?.decisionId) deps.pacing.delivery.release(outcome.decisionId);
    return;
  }
  const status = outcome?.status ?? 200;
  const xml = outcome?.xml ?? emptyDocument(DEFAULT_VAST_VERSION, deps.origin, null);
  const headers = vastHeaders(req, Buffer.byteLength(xml));
  // our own demand call's no-fill that a demand loop caused: its caller's trace names the loop
  if (hops?.looped && !outcome?.decisionId) headers[NOFILL_HEADER] = DEMAND_LOOP;
  res.writeHead(status, headers);
  res.end(xml);
}

/** The answer's headers as one literal (corsHeaders' two cases, without a spread per request). */
function vastHeaders(req: EdgeRequest, length: number): Record<string, string | number> {
  const origin = req.headers.origin;
  return origin
    ? {
        'content-type': 'application/xml; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': length,
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
      }
    : {
        'content-type': 'application/xml; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': length,
        'access-control-allow-origin': '*',
      };
}
