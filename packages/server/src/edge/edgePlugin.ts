import { type EdgeRequest, type EdgeResponse } from '../http/edgeHttp.js';
import { type RouteLatency } from '../ops/metrics.js';
import { join } from 'node:path';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { EVENT_PATH } from '@adplane/shared';
import { type DecisionTrace } from '@adplane/shared';
import { DeliveryGate } from './auction/deliveryGate.js';
import { COUNTERS_FILE, DEFAULT_PREFIX, type DeliveryLog, openDeliveryCounters, type Refusal } from '../delivery/index.js';
import { seedDeliveryCounts } from './seeding/deliverySeed.js';
import { openReplayGuard } from './tracking/redisReplay.js';
import { REPLAY_FILE } from './tracking/savedReplay.js';
import { type SharedCounters } from '../delivery/sharedCounters.js';
import { PreBidIvt, trafficCheckStateOf } from './auction/preBidIvt.js';
import { HourlyCounters } from './counters/hourlyCounters.js';
import { campaignSource } from './demand/campaignSource.js';
import { VastFetcher } from './demand/vastFetcher.js';
import { vastTagSource } from './demand/vastTagSource.js';
import { proxyTrust } from '../http/clientAddress.js';
import { outboundPolicy } from '../http/outboundAddress.js';
import { ownEntryPointsOf } from '../http/ownEntryPoints.js';
import { DemandLoopGuard, HopMarker } from './request/demandHops.js';
import { CurrencyFeed } from './ortb/currency.js';
import { demandAgent } from './demand/deadline.js';
import { HttpCaller } from './demand/httpCaller.js';
import { adExchangeSource, prebidTagSource, rtbTagSource } from './demand/programmaticSources.js';
import { geoipLiteLookup, type GeoLookup, maxmindLookup } from './request/geo.js';
import { installInboundRtb } from './doors/openrtbBidder/rtbEntry.js';
import { registerSupplierSync } from './doors/openrtbBidder/supplierSync.js';
import { PrebidCache, type SharedCacheStore } from './prebid/bidCache.js';
import { CLIENT_CACHE_BOUNDS, registerPrebidEntries } from './prebid/prebidEntries.js';
import { redisCacheStore } from './prebid/redisBidCache.js';
import { registerPostback } from './postbid/postback.js';
import { PostbidStage } from './postbid/postbidStage.js';
import { PostbidCap } from './postbid/postbidCap.js';
import { seedPostbidCap } from './seeding/postbidCapSeed.js';
import { SnapshotHolder } from './snapshot/snapshotHolder.js';
import { type Snapshot } from './snapshot/types.js';
import { debugCaller, traceCors } from './debugAccess.js';
import { registerDemoDemand } from './demoDemand.js';
import { type ImpressionReplayGuard } from './tracking/replayGuard.js';
import { ensureTrackingKey } from './tracking/trackingKey.js';
import { answerEvent } from './tracking/trackingEvents.js';
import { TokenSigner } from './tracking/trackingToken.js';
import { corsHeaders, preflight } from './cors.js';
import { decideVast, handleVast, type VastRequestDeps } from './vastRequest.js';

/**
 * The edge plane inside the adplane app: the snapshot (built before the app is ready, then kept
 * fresh), the counters (flushed every few seconds and before the app closes, so SIGTERM loses
 * nothing), and the routes /vast/<uid> and /ev. `serveRaw` answers those two paths straight from
 * node's request (the listening server calls it before Fastify); Fastify routes the same handlers
 * for `inject` and for debug=1 (which needs the sign-in cookie).
 */
export interface Edge {
  snapshots: SnapshotHolder;
  counters: HourlyCounters;
  pacing: DeliveryGate;
  deps: VastRequestDeps | null;
  /** Exchange rates for demand and supply in other currencies than USD (openrtb/currency.ts; `current` never waits). */
  currency: CurrencyFeed;
  /** Time to answer an edge request, by route (`adplane_edge_request_seconds`): an entry point observes on its own route's timer. */
  requestSeconds: RouteLatency;
  /** Answers an edge request from the raw server; false when it is not one (or needs Fastify). */
  serveRaw(req: EdgeRequest, res: EdgeResponse): boolean;
  /**
   * Adds an entry point answered from the raw server (and through Fastify for `inject`): the
   * OpenRTB and Prebid Server endpoints register here from their own modules. `path` is exact, or a
   * prefix when it ends with '/' (the rest of the path is handed to the handler, URI-decoded).
   */
  addEntry(entry: EdgeEntry): void;
  flush(): Promise<void>;
}

