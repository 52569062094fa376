import { PREBID_EVENT_PATH } from '@adplane/shared';
import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { corsHeaders } from '../cors.js';
import { type EventDeps, PIXEL, record } from '../trackingEvents.js';

/**
 * Prebid Server's event notifications (docs/prebid.md, "Events"): with `ext.prebid.events` in the
 * request, each banner bid carries `ext.prebid.events.win` and `.imp`, URLs to `GET /event` in
 * Prebid Server's form (endpoints/events/event.go): `t` (win or imp), `b` (the bid's
 * `ext.prebid.bidid`), `a` (the account), then `bidder`, `int` (the request's
 * `ext.prebid.integration`) and `ts` (the auction's timestamp). Prebid.js fires the win URL when
 * the bid is rendered (its eventtrackers: `markWinningBid`); a creative or an SDK may fire the imp one.
 *
 * What an event counts. The bid's markup already carries adplane's own impression tracker (/ev,
 * doors/trackingEvents.ts), which counts the impression, books revenue and cost and fires the
 * demand's billing and deferred win notices. So the event URLs also carry the decision's signed
 * tracking token (`tk`, the one /ev trusts), and, for programmatic demand, the notices its
 * impression URL carries (`n`, each bound to the token by its own signature):
 * - `t=imp` is that decision's impression under the same replay guard: whichever of /ev and /event
 *   comes first counts it (and fires the notices), the other is a replay and counts nothing;
 * - `t=win` (the page's ad server chose the bid) counts nothing in the reports: the impression is
 *   what adplane books. It is answered and counted in /metrics only;
 * - a forged, damaged or expired token is refused (403) and nothing is counted; `x=0` (analytics
 *   off) answers 204 at once, as Prebid Server does, and counts nothing either.
 *
 * Video bids get no `ext.prebid.events`, as Prebid Server gives none (exchange/events.go
 * makeBidExtEvents: banners only). Their VAST gets the impression event instead, as Prebid Server
 * writes it into a video bid's VAST when events are on (exchange/events.go modifyBidVAST,
 * endpoints/events/vtrack.go ModifyVastXmlString): one more `<Impression>`, after the first, whose
 * URL is the `t=imp` one with `f=b` (vastEventUrl; vastImpressions.ts). The player fires it beside our
 * own tracker; the replay guard counts the impression once.
 */

export interface EventUrlParts {
  origin: string;
  bidId: string;
  account: string;
  bidder: string;
  integration: string;
  timestamp: number;
  token: string;
  /** The impression URL's signed notices (`b=…&bs=…&w=…&ws=…`), '' when none. */
  notices: string;
}

/**
 * An event URL as Prebid Server writes one (endpoints/events/event.go EventRequestToUrl): `t`, `b`,
 * `a`, then its optional parameters in Go's url.Values order (bidder, f, int, ts), with adplane's
 * token and notices last.
 */
function eventUrl(p: EventUrlParts, t: 'win' | 'imp', format: '' | 'b' = ''): string {
  const optional = new URLSearchParams({ bidder: p.bidder });
  if (format) optional.set('f', format);
  if (p.integration) optional.set('int', p.integration);
  if (p.timestamp > 0) optional.set('ts', String(p.timestamp));
  optional.set('tk', p.token);
  if (p.notices) optional.set('n', p.notices);
  return `${p.origin}${PREBID_EVENT_PATH}?t=${t}&b=${encodeURIComponent(p.bidId)}&a=${encodeURIComponent(p.account)}&${optional}`;
}

/** The win and imp URLs of a banner bid, as Prebid Server writes them. */
export function eventUrls(p: EventUrlParts): { win: string; imp: string } {
  return { win: eventUrl(p, 'win'), imp: eventUrl(p, 'imp') };
}

/** A video bid's impression event, as Prebid Server puts it in the VAST (vtrack.go GetVastUrlTracking: `t=imp`, `f=b`, answered 204). */
export function vastEventUrl(p: EventUrlParts): string {
  return eventUrl(p, 'imp', 'b');
}

