import { type Clock } from '../../clock.js';
import { randomInt } from 'node:crypto';
import { type IncomingHttpHeaders } from 'node:http';
import { type EdgeResponse } from '../../http/edgeHttp.js';
import { corsOf } from './cors.js';
import { type Dimensions, type HourlyCounters } from '../counters/hourlyCounters.js';
import { billingNotice, deferredWinNotice } from '../auction/notices.js';
import { forwardedErrors } from '../demand/errorPings.js';
import { type DeliveryGate } from '../auction/deliveryGate.js';
import { type Snapshot } from '../snapshot/types.js';
import { COUNTED_ONCE, type ImpressionReplayGuard } from '../tracking/replayGuard.js';
import { type Decision, type TokenSigner } from '../tracking/trackingToken.js';

/**
 * GET /ev?e=<event>&t=<token>[&code=<VAST error>]: impression, the video events, click (302 to the
 * creative's click-through; 204 where our URL is a click tracker: a demand's ad, our wrapper) and
 * error. The answer goes out first (a 1x1 GIF, or the redirect); counting follows. A forged or
 * expired token is refused (403) and nothing is counted. Every event counts once per decision for
 * the token's lifetime (the replay guard): a second click on one ad still gets its redirect, and a
 * replayed error beacon neither counts again nor fires the demand's error trackers again.
 */
const TRACKED = [
  'impression',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'click',
  'error',
] as const;
type Tracked = (typeof TRACKED)[number];
const METRIC: Record<Tracked, string> = {
  impression: 'imps',
  start: 'starts',
  firstQuartile: 'first_quartiles',
  midpoint: 'midpoints',
  thirdQuartile: 'third_quartiles',
  complete: 'completes',
  click: 'clicks',
  error: 'errors',
};
const ONCE = new Set<string>(COUNTED_ONCE);

export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export interface EventDeps {
  /** What an event's time is read from: its hour's counters, the token's expiry, the replay guard's window. */
  clock: Clock;
  signer: TokenSigner;
  replay: ImpressionReplayGuard;
  counters: HourlyCounters;
  pacing: DeliveryGate;
  snapshot: () => Snapshot | null;
  /** Fires the billing notice (burl) a counted impression's URL carries (auction/notices.ts); absent: none fired. */
  notify?: (url: string) => void;
  /** Where a count that fails after the replay guard's shared answer goes (the edge's error log); absent: console.error. */
  onError?: (error: unknown) => void;
}

/**
 * An answer other than the pixel, with its length (writeHead would otherwise make it chunked); a 204 has neither.
 * `origin`: the page's (a player's XHR with credentials), echoed as the other entry points do (../cors.ts).
 */
function send(
  res: EdgeResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
  origin: string | undefined,
): void {
  const length = status === 204 ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  res.writeHead(status, { 'cache-control': 'no-store', ...corsOf(origin), ...length, ...headers });
  res.end(status === 204 ? undefined : body);
}

/**
 * The parameters of an event URL (`/ev?...`). None of our values holds a bare '?' (the token is
 * base64url, '.' and '~'; the rest is percent-encoded), so a '?' after the first one is a cache
 * buster that a stitcher or player appended without looking (`...&t=<token>?cb=123`): read as '&', so
 * the token, or the signature ending the URL, stays whole and the impression still counts.
 */
function eventQuery(url: string): URLSearchParams {
  const q = url.indexOf('?');
  if (q < 0) return new URLSearchParams('');
  const rest = url.slice(q + 1);
  return new URLSearchParams(rest.includes('?') ? rest.replaceAll('?', '&') : rest);
}

/** The pixel's headers, one object for every answer without an Origin (an <img>, a server's ping: writeHead only reads them). */
const PIXEL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'content-type': 'image/gif',
  'content-length': String(PIXEL.length),
});

/** The 1x1 GIF; a page's XHR or fetch with credentials (`origin`) gets its Origin echoed, as `*` would be refused. */
function pixel(res: EdgeResponse, origin?: string): void {
  res.writeHead(200, origin ? { ...PIXEL_HEADERS, ...corsOf(origin) } : PIXEL_HEADERS);
  res.end(PIXEL);
}

/**
 * A request the browser makes ahead of the viewer, to have the answer ready (Chrome's speculation
 * rules and link prefetch: `Sec-Purpose: prefetch` or `prefetch;prerender`, older Chrome's
 * `Purpose: prefetch`; Firefox's `X-Moz: prefetch`; Safari's previews: `X-Purpose: preview`).
 */