export interface EdgeEntry {
  method: 'GET' | 'POST' | 'OPTIONS';
  path: string;
  handle(req: EdgeRequest, res: EdgeResponse, rest: string, search: URLSearchParams): void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    edge: Edge;
  }
}

export interface EdgeOptions {
  flushMs?: number;
  pollMs?: number;
  geo?: GeoLookup;
  /** Prefix of the delivery counters' Redis keys (default `adplane:`). */
  deliveryPrefix?: string;
  /** A cluster worker's transport of the shared delivery counters and its replay guard (cluster/); default: Redis when REDIS_URL is set, else this process. */
  sharedCounters?: (processId: string, leaseTtlMs: number) => SharedCounters;
  replay?: (log: DeliveryLog) => ImpressionReplayGuard;
  /** How often the post-bid monthly cap's counts are raised to the month so far in the stats store (default a minute). */
  postbidReseedMs?: number;
  /** A cluster worker's shared Prebid cache store (the primary); default: Redis when REDIS_URL is set, else this process alone. */
  prebidCache?: SharedCacheStore;
}

const VAST_PREFIX = '/vast/';
const QUIET = { warn: () => undefined };

export async function installEdge(app: FastifyInstance, options: EdgeOptions = {}): Promise<Edge> {
  const settings = app.settings;
  // delivery control: Redis when REDIS_URL is set, else in this process (docs/delivery.md)
  // (in this process, its counters are saved under DATA_DIR when it stops and read back when it starts;
  // a worker of --workers uses its primary's, which does the same)
  const delivery = await openDeliveryCounters(
    { redisUrl: settings.redisUrl },
    {
      log: app.log,
      ...(options.deliveryPrefix ? { prefix: options.deliveryPrefix } : {}),
      ...(options.sharedCounters ? { shared: options.sharedCounters } : { countersFile: join(settings.dataDir, COUNTERS_FILE) }),
    },
  );
  const pacing = new DeliveryGate(delivery);
  // an impression beacon counts once across every process that shares Redis (or the workers' primary)
  // (in this process, kept across its restarts under DATA_DIR, as the delivery counters are)
  const replay = options.replay?.(app.log) ?? (await openReplayGuard({ redisUrl: settings.redisUrl }, { log: app.log, prefix: options.deliveryPrefix ?? DEFAULT_PREFIX, file: join(settings.dataDir, REPLAY_FILE) }));
  // no count reaches the stats store before the guard can refuse its event's replay, even after a crash
  const counters = new HourlyCounters(() => app.stats, { beforeWrite: () => replay.persist?.() ?? Promise.resolve() });
  // where the edge's own calls may go: no SSRF through a demand URL (http/outboundAddress.ts)
  const outbound = outboundPolicy(settings.demandAllowPrivate, [settings.publicHost, settings.prebidServerUrl]);
  const trackingKey = await ensureTrackingKey(app.store.db);
  // every call to demand carries the hop marker, and none goes to the edge's own entry points (request/demandHops.ts)
  const loops = demandLoopGuard(app, trackingKey);
  const fetcher = new VastFetcher(demandAgent(outbound), loops);
  const caller = new HttpCaller(demandAgent(outbound), loops);
  // exchange rates for demand and supply in other currencies (ADPLANE_CURRENCY_RATES): read once here, refreshed in the background
  const currency = new CurrencyFeed(settings.currencyRates, app.log, settings.currencyRefreshMinutes);
  await currency.start();
  app.addHook('onClose', async () => currency.stop());
  const ortb = { caller, publicHost: settings.publicHost, currency, loops };
  const snapshots = new SnapshotHolder(app.store.db, app.log, options.pollMs ?? settings.configPollMs);
  const signer = new TokenSigner(trackingKey);
  // Labels from bounded sets only: the source kind and its fate, the edge route.
  const sourceSeconds = app.metrics.latencyHistogram('adplane_demand_source_seconds', 'Time to an answer from an external demand source, by source kind and fate', ['source', 'outcome']);
  const edgeSeconds = app.metrics.routeLatency('adplane_edge_request_seconds', 'Time to answer an ad request or tracking event on the edge, by route', 'route');
  const vastTimer = edgeSeconds.labels('vast');
  /** A VAST request's time, from `started` (no closure for one answered in its own turn). */
  const observeVast = (started: number): void => vastTimer.observe((performance.now() - started) / 1000);
  const eventTimer = edgeSeconds.labels('ev');
  // The IVT lists are loaded here, once: a bad line of an operator's refresh file stops the start.
  const ivtFlagged = app.metrics.counter('adplane_ivt_flagged_total', 'Ad requests the pre-bid IVT check flagged, by reason and whether they were blocked (answered empty)', ['reason', 'blocked']);
  const ivt = new PreBidIvt(trafficCheckStateOf(settings.ivt), (reason, blocked) => ivtFlagged.labels(reason, blocked ? 'true' : 'false'));
  const deps: VastRequestDeps = {
    snapshot: () => snapshots.current,
    counters,
    pacing,
    signer,
    sources: [campaignSource, vastTagSource(fetcher, { currency, publicHost: settings.publicHost }), rtbTagSource(ortb), prebidTagSource({ ...ortb, prebidServerUrl: settings.prebidServerUrl }), adExchangeSource(ortb)],
    origin: settings.publicHost,
    // an operator's MaxMind City database when set (more precise, updated weekly), else geoip-lite's bundled data
    geo: options.geo ?? (settings.maxmindDb ? await maxmindLookup(settings.maxmindDb) : geoipLiteLookup),
    trustProxy: proxyTrust(settings.trustProxy),
    onError: (error) => app.log.error({ err: error }, 'edge request failed: answered empty'),
    observeCall: (source, outcome, ms) => sourceSeconds.observe({ source, outcome }, ms / 1000),
    notify: (url) => caller.fire(url),
    loops,
    ivt,
    // the post-bid monthly cap counts in the delivery counters: shared by every process, as budgets are
    postbid: new PostbidStage(new PostbidCap(delivery)),
  };
  const eventDeps = { signer, replay, counters, pacing, snapshot: () => snapshots.current, notify: (url: string) => caller.fire(url) };

  app.metrics.gauge('adplane_delivery_redis_up', 'Whether the delivery counters reach Redis (1 up, 0 down); the in-process engine reports 1', ['engine'], function () {
    const h = delivery.health();
    this.reset();
    this.set({ engine: h.engine }, h.redis === 'down' ? 0 : 1);
  });
  app.metrics.gauge('adplane_delivery', 'Delivery control counts since start (held and overspend are current values; money in micro-dollars)', ['stat'], function () {
    const s = delivery.stats();
    for (const stat of ['admitted', 'held', 'expired', 'committed', 'committedUnreserved', 'overAllowance', 'overspend', 'committedElsewhere', 'exchanges', 'exchangeFailures'] as const) this.set({ stat }, s[stat]);
  });
  app.metrics.gauge('adplane_delivery_refused', 'Delivery control refusals since start, by reason', ['reason'], function () {
    const refused = delivery.stats().refused;
    for (const reason of Object.keys(refused) as Refusal[]) this.set({ reason }, refused[reason]);
  });

  const flush = () => counters.flush().catch((error: unknown) => app.log.error({ err: error }, 'edge counters flush failed: kept for the next one'));
  let timer: NodeJS.Timeout | undefined;
  let capTimer: NodeJS.Timeout | undefined;
  let unsubscribe = (): void => {};
  app.addHook('onReady', async () => {
    // geoip-lite reads its data files synchronously on first use (seconds, hundreds of MB): do it
    // before the first request rather than inside it.
    deps.geo('8.8.8.8');
    await snapshots.start();
    // what the counters held before this start (budgets spent today and in total, tags' daily caps), from the stats store
    if (snapshots.current) await seedDelivery(snapshots.current, pacing, app);
    await seedPostbidCap(deps.postbid!.cap, app.stats, app.log);
    // every minute, the month so far again (never lowering the shared count): edge processes that share
    // no counters (nodes without Redis) see each other's post-bid impressions through the stats store
    // (a failed read was logged at start; it is tried again quietly)
    capTimer = setInterval(() => void seedPostbidCap(deps.postbid!.cap, app.stats, QUIET), options.postbidReseedMs ?? 60_000);
    capTimer.unref();
    // a config write elsewhere: check the version now (null after a reconnect: a notice may be lost)
    unsubscribe = app.configBus.subscribe(() => snapshots.poke());
    // and once now: a change between the start's build and this listener was heard by no one
    snapshots.poke();
    timer = setInterval(() => void flush(), options.flushMs ?? 5000);
    timer.unref();
  });
  app.addHook('preClose', async () => {
    clearInterval(capTimer);
    snapshots.stop();
    unsubscribe();
  });
  // After the server has closed (onClose runs once every connection has ended: the last answer is
  // out), so that every request answered is in the final flush; the stats store, registered earlier,
  // closes after this hook.
  app.addHook('onClose', async () => {
    clearInterval(timer);
    // events whose replay check (Redis, the workers' primary) is still on its way are counted first
    await replay.drain?.().catch((error: unknown) => app.log.error({ err: error }, 'impression replay checks could not finish before the final flush'));
    await counters.flush().catch((error: unknown) => app.log.error({ err: error }, 'edge counters final flush failed'));
    // after the counters: what this process committed reaches the shared counters, its leases go back
    await delivery.flush().catch((error: unknown) => app.log.error({ err: error }, 'delivery counters final flush failed'));
    await delivery.close().catch((error: unknown) => app.log.error({ err: error }, 'delivery counters close failed'));
    await replay.close?.();
    await fetcher.close();
    await caller.close();
  });

  const entries: EdgeEntry[] = [];
  /** The registered entry for a method and path, with the rest of a prefix path. */
  const entryFor = (method: string, path: string): { entry: EdgeEntry; rest: string } | null => {
    for (const entry of entries) {
      if (entry.method !== method) continue;
      if (entry.path.endsWith('/') ? path.startsWith(entry.path) && path.length > entry.path.length : path === entry.path) {
        return { entry, rest: entry.path.endsWith('/') ? safeDecode(path.slice(entry.path.length)) : '' };
      }
    }
    return null;
  };
  const runEntry = (found: { entry: EdgeEntry; rest: string }, req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> =>
    Promise.resolve()
      .then(() => found.entry.handle(req, res, found.rest, search))
      .catch((error: unknown) => {
        deps.onError(error);
        if (!res.headersSent) {
          res.writeHead(204, { 'cache-control': 'no-store' });
          res.end();
        }
      });

  const edge: Edge = {
    snapshots,
    counters,
    pacing,
    deps,
    currency,
    requestSeconds: edgeSeconds,
    flush: () => counters.flush(),
    addEntry(entry) {
      entries.push(entry);
      const route = entry.path.endsWith('/') ? `${entry.path}*` : entry.path;
      void app.register(async (scope) => {
        // The entry reads the raw body itself, once: Fastify must leave the stream unread.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
        scope.route({
          method: entry.method,
          url: route,
          handler: async (request, reply) => {
            reply.hijack();
            const path = (request.raw.url ?? '').split('?')[0]!;
            const found = entryFor(entry.method, path);
            if (found) await runEntry(found, request.raw, reply.raw, searchOf(request));
            else {
              reply.raw.writeHead(404);
              reply.raw.end();
            }
          },
        });
      });
    },
    serveRaw(req, res) {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      if (req.method !== 'GET') {
        if (req.method === 'HEAD' && path === EVENT_PATH) {
          answerEvent(eventDeps, url, 'HEAD', req.headers, res);
          return true;
        }
        if (req.method === 'HEAD' && path.startsWith(VAST_PREFIX)) {
          vastHeadersOnly(req, res);
          return true;
        }
        const found = entries.length ? entryFor(req.method ?? '', path) : null;
        if (!found) return false;
        void runEntry(found, req, res, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
        return true;
      }
      if (path === EVENT_PATH) {
        const started = performance.now();
        answerEvent(eventDeps, url, 'GET', req.headers, res);
        eventTimer.observe((performance.now() - started) / 1000);
        return true;
      }
      const search = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
      if (path.startsWith(VAST_PREFIX) && search.get('debug') !== '1') {
        const uid = safeDecode(path.slice(VAST_PREFIX.length));
        const started = performance.now();
        const answering = handleVast(deps, req, res, uid, search);
        if (answering) void answering.finally(() => observeVast(started));
        else observeVast(started);
        return true;
      }
      const found = entries.length ? entryFor('GET', path) : null;
      if (!found) return false;
      void runEntry(found, req, res, search);
      return true;
    },
  };
  app.decorate('edge', edge);
  if (settings.demo) registerDemoDemand(app, settings.publicHost);

  // (Fastify answers HEAD with a GET route's handler: both handlers check)
  app.get(EVENT_PATH, (request, reply) => {
    reply.hijack();
    answerEvent(eventDeps, request.raw.url ?? '', request.method, request.headers, reply.raw);
  });

  app.get<{ Params: { uid: string } }>('/vast/:uid', async (request, reply) => {
    if (request.method !== 'GET') {
      reply.hijack();
      return vastHeadersOnly(request.raw, reply.raw);
    }
    const search = searchOf(request);
    if (search.get('debug') === '1') return debugAnswer(app, request, reply, deps, search);
    reply.hijack();
    await handleVast(deps, request.raw, reply.raw, request.params.uid, search);
  });
  // a page's CORS preflight on the player's paths: allowed
  for (const path of [VAST_PREFIX, EVENT_PATH]) edge.addEntry({ method: 'OPTIONS', path, handle: (req, res) => preflight(req, res, 'GET, HEAD, OPTIONS') });
  installInboundRtb(app);
  registerSupplierSync(app);
  // Prebid cache entries answer on every process: the page's GET may reach another worker or node
  const sharedCache = options.prebidCache ?? (settings.redisUrl ? redisCacheStore(settings.redisUrl, options.deliveryPrefix ?? DEFAULT_PREFIX) : null);
  const prebidCache = new PrebidCache(sharedCache, app.log);
  app.addHook('onClose', () => prebidCache.close());
  // what pages post to /cache: shared the same way, held apart in this process (prebidEntries.ts)
  registerPrebidEntries(app, edge, deps, prebidCache, new PrebidCache(sharedCache, app.log, CLIENT_CACHE_BOUNDS), eventDeps);
  registerPostback(edge, eventDeps);
  return edge;
}

/**
 * The demand loop guard of this edge: its hop marker signed with the deployment's key, the operator's
 * switch (ADPLANE_ALLOW_SELF_DEMAND), the server's own entry points (its public host, and the address
 * it listens on once it does), and its refusals counted in `adplane_demand_loops_refused_total` and
 * logged (a line a minute at most).
 */
function demandLoopGuard(app: FastifyInstance, trackingKey: string): DemandLoopGuard {
  const refused = app.metrics.counter(
    'adplane_demand_loops_refused_total',
    "Demand loops refused: requests of the edge's own demand calls beyond the hops allowed (stage entry), and demand URLs at its own entry points not called (stage call), by entry point or call",
    ['stage', 'kind'],
  );
  return new DemandLoopGuard(new HopMarker(trackingKey), app.settings.allowSelfDemand, ownEntryPointsOf(app), (r) => refused.inc({ stage: r.stage, kind: r.kind.toLowerCase() }), app.log);
}

/**
 * Seeds the delivery counters from the stats store with the limits of the first snapshot. A function
 * of its own: a closure over that snapshot made in `onReady` would share its scope with the config
 * bus's listener, which lives as long as the process, and keep the first snapshot (every campaign,
 * tag and channel object of it) alive after every rebuild.
 */
async function seedDelivery(snap: Snapshot, pacing: DeliveryGate, app: FastifyInstance): Promise<void> {
  const tz = (tenantId: number) => snap.tenants.get(tenantId)?.timezone ?? 0;
  await seedDeliveryCounts(pacing.delivery, app.stats, {
    campaigns: [...snap.campaigns.values()],
    tags: [...snap.tags.values()].filter((t) => t.dailyImpCap !== 'unlimited' || t.dailyRequestCap !== 'unlimited').map((t) => pacing.limitsOfTag(t, tz(t.tenantId))),
  }, app.log);
}

/**
 * HEAD on /vast (a link checker, a chat app's preview, a prefetcher): the headers a GET would get,
 * without a decision or a count: no ad plays from it, so it must neither hold budget nor count a
 * request. (HEAD on /ev: handleEvent, counting nothing.)
 */
function vastHeadersOnly(req: EdgeRequest, res: EdgeResponse): void {
  res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'no-store', ...corsHeaders(req) });
  res.end();
}

