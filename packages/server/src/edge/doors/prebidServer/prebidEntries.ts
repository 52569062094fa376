import { clientAddress, type ProxyTrust } from '../../../http/clientAddress.js';
import { IPV6, ip, parseIp } from '../../../ivt/ipAddress.js';
import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { type FastifyInstance } from 'fastify';
import {
  PREBID_AMP_PATH,
  PREBID_AUCTION_PATH,
  PREBID_COOKIE_SYNC_PATH,
  PREBID_EVENT_PATH,
  PREBID_GETUIDS_PATH,
  PREBID_OPTOUT_PATH,
  PREBID_SETUID_PATH,
  PREBID_STATUS_PATH,
  PREBID_VTRACK_PATH,
} from '@adplane/shared';
import { type Edge } from '../edge.js';
import { MAX_BODY_BYTES, readBodyBytes, readJsonBody } from '../../ortb/requestBody.js';
import { corsHeaders, preflight } from '../cors.js';
import { connectionFacts, type VastRequestDeps } from '../vastRequest.js';
import { readAmpRequest } from './ampRequest.js';
import { readAuctionRequest } from './auctionRequest.js';
import { BIDDER_INFO_PATHS, registerBidderInfo } from './bidderInfo.js';
import { send } from './answer.js';
import { CACHE_PATH, PrebidCache } from './bidCache.js';
import { RequestRateCounter } from '../../../ivt/requestRate.js';
import { readCachePuts } from './cachePuts.js';
import { PBS_CODES, type PrebidDeps, runPrebidAuction } from './prebidAuction.js';
import { type EventDeps, PIXEL } from '../trackingEvents.js';
import { handlePrebidEvent } from './prebidEvents.js';
import { readVtrackPuts, readVtrackQuery, trackedVast } from './vtrack.js';
import {
  cookieSyncAnswer,
  fromOwnPage,
  optedCookie,
  optoutPage,
  type PartnerSync,
  readCookieSyncAsk,
  readSyncCookie,
  setCookieHeader,
  setuid,
} from './userSync.js';
import { tagOfSyncBidder } from '@adplane/shared';
import { type SnapTag } from '../../snapshot/types.js';
import { DEMAND_LOOP, type DemandHops, NOFILL_HEADER } from '../../request/demandHops.js';

/**
 * The Prebid Server entry points of the edge, answered from the raw server like /vast:
 * - POST /openrtb2/auction: the auction (prebidAuction.ts), 200 with a bid response whenever the
 *   request is valid (no bid is an empty seatbid, as Prebid Server answers), 400 "Invalid request:
 *   <field> <reason>" otherwise, counted by reason in /metrics (a malformed request has no tenant
 *   to count it for);
 * - GET /cache?uuid=<id>: what an auction cached (bidCache.ts), as Prebid Cache serves it;
 * - POST /cache: documents stored by a Prebid Cache client (cachePuts.ts), Prebid.js's cache.url;
 * - GET /openrtb2/amp: an AMP page's Real Time Config call (ampRequest.ts), answered with the
 *   winner's targeting keys;
 * - OPTIONS on both: the CORS preflight. Publishers' pages call from their own origin with
 *   credentials (Prebid.js's withCredentials), so every answer echoes the Origin and allows
 *   credentials, as Prebid Server's CORS does;
 * - GET /status: Prebid Server's health check, 204 No Content once the snapshot is loaded (Prebid
 *   Server's answer without a configured status_response), 503 before;
 * - GET /event: Prebid Server's event notifications (prebidEvents.ts), the win and imp URLs of the
 *   bids of a request with ext.prebid.events;
 * - POST /cookie_sync, GET /setuid, GET /getuids: Prebid Server's user sync for the bidder adplane
 *   (userSync.ts), the browser's adplane id in the `uids` cookie; GET and POST /optout, the page
 *   where a person opts the browser out of it;
 * - GET /info/bidders, /info/bidders/adplane, /bidders/params: Prebid Server's bidder information (bidderInfo.ts);
 * - POST /vtrack: Prebid Server's VAST cache with its impression event (vtrack.ts), Prebid.js's
 *   `cache.url` with `vasttrack: true`; stored as POST /cache stores, under the same rate limit.
 */