/** Prebid Server's limit on `int`. */
export const INTEGRATION = /^[\p{L}\p{N}_-]{0,64}$/u;

export type EventOutcome = 'counted' | 'acknowledged' | 'disabled' | 'refused' | 'invalid';

function plain(req: EdgeRequest, res: EdgeResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
    ...corsHeaders(req),
  });
  res.end(body);
}

/**
 * GET /event: checked as Prebid Server checks it (400 with a line per bad parameter, 401 without
 * `a`), then adplane's token; answered with a 1x1 GIF for `f=i`, else 204 No Content. Never throws.
 */
export function handlePrebidEvent(
  deps: EventDeps,
  req: EdgeRequest,
  res: EdgeResponse,
  query: URLSearchParams,
  now = deps.clock.now(),
): EventOutcome {
  const errors: string[] = [];
  const t = query.get('t') ?? '';
  if (!t) errors.push("parameter 't' is required");
  else if (t !== 'win' && t !== 'imp') errors.push(`unknown type: '${t.slice(0, 32)}' (t must be win or imp)`);
  if (query.get('vtype')) errors.push("parameter 'vtype' is only required for t=vast");
  if (!query.get('b')) errors.push("parameter 'b' is required");
  const ts = query.get('ts') ?? '';
  if (ts && !/^-?\d{1,19}$/.test(ts)) errors.push(`error parsing timestamp '${ts.slice(0, 32)}' (parameter 'ts')`);
  const f = query.get('f') ?? '';
  if (f && f !== 'b' && f !== 'i') errors.push(`unknown format: '${f.slice(0, 32)}' (parameter 'f' must be b or i)`);
  const x = query.get('x') ?? '';
  if (x && x !== '1' && x !== '0') errors.push(`unknown analytics: '${x.slice(0, 32)}' (parameter 'x' must be 1 or 0)`);
  const integration = query.get('int') ?? '';
  if (!INTEGRATION.test(integration))
    errors.push("parameter 'int': an integration type of at most 64 letters, digits, '-' or '_'");
  if (errors.length) {
    plain(req, res, 400, errors.map((e) => `invalid request: ${e}\n`).join(''));
    return 'invalid';
  }
  if (!query.get('a')) {
    plain(req, res, 401, "Account 'a' is required query parameter and can't be empty\n");
    return 'invalid';
  }
  if (x === '0') {
    noContent(req, res);
    return 'disabled';
  }
  const token = query.get('tk') ?? '';
  if (!token) {
    plain(
      req,
      res,
      400,
      "invalid request: parameter 'tk' is required (adplane's event URLs carry the bid's signed token)\n",
    );
    return 'invalid';
  }
  const decision = deps.signer.verify(token, Math.floor(now / 1000));
  if (!decision) {
    plain(req, res, 403, "token refused: parameter 'tk' is forged, damaged or expired\n");
    return 'refused';
  }
  if (f === 'i') {
    res.writeHead(200, {
      'content-type': 'image/gif',
      'content-length': String(PIXEL.length),
      'cache-control': 'no-store',
      ...corsHeaders(req),
    });
    res.end(PIXEL);
  } else noContent(req, res);
  // (a HEAD, a link checker's or a preview's, is answered as the GET and counts nothing, as on /ev)
  if (t === 'win' || req.method === 'HEAD') return 'acknowledged';
  // the decision's impression, once across /ev and /event, with the notices its impression URL carries
  const notices = new URLSearchParams((query.get('n') ?? '').slice(0, 8192));
  notices.set('t', token);
  notices.delete('code');
  record(deps, decision, 'impression', notices, now);
  return 'counted';
}

function noContent(req: EdgeRequest, res: EdgeResponse): void {
  res.writeHead(204, { 'cache-control': 'no-store', ...corsHeaders(req) });
  res.end();
}