function isSpeculative(headers: IncomingHttpHeaders): boolean {
  const purpose = headers['sec-purpose'] ?? headers.purpose ?? headers['x-moz'] ?? headers['x-purpose'];
  return typeof purpose === 'string' && (purpose.startsWith('prefetch') || purpose === 'preview');
}

/**
 * A tracking URL as it arrives (GET or HEAD). A speculative request (a browser prefetching a click
 * URL on hover, a preview) is not the viewer's act: it gets a 503 that is never stored, as browsers
 * then drop what they fetched and request it again when the viewer really clicks, and nothing is
 * counted. Answering it would count a click nobody made, and the real click would be served from
 * the prefetch, uncounted.
 */
export function answerEvent(
  deps: EventDeps,
  url: string,
  method: string | undefined,
  headers: IncomingHttpHeaders,
  res: EdgeResponse,
  now = deps.clock.now(),
): void {
  if (isSpeculative(headers))
    return send(res, 503, { 'content-type': 'text/plain' }, 'speculative request: not served', headers.origin);
  handleEvent(deps, eventQuery(url), res, now, headers.origin, method !== 'HEAD');
}

/**
 * `origin`: the request's Origin header, when a page's script sent it (else an <img> or a server).
 * `count` false: a HEAD (a link checker, a preview): the answer a GET gets (the click's redirect too;
 * Node sends no body to a HEAD), nothing counted and no notice fired.
 */
export function handleEvent(
  deps: EventDeps,
  query: URLSearchParams,
  res: EdgeResponse,
  now = deps.clock.now(),
  origin?: string,
  count = true,
): void {
  const e = query.get('e') ?? '';
  if (!(TRACKED as readonly string[]).includes(e))
    return send(res, 400, { 'content-type': 'text/plain' }, 'e must be one of ' + TRACKED.join(', '), origin);
  const d = deps.signer.verify(query.get('t') ?? '', Math.floor(now / 1000));
  if (!d) return send(res, 403, { 'content-type': 'text/plain' }, 'token refused', origin);
  const event = e as Tracked;
  if (event === 'click') {
    const creative = d.creativeId ? deps.snapshot()?.creatives.get(d.creativeId) : undefined;
    // A wrapper's click URL is a <ClickTracking> beacon (the click-through is the third party's):
    // redirecting it would make the player's beacon load the advertiser's page, as if visited.
    const target =
      creative && !(creative.format === 'video' && creative.videoSource === 'vast')
        ? clickLocation(creative.clickUrl, now)
        : null;
    if (target) send(res, 302, { location: target, 'content-type': 'text/plain' }, '', origin);
    else send(res, 204, {}, '', origin);
  } else pixel(res, origin);
  if (count) record(deps, d, event, query, now);
}

/** The IAB macros a click-through URL may carry, as the player would have filled them (VAST 4.x, "Generic macros"). */
const CLICK_MACROS = /\[(CACHEBUSTING|TIMESTAMP)\]|%5B(CACHEBUSTING|TIMESTAMP)%5D/gi;
/** What an HTTP header value carries as it is (visible ASCII): anything else is percent-encoded. */
const LOCATION_SAFE = /^[\x21-\x7e]*$/;

/**
 * The Location of a click's redirect to the creative's click-through, or null when there is none.
 * The player opens our /ev URL, so the advertiser's URL never passes through its macro filling:
 * [CACHEBUSTING] and [TIMESTAMP] are filled here (a brand's click-through commonly carries them, and
 * would otherwise reach its analytics as the literal text). A URL the console took with a character
 * a header cannot hold (a non-Latin-1 letter makes node refuse the answer, a Latin-1 one goes out as
 * a byte browsers read as UTF-8: a broken address) is sent in its ASCII form, as a browser would
 * request it (WHATWG URL: punycode host, UTF-8 percent-encoded path and query).
 */
function clickLocation(url: string, now: number): string | null {
  if (!url) return null;
  let target = url;
  if (target.includes('[') || target.includes('%5')) {
    target = target.replace(CLICK_MACROS, (_m, a: string | undefined, b: string | undefined) =>
      (a ?? b)!.toUpperCase() === 'CACHEBUSTING'
        ? String(randomInt(10_000_000, 100_000_000))
        : encodeURIComponent(new Date(now).toISOString().replace('Z', '+00:00')),
    );
  }
  if (LOCATION_SAFE.test(target)) return target;
  try {
    const ascii = new URL(target).href;
    if (LOCATION_SAFE.test(ascii)) return ascii;
  } catch {
    // not a URL the WHATWG parser takes: encoded character by character below
  }
  try {
    return target.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  } catch {
    return null; // a lone surrogate: no address to send
  }
}