function safeDecode(s: string): string {
  // (a channel uid is plain ASCII: nothing to decode)
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function searchOf(request: FastifyRequest): URLSearchParams {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

/** debug=1: the VAST and the decision trace as JSON, for a signed-in user of the channel's tenant. */
async function debugAnswer(app: FastifyInstance, request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply, deps: VastRequestDeps, search: URLSearchParams) {
  const caller = await debugCaller(app, request, reply);
  const channel = deps.snapshot()?.channelsByUid.get(request.params.uid);
  const allowed = caller && (caller.tenantId === null || (channel && caller.tenantId === channel.tenantId));
  const outcome = await decideVast(deps, request.raw, request.params.uid, search);
  const xml = outcome?.xml ?? '';
  const cors = traceCors(request, app.settings.publicHost);
  if (!allowed || !cors) {
    // The trace shows prices and demand: only for the tenant's users, asking from the console's origin
    // or from no page (debugAccess.ts). Others get the plain VAST, with the players' CORS.
    reply.headers({ 'cache-control': 'no-store', ...corsHeaders(request.raw) });
    const refused = allowed ? 'refused: ask from the console\'s own origin, a typed URL or a script' : 'refused: sign in as a user of this channel\'s tenant';
    return reply.code(outcome?.status ?? 200).header('x-adplane-debug', refused).type('application/xml; charset=utf-8').send(xml);
  }
  reply.headers({ 'cache-control': 'no-store', ...cors });
  const trace: DecisionTrace | null = outcome?.trace ?? null;
  return reply.code(200).type('application/json; charset=utf-8').send({ status: outcome?.status ?? 200, vast: xml, trace });
}