/**
 * A cached document is data for a player or a creative to fetch, never a page: anyone may store one
 * (POST /cache, as Prebid Cache), so a browser sent to its URL must not run what it holds on our
 * origin (an XML document with an XHTML script in it would). A sandbox with nothing allowed, and no
 * type sniffing; a player's or Prebid's fetch of it reads it as before.
 */
const DOCUMENT_ONLY: Record<string, string> = {
  'content-security-policy': "sandbox; default-src 'none'",
  'x-content-type-options': 'nosniff',
};

/**
 * What POST /cache stores lives apart from the auction's entries, in a smaller store of its own: a
 * flood of posts evicts only other posted documents, never the auction's bids that pages are about to
 * render.
 */
export const CLIENT_CACHE_BOUNDS = { maxEntries: 2000, maxBytes: 8 * 1024 * 1024 };

/**
 * POST /cache requests one client address may make in 10 s (each storing up to MAX_PUTS documents),
 * per edge process: a page's Prebid.js writes a few per auction; past this, 429 with Retry-After,
 * so that one address cannot push everyone else's documents out of the store in a few seconds.
 */
export const CACHE_WRITES_PER_ADDRESS = 30;
const CACHE_WRITE_WINDOW_MS = 10_000;

/**
 * Who a cache write is counted against: the client's address (http/clientAddress.ts), never
 * X-Device-IP, which the caller writes; an IPv6 address by its /64, the block one subscriber is given.
 */
/**
 * The id a GET of a stored document names: `uuid`, or, where Prebid.js appended `?uuid=<id>` to a
 * cache URL that already had a query (`/vtrack?a=<account>?uuid=<id>`), the id inside that value.
 */
function cachedUuid(search: URLSearchParams): string | null {
  const uuid = search.get('uuid');
  if (uuid) return uuid;
  for (const value of search.values()) {
    const at = value.lastIndexOf('?uuid=');
    if (at >= 0) return value.slice(at + 6) || null;
  }
  return null;
}

export function writerKey(req: EdgeRequest, trust: ProxyTrust): string {
  const address = clientAddress(req, trust);
  if (parseIp(address) !== IPV6) return address;
  const w = ip.words;
  return `${w[0]!.toString(16)}:${w[1]!.toString(16)}:${w[2]!.toString(16)}:${w[3]!.toString(16)}::/64`;
}

/**
 * AMP's CORS: the runtime names the page's origin in `__amp_source_origin`, and reads the answer
 * only when it is echoed in AMP-Access-Control-Allow-Source-Origin (exposed to the page's script).
 */
function ampCors(search: URLSearchParams): Record<string, string> {
  const source = search.get('__amp_source_origin');
  if (!source || !/^https?:\/\/[\x21-\x7e]+$/i.test(source)) return {};
  return {
    'amp-access-control-allow-source-origin': source,
    'access-control-expose-headers': 'AMP-Access-Control-Allow-Source-Origin',
  };
}

/** The no-fill header of a demand loop's answer, for our own caller's trace (request/demandHops.ts). */
const LOOP_ANSWER = { [NOFILL_HEADER]: DEMAND_LOOP };

/** The connection with the hops of a request one of the edge's own demand calls made. */
function withHops<T extends { hops?: DemandHops | null }>(conn: T, hops: DemandHops | null | undefined): T {
  if (hops) conn.hops = hops;
  return conn;
}

const BODY_REASONS: Record<string, string> = {
  body_too_large: `the body is larger than ${MAX_BODY_BYTES / 1024} KB`,
  invalid_json: 'the body is not valid JSON',
  invalid_gzip: 'the body is not valid gzip',
  unsupported_encoding: 'send the JSON plain or gzipped (Content-Encoding: gzip)',
  body_aborted: 'the body did not arrive whole',
};