/** Counts an event of a verified decision (once for the events that count once); the Prebid `/event` counts its impressions here too. */
export function record(deps: EventDeps, d: Decision, event: Tracked, query: URLSearchParams, now: number): void {
  if (d.test) return; // a "Test this tag" decision: answered as usual, counted nowhere, spends no budget
  const first = ONCE.has(event) ? deps.replay.firstTime(`${d.id}:${event}`, now) : true;
  // other processes asked (workers, Redis): the answer is out already, the count waits for theirs
  if (first instanceof Promise)
    void first.then((yes) => yes && count(deps, d, event, query, now)).catch(deps.onError ?? countFailed);
  else if (first) count(deps, d, event, query, now);
}

/** A count that failed after the answer went out, without an onError to report it to. */
export function countFailed(error: unknown): void {
  console.error('edge: counting an event failed', error);
}

function count(deps: EventDeps, d: Decision, event: Tracked, query: URLSearchParams, now: number): void {
  const code = query.get('code') ?? '';
  if (event === 'impression' && deps.notify) {
    // a programmatic bid's win notice when our bid won upstream, and its billing notice: fired once, when we book the impression
    const nurl = query.has('w') ? deferredWinNotice(query, query.get('t') ?? '', deps.signer, now) : null;
    if (nurl) deps.notify(nurl);
    const burl = query.has('b') ? billingNotice(query, query.get('t') ?? '', deps.signer, now) : null;
    if (burl) deps.notify(burl);
  }
  const vastError = event === 'error' ? (/^\d{3}$/.test(code) ? code : '900') : '';
  // a VAST 2.0/3.0 answer's one <Error> is ours: the demand's error trackers it carries hear the code too
  if (event === 'error' && deps.notify && query.has('de'))
    for (const url of forwardedErrors(query, query.get('t') ?? '', deps.signer, vastError)) deps.notify(url);
  const metrics: Record<string, number> = { [METRIC[event]]: 1 };
  // an impression whose answer carried post-bid pixels (edge/postbid/) is a post-bid impression too
  if (event === 'impression' && d.postbid) metrics.postbid_imps = 1;
  if (event === 'impression' && d.revenueCpm + d.costCpm > 0) {
    metrics.revenue = Math.round(d.revenueCpm / 1000);
    metrics.cost = Math.round(d.costCpm / 1000);
    if (d.marketplace) {
      metrics.rev_m = metrics.revenue;
      if (d.dealId) metrics.rev_md = metrics.revenue;
    }
  }
  if (event === 'impression' && (d.campaignId || d.tagId)) {
    // the counted impression: the decision's reservation becomes spend, in whichever process hears it
    // (the admission is rebuilt from the token and the snapshot, as the deciding process made it)
    const snapshot = deps.snapshot();
    // a campaign or tag paused (or over) since the decision is still booked, as it was (snapshot/departed.ts)
    const campaign =
      (d.campaignId && (snapshot?.campaigns.get(d.campaignId) ?? snapshot?.departed?.campaigns.get(d.campaignId))) ||
      null;
    const tag = (d.tagId && (snapshot?.tags.get(d.tagId) ?? snapshot?.departed?.tags.get(d.tagId))) || null;
    const tz = snapshot?.tenants.get(d.tenantId)?.timezone ?? 0;
    // a tag's bid on a supply deal: the deal of the decision's channel (its impression caps)
    const deal =
      (tag && d.dealId && snapshot?.supplyDeals?.get(d.channelId)?.find((x) => x.dealId === d.dealId)) || null;
    deps.pacing.delivery.commit(d.id, deps.pacing.admission(campaign, tag, tz, d.revenueCpm, d.viewer, deal), now);
  }
  deps.counters.add(eventDims(d, vastError), metrics, now);
}

/** The report dimensions an event counts under: the decision's, and the VAST error code of an error event. */
function eventDims(d: Decision, vastError: string): Dimensions {
  return {
    tenant_id: d.tenantId,
    channel_id: d.channelId,
    subpublisher_id: d.subpublisherId,
    tag_id: d.tagId,
    campaign_id: d.campaignId,
    creative_id: d.creativeId,
    advertiser_id: d.advertiserId,
    country: d.country,
    device: d.device,
    os: d.os,
    app_bundle: d.appBundle,
    domain: d.domain,
    integration: d.integration,
    supplier_id: d.supplierId,
    adexchange_id: d.adexchangeId,
    deal_id: d.dealId,
    partner: d.partner,
    marketplace_name: d.marketplace,
    vast_error: vastError,
    arm: d.arm,
  };
}