export function registerPrebidEntries(
  app: FastifyInstance,
  edge: Edge,
  edgeDeps: VastRequestDeps,
  cache: PrebidCache = new PrebidCache(),
  clientCache: PrebidCache = new PrebidCache(null, null, CLIENT_CACHE_BOUNDS),
  eventDeps: EventDeps | null = null,
): void {
  const deps: PrebidDeps = { ...edgeDeps, cache, rates: () => app.edge.currency.current };
  const invalid = app.metrics.counter(
    'adplane_prebid_invalid_requests_total',
    'Prebid Server auction requests refused with a 400, by reason',
    ['reason'],
  );
  const seconds = app.metrics.latencyHistogram(
    'adplane_prebid_auction_seconds',
    'Time to answer a Prebid Server auction request',
  );

  async function auction(req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> {
    const started = deps.clock.now();
    const refuse = (reason: string, message: string) => {
      invalid.inc({ reason });
      send(req, res, 400, 'text/plain; charset=utf-8', `Invalid request: ${message}\n`);
    };
    // Prebid.js's endpointCompression gzips the body and says so only in the query
    const body = await readJsonBody(req, MAX_BODY_BYTES, search.get('gzip') === '1');
    if (!body.ok) return refuse(body.reason, BODY_REASONS[body.reason] ?? body.reason);
    const read = readAuctionRequest(body.value);
    if (!read.ok)
      return refuse('invalid_request', read.field ? `${read.field} ${read.reason}` : `the body ${read.reason}`);
    let answer: string;
    // a request one of the edge's own demand calls made: each impression's decision refuses it beyond the hops allowed
    const hops = deps.loops?.inbound(req.headers, read.ask.request);
    let bids = 0;
    try {
      const response = await runPrebidAuction(
        deps,
        read.ask,
        withHops(connectionFacts(req, deps.trustProxy, started), hops),
        started,
      );
      bids = response.seatbid?.length ?? 0;
      answer = JSON.stringify(response);
    } catch (error) {
      // never a 500: a valid request gets an answer without bids and the reason
      deps.onError(error);
      answer = JSON.stringify({
        id: read.ask.request.id,
        seatbid: [],
        cur: 'USD',
        ext: { errors: { adplane: [{ code: PBS_CODES.unknown, message: 'the auction failed' }] } },
      });
    }
    send(req, res, 200, 'application/json; charset=utf-8', answer, hops?.looped && !bids ? LOOP_ANSWER : undefined);
    seconds.observe((deps.clock.now() - started) / 1000);
  }

  async function amp(req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> {
    const started = deps.clock.now();
    const headers = ampCors(search);
    const refuse = (message: string) => {
      invalid.inc({ reason: 'invalid_amp_request' });
      send(req, res, 400, 'text/plain; charset=utf-8', `Invalid request: ${message}\n`, headers);
    };
    const read = readAmpRequest(search);
    if (!read.ok) return refuse(read.message);
    const asked = readAuctionRequest(read.body);
    if (!asked.ok) return refuse(asked.field ? `${asked.field} ${asked.reason}` : asked.reason);
    const tagId = search.get('tag_id')!.trim();
    const snapshot = deps.snapshot();
    if (snapshot && !snapshot.channelsByUid.has(tagId))
      return refuse(`no AMP config found for tag_id ${tagId} (the uid of an adplane channel)`);
    let answer: Record<string, unknown>;
    try {
      const response = await runPrebidAuction(
        deps,
        asked.ask,
        withHops(connectionFacts(req, deps.trustProxy, started), deps.loops?.inbound(req.headers, asked.ask.request)),
        started,
      );
      const ext = (response.ext ?? {}) as { errors?: unknown; warnings?: unknown };
      // one impression: the keys of its bids, merged (the winner's hb_* and each bidder's own), as
      // Prebid Server's AMP endpoint merges every bid's; the page's ad server line items key on them
      const targeting: Record<string, string> = {};
      for (const seat of response.seatbid ?? []) {
        for (const bid of seat.bid)
          Object.assign(
            targeting,
            (bid.ext as { prebid?: { targeting?: Record<string, string> } } | undefined)?.prebid?.targeting,
          );
      }
      // Prebid Server's AMP answer (endpoints/openrtb2/amp_auction.go AmpResponse): the keys, and the
      // bid response's ext under ortb2.ext; errors and warnings also at the top, where older Prebid
      // Servers put them
      answer = {
        targeting,
        ortb2: { ext },
        ...(ext.errors ? { errors: ext.errors } : {}),
        ...(ext.warnings ? { warnings: ext.warnings } : {}),
      };
    } catch (error) {
      deps.onError(error);
      const errors = { adplane: [{ code: PBS_CODES.unknown, message: 'the auction failed' }] };
      answer = { targeting: {}, ortb2: { ext: { errors } }, errors };
    }
    send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(answer), headers);
    seconds.observe((deps.clock.now() - started) / 1000);
  }

  async function cached(req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> {
    const uuid = cachedUuid(search);
    if (!uuid)
      return send(
        req,
        res,
        400,
        'text/plain; charset=utf-8',
        'GET /cache requests must carry a "uuid" query parameter\n',
      );
    // our ids are UUIDs: anything longer is not one of ours, and is not looked up in the shared store
    const doc = uuid.length <= 64 ? ((await deps.cache.get(uuid)) ?? (await clientCache.get(uuid))) : undefined;
    if (!doc)
      return send(
        req,
        res,
        404,
        'text/plain; charset=utf-8',
        `uuid=${uuid.slice(0, 64)} is not in the cache (expired, or stored by another edge node)\n`,
      );
    send(
      req,
      res,
      200,
      doc.type === 'xml' ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8',
      doc.body,
      DOCUMENT_ONLY,
    );
  }

  const writes = app.metrics.counter(
    'adplane_prebid_cache_writes_total',
    'Documents stored through POST /cache (Prebid Cache clients), by result',
    ['result'],
  );

  const writeRate = new RequestRateCounter({
    maxPerDevice: CACHE_WRITES_PER_ADDRESS,
    maxPerIpUa: CACHE_WRITES_PER_ADDRESS,
    windowMs: CACHE_WRITE_WINDOW_MS,
    maxKeys: 100_000,
  });

  async function store(req: EdgeRequest, res: EdgeResponse): Promise<void> {
    const refuse = (message: string) => {
      writes.inc({ result: 'invalid' });
      send(req, res, 400, 'text/plain; charset=utf-8', `${message}\n`);
    };
    if (overWriteRate(req, res)) return void writes.inc({ result: 'rate_limited' });
    const body = await readJsonBody(req, MAX_BODY_BYTES);
    if (!body.ok) return refuse(BODY_REASONS[body.reason] ?? body.reason);
    const read = readCachePuts(body.value);
    if (!read.ok) return refuse(read.message);
    const responses: { uuid: string }[] = [];
    for (const put of read.puts) {
      const uuid = await clientCache.put(put.doc, put.ttlSeconds);
      // every value fits an entry (readCachePuts caps them below it): no uuid would be a cache set smaller than one document
      if (!uuid) return refuse('a value is larger than the cache holds');
      responses.push({ uuid });
    }
    writes.inc({ result: 'stored' }, responses.length);
    send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify({ responses }));
  }

  /** Whether a client write (POST /cache or /vtrack) is over its address's rate; answered 429 then. */
  function overWriteRate(req: EdgeRequest, res: EdgeResponse): boolean {
    const untracked = writeRate.untracked;
    const over = writeRate.exceeds(writerKey(req, deps.trustProxy), deps.clock.now(), CACHE_WRITES_PER_ADDRESS);
    // a flood of new addresses past what the counter tracks is refused too, not let through
    if (!over && writeRate.untracked <= untracked) return false;
    req.resume();
    send(
      req,
      res,
      429,
      'text/plain; charset=utf-8',
      `more than ${CACHE_WRITES_PER_ADDRESS} cache writes from this address in ${CACHE_WRITE_WINDOW_MS / 1000} s: try again later\n`,
      {
        'retry-after': String(CACHE_WRITE_WINDOW_MS / 1000),
      },
    );
    return true;
  }

  const vtracks = app.metrics.counter(
    'adplane_prebid_vtrack_writes_total',
    'VAST documents stored through POST /vtrack, by result (tracked: with the impression event)',
    ['result'],
  );

  /**
   * POST /vtrack as Prebid Server answers it (vtrack.ts): 400 without `a` or with a bad `int` (the
   * body unread), 400 `Invalid request: <put and field> …` for a bad body (nothing stored), else 200
   * with a uuid per put, in order.
   */
  async function vtrack(req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> {
    const refuse = (message: string) => {
      vtracks.inc({ result: 'invalid' });
      send(req, res, 400, 'text/plain; charset=utf-8', `${message}\n`);
    };
    const query = readVtrackQuery(search);
    if (!query.ok) {
      req.resume();
      return refuse(query.message);
    }
    if (overWriteRate(req, res)) return void vtracks.inc({ result: 'rate_limited' });
    const body = await readJsonBody(req, MAX_BODY_BYTES, false, null);
    if (!body.ok) return refuse(`Invalid request: ${BODY_REASONS[body.reason] ?? body.reason}`);
    if (body.value === null && body.bytes === 0) return refuse('Invalid request: request body is empty');
    const read = readVtrackPuts(body.value);
    if (!read.ok) return refuse(`Invalid request: ${read.message}`);
    const ctx = {
      origin: deps.origin,
      account: query.account,
      integration: query.integration,
      signer: eventDeps?.signer ?? null,
      nowS: Math.floor(deps.clock.now() / 1000),
    };
    const responses: { uuid: string }[] = [];
    let tracked = 0;
    for (const put of read.puts) {
      const doc = trackedVast(put, ctx);
      const uuid = await clientCache.put({ type: 'xml', body: doc.vast }, put.ttlSeconds);
      // every value fits an entry (readVtrackPuts caps them far below it)
      if (!uuid) return refuse('Invalid request: a value is larger than the cache holds');
      if (doc.tracked) tracked++;
      responses.push({ uuid });
    }
    if (tracked) vtracks.inc({ result: 'tracked' }, tracked);
    if (responses.length > tracked) vtracks.inc({ result: 'stored' }, responses.length - tracked);
    send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify({ responses }));
  }

  const syncs = app.metrics.counter(
    'adplane_prebid_user_syncs_total',
    'Prebid Server user sync calls (cookie_sync, setuid, optout), by call and result',
    ['call', 'result'],
  );

  async function cookieSync(req: EdgeRequest, res: EdgeResponse): Promise<void> {
    // Prebid.js always posts a JSON body; a call without one asks with the defaults
    const body = await readJsonBody(req, MAX_BODY_BYTES, false, {});
    if (!body.ok) {
      syncs.inc({ call: 'cookie_sync', result: 'invalid' });
      return send(
        req,
        res,
        400,
        'text/plain; charset=utf-8',
        `Invalid request: ${BODY_REASONS[body.reason] ?? body.reason}\n`,
      );
    }
    const read = readCookieSyncAsk(body.value);
    if (!read.ok) {
      syncs.inc({ call: 'cookie_sync', result: 'invalid' });
      return send(
        req,
        res,
        400,
        'text/plain; charset=utf-8',
        `Invalid request: ${read.field ? `${read.field} ${read.reason}` : `the body ${read.reason}`}\n`,
      );
    }
    const cookie = readSyncCookie(req.headers.cookie);
    if (cookie.optout) {
      syncs.inc({ call: 'cookie_sync', result: 'opted_out' });
      return send(req, res, 401, 'text/plain; charset=utf-8', 'User has opted out\n');
    }
    const answer = cookieSyncAnswer(read.ask, cookie, {
      origin: deps.origin,
      now: deps.clock.now(),
      partners: partnersOf(read.ask.account),
    });
    syncs.inc({ call: 'cookie_sync', result: answer.bidder_status.length ? 'sync' : 'none' });
    send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(answer));
  }

  /** An RTB demand tag that syncs its partner's users (live, with a user-sync URL). */
  const syncsUsers = (tag: SnapTag | undefined): tag is SnapTag =>
    !!tag && tag.integration === 'RTB' && !!tag.userSyncUrl;
  /** The demand partners of the channel whose uid is a cookie_sync's account (the console's Prebid.js set-up names it). */
  function partnersOf(account: string): PartnerSync[] {
    const channel = account ? deps.snapshot()?.channelsByUid.get(account) : undefined;
    if (!channel?.serving) return [];
    return channel.demand.filter((d) => syncsUsers(d.tag)).map((d) => ({ tagId: d.tag.id, url: d.tag.userSyncUrl }));
  }
  /** Whether /setuid keeps an id for `bidder`: a partner whose tag syncs. */
  const isPartner = (bidder: string): boolean => {
    const id = tagOfSyncBidder(bidder);
    return id !== null && syncsUsers(deps.snapshot()?.tags.get(id));
  };

  function setUid(req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): void {
    const now = deps.clock.now();
    const result = setuid(search, readSyncCookie(req.headers.cookie), now, isPartner);
    if (!result.ok) {
      syncs.inc({ call: 'setuid', result: String(result.status) });
      return send(req, res, result.status, 'text/plain; charset=utf-8', `${result.message}\n`);
    }
    syncs.inc({ call: 'setuid', result: 'stored' });
    res.writeHead(200, {
      'content-type': result.image ? 'image/gif' : 'text/html; charset=utf-8',
      'content-length': result.image ? PIXEL.length : 0,
      'cache-control': 'no-store',
      'set-cookie': setCookieHeader(result.cookie, now),
      ...corsHeaders(req),
    });
    res.end(result.image ? PIXEL : '');
  }

  /**
   * The browser's ids, for the browser itself (a person checking what the cookie holds): no CORS, so
   * no other site's page reads them (Prebid.js never calls it). Prebid Server's answer: `{}` without ids.
   */
  function getUids(req: EdgeRequest, res: EdgeResponse): void {
    const entries = Object.entries(readSyncCookie(req.headers.cookie).uids);
    const answer = entries.length
      ? { buyeruids: Object.fromEntries(entries.map(([bidder, entry]) => [bidder, entry.uid])) }
      : {};
    const body = JSON.stringify(answer);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(body);
  }

  /** The opt-out page: a page of adplane's own, which runs nothing and posts only to itself. */
  const PAGE_HEADERS = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  };

  /** The page; an opted-out browser's cookie is written again, so that the choice lasts 400 days from the last visit. */
  function optoutShown(req: EdgeRequest, res: EdgeResponse): void {
    const now = deps.clock.now();
    const cookie = readSyncCookie(req.headers.cookie);
    const body = optoutPage(cookie, now);
    res.writeHead(200, {
      ...PAGE_HEADERS,
      'content-length': Buffer.byteLength(body),
      ...(cookie.optout ? { 'set-cookie': setCookieHeader(optedCookie(true), now) } : {}),
    });
    res.end(body);
  }

  async function optoutChosen(req: EdgeRequest, res: EdgeResponse): Promise<void> {
    const plain = (status: number, message: string) => {
      res.writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(message) + 1,
      });
      res.end(`${message}\n`);
    };
    const form = await readBodyBytes(req, 4096);
    if (form === 'too_large') return plain(413, 'the form is larger than 4 KB');
    const choice = form === 'aborted' ? null : new URLSearchParams(form.toString('utf8')).get('optout');
    if (choice !== '1' && choice !== '0')
      return plain(400, 'optout must be 1 (opt out) or 0 (opt back in), as the form of GET /optout sends it');
    // either way the person's own act on the page: no other site opts them in, or wipes the ids a Prebid Server sharing the host keeps
    if (!fromOwnPage(req.headers, deps.origin))
      return plain(403, "the choice is taken only from adplane's own opt-out page (GET /optout)");
    syncs.inc({ call: 'optout', result: choice === '1' ? 'opted_out' : 'opted_in' });
    res.writeHead(303, {
      location: PREBID_OPTOUT_PATH,
      'cache-control': 'no-store',
      'content-length': 0,
      'set-cookie': setCookieHeader(optedCookie(choice === '1'), deps.clock.now()),
    });
    res.end();
  }

  const allowed = (req: EdgeRequest, res: EdgeResponse) => preflight(req, res, 'POST, GET, OPTIONS');
  edge.addEntry({ method: 'GET', path: PREBID_OPTOUT_PATH, handle: (req, res) => optoutShown(req, res) });
  edge.addEntry({ method: 'POST', path: PREBID_OPTOUT_PATH, handle: (req, res) => optoutChosen(req, res) });
  edge.addEntry({ method: 'POST', path: PREBID_COOKIE_SYNC_PATH, handle: (req, res) => cookieSync(req, res) });
  edge.addEntry({ method: 'OPTIONS', path: PREBID_COOKIE_SYNC_PATH, handle: allowed });
  edge.addEntry({
    method: 'GET',
    path: PREBID_SETUID_PATH,
    handle: (req, res, _rest, search) => setUid(req, res, search),
  });
  edge.addEntry({ method: 'GET', path: PREBID_GETUIDS_PATH, handle: (req, res) => getUids(req, res) });
  edge.addEntry({
    method: 'POST',
    path: PREBID_AUCTION_PATH,
    handle: (req, res, _rest, search) => auction(req, res, search),
  });
  edge.addEntry({ method: 'OPTIONS', path: PREBID_AUCTION_PATH, handle: allowed });
  edge.addEntry({ method: 'GET', path: PREBID_AMP_PATH, handle: (req, res, _rest, search) => amp(req, res, search) });
  edge.addEntry({ method: 'OPTIONS', path: PREBID_AMP_PATH, handle: allowed });
  edge.addEntry({ method: 'GET', path: CACHE_PATH, handle: (req, res, _rest, search) => cached(req, res, search) });
  edge.addEntry({ method: 'POST', path: CACHE_PATH, handle: (req, res) => store(req, res) });
  edge.addEntry({ method: 'OPTIONS', path: CACHE_PATH, handle: allowed });
  edge.addEntry({
    method: 'POST',
    path: PREBID_VTRACK_PATH,
    handle: (req, res, _rest, search) => vtrack(req, res, search),
  });
  // Prebid.js's video URL of a bid stored through /vtrack is the cache URL and `?uuid=<id>` (videoCache.js
  // getCacheUrl): `/vtrack?a=<account>?uuid=<id>`; a player given that URL reads the document here
  edge.addEntry({
    method: 'GET',
    path: PREBID_VTRACK_PATH,
    handle: (req, res, _rest, search) => cached(req, res, search),
  });
  edge.addEntry({ method: 'OPTIONS', path: PREBID_VTRACK_PATH, handle: allowed });
  registerBidderInfo(edge);
  // Prebid Server answers 204 No Content when no status_response is configured (endpoints/status.go,
  // StatusHandler); adplane is ready once it has its snapshot, 503 before
  edge.addEntry({
    method: 'GET',
    path: PREBID_STATUS_PATH,
    handle: (req, res) => {
      if (deps.snapshot()) {
        res.writeHead(204, { 'cache-control': 'no-store', ...corsHeaders(req) });
        res.end();
      } else send(req, res, 503, 'text/plain; charset=utf-8', 'warming up');
    },
  });
  const events = app.metrics.counter(
    'adplane_prebid_events_total',
    'Prebid Server event notifications (GET /event), by type and outcome',
    ['type', 'result'],
  );
  edge.addEntry({
    method: 'GET',
    path: PREBID_EVENT_PATH,
    handle: (req, res, _rest, search) => {
      const type = search.get('t') === 'win' || search.get('t') === 'imp' ? search.get('t')! : 'other';
      if (!eventDeps) {
        // (an app without the tracking machinery: answered as Prebid Server with events off for the account)
        res.writeHead(401, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          ...corsHeaders(req),
        });
        res.end('events are not enabled on this server\n');
        events.inc({ type, result: 'disabled' });
        return;
      }
      events.inc({ type, result: handlePrebidEvent(eventDeps, req, res, search) });
    },
  });
  // a GET where only POST is served: 405 naming the methods, as Prebid Server's router answers (not the console's 404 page)
  for (const path of [PREBID_AUCTION_PATH, PREBID_COOKIE_SYNC_PATH]) {
    edge.addEntry({
      method: 'GET',
      path,
      handle: (req, res) =>
        send(req, res, 405, 'text/plain; charset=utf-8', 'Method Not Allowed\n', { allow: 'POST, OPTIONS' }),
    });
  }
  // every path answers a CORS preflight, as Prebid Server's CORS handler does for all of its routes
  // (a page's fetch with a header of its own, or a non-simple request, asks first)
  const readOnly = (req: EdgeRequest, res: EdgeResponse) => preflight(req, res, 'GET, OPTIONS');
  for (const path of [
    PREBID_OPTOUT_PATH,
    PREBID_SETUID_PATH,
    PREBID_GETUIDS_PATH,
    PREBID_STATUS_PATH,
    PREBID_EVENT_PATH,
    ...BIDDER_INFO_PATHS,
  ]) {
    edge.addEntry({ method: 'OPTIONS', path, handle: path === PREBID_OPTOUT_PATH ? allowed : readOnly });
  }
}
