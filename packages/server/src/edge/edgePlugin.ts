import { join } from 'node:path';
import { type FastifyInstance } from 'fastify';
import { COUNTERS_FILE, DEFAULT_PREFIX, type DeliveryLog, openDeliveryCounters } from '../delivery/index.js';
import { type SharedCounters } from '../delivery/sharedCounters.js';
import { proxyTrust } from '../http/clientAddress.js';
import { outboundPolicy } from '../http/outboundAddress.js';
import { ownEntryPointsOf } from '../http/ownEntryPoints.js';
import { DeliveryGate } from './auction/deliveryGate.js';
import { PreBidIvt, trafficCheckStateOf } from './auction/preBidIvt.js';
import { HourlyCounters } from './counters/hourlyCounters.js';
import { TagValues } from './counters/tagValues.js';
import { campaignSource } from './demand/campaignSource.js';
import { demandAgent } from './demand/deadline.js';
import { HttpCaller } from './demand/httpCaller.js';
import { adExchangeSource, prebidTagSource, rtbTagSource } from './demand/programmaticSources.js';
import { VastFetcher } from './demand/vastFetcher.js';
import { vastTagSource } from './demand/vastTagSource.js';
import { registerDemoDemand } from './doors/demoDemand.js';
import { type Edge } from './doors/edge.js';
import { installInboundRtb } from './doors/openrtbBidder/rtbEntry.js';
import { registerSupplierSync } from './doors/openrtbBidder/supplierSync.js';
import { registerPostback } from './doors/postback.js';
import { PrebidCache, type SharedCacheStore } from './doors/prebidServer/bidCache.js';
import { CLIENT_CACHE_BOUNDS, registerPrebidEntries } from './doors/prebidServer/prebidEntries.js';
import { redisCacheStore } from './doors/prebidServer/redisBidCache.js';
import { type VastRequestDeps } from './doors/vastRequest.js';
import { edgeMetrics, type EdgeMetrics } from './edgeMetrics.js';
import { edgeRouter } from './edgeRouter.js';
import { CurrencyFeed } from './ortb/currency.js';
import { PostbidCap } from './postbid/postbidCap.js';
import { PostbidStage } from './postbid/postbidStage.js';
import { DemandLoopGuard, HopMarker } from './request/demandHops.js';
import { geoipLiteLookup, type GeoLookup, maxmindLookup } from './request/geo.js';
import { keepPostbidCapSeeded, seedDelivery } from './seeding/edgeSeeding.js';
import { SnapshotHolder } from './snapshot/snapshotHolder.js';
import { openReplayGuard } from './tracking/redisReplay.js';
import { type ImpressionReplayGuard } from './tracking/replayGuard.js';
import { REPLAY_FILE } from './tracking/savedReplay.js';
import { ensureTrackingKey } from './tracking/trackingKey.js';
import { TokenSigner } from './tracking/trackingToken.js';

/** How a test, a cluster worker or the app installs the edge (installEdge). */
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

/**
 * The edge's composition root: the one place its parts are built and wired. Delivery control, the
 * replay guard, the counters, the demand sources and their callers, the snapshot, the deps of every
 * door; then its routing (edgeRouter.ts), metrics (edgeMetrics.ts), seeding at start
 * (seeding/edgeSeeding.ts), the doors' registration and the lifecycle of its timers. The doors see
 * the result as `Edge` (doors/edge.ts).
 */
export async function installEdge(app: FastifyInstance, options: EdgeOptions = {}): Promise<Edge> {
  const settings = app.settings;
  // delivery control: Redis when REDIS_URL is set, else in this process (docs/delivery.md)
  // (in this process, its counters are saved under DATA_DIR when it stops and read back when it starts;
  // a worker of --workers uses its primary's, which does the same)
  const delivery = await openDeliveryCounters(
    { redisUrl: settings.redisUrl },
    {
      log: app.log,
      clock: () => app.clock.now(),
      ...(options.deliveryPrefix ? { prefix: options.deliveryPrefix } : {}),
      ...(options.sharedCounters
        ? { shared: options.sharedCounters }
        : { countersFile: join(settings.dataDir, COUNTERS_FILE) }),
    },
  );
  const pacing = new DeliveryGate(delivery);
  // an impression beacon counts once across every process that shares Redis (or the workers' primary)
  // (in this process, kept across its restarts under DATA_DIR, as the delivery counters are)
  const replay =
    options.replay?.(app.log) ??
    (await openReplayGuard(
      { redisUrl: settings.redisUrl },
      {
        log: app.log,
        prefix: options.deliveryPrefix ?? DEFAULT_PREFIX,
        file: join(settings.dataDir, REPLAY_FILE),
        clock: app.clock,
      },
    ));
  // no count reaches the stats store before the guard can refuse its event's replay, even after a crash
  const counters = new HourlyCounters(() => app.stats, {
    beforeWrite: () => replay.persist?.() ?? Promise.resolve(),
    onFlushError: (error) => app.log.error({ err: error }, 'edge counters flush failed: kept for the next one'),
  });
  // where the edge's own calls may go: no SSRF through a demand URL (http/outboundAddress.ts)
  const outbound = outboundPolicy(settings.demandAllowPrivate, [settings.publicHost, settings.prebidServerUrl]);
  const trackingKey = await ensureTrackingKey(app.store.db);
  const metrics = edgeMetrics(app, delivery);
  // every call to demand carries the hop marker, and none goes to the edge's own entry points (request/demandHops.ts)
  const loops = demandLoopGuard(app, trackingKey, metrics);
  const fetcher = new VastFetcher(demandAgent(outbound), loops, app.clock);
  const caller = new HttpCaller(demandAgent(outbound), loops, app.clock);
  // exchange rates for demand and supply in other currencies (ADPLANE_CURRENCY_RATES): read once here, refreshed in the background
  const currency = new CurrencyFeed(settings.currencyRates, app.log, settings.currencyRefreshMinutes);
  await currency.start();
  app.addHook('onClose', async () => currency.stop());
  const ortb = { caller, publicHost: settings.publicHost, currency, loops };
  const snapshots = new SnapshotHolder(app.store.db, app.log, options.pollMs ?? settings.configPollMs, app.clock);
  const signer = new TokenSigner(trackingKey);
  // The IVT lists are loaded here, once: a bad line of an operator's refresh file stops the start.
  const ivt = new PreBidIvt(trafficCheckStateOf(settings.ivt), metrics.ivtFlag);
  const deps: VastRequestDeps = {
    clock: app.clock,
    snapshot: () => snapshots.current,
    counters,
    pacing,
    signer,
    sources: [
      campaignSource,
      vastTagSource(fetcher, { currency, publicHost: settings.publicHost }),
      rtbTagSource(ortb),
      prebidTagSource({ ...ortb, prebidServerUrl: settings.prebidServerUrl }),
      adExchangeSource(ortb),
    ],
    origin: settings.publicHost,
    // an operator's MaxMind City database when set (more precise, updated weekly), else geoip-lite's bundled data
    geo: options.geo ?? (settings.maxmindDb ? await maxmindLookup(settings.maxmindDb) : geoipLiteLookup),
    trustProxy: proxyTrust(settings.trustProxy),
    onError: (error) => app.log.error({ err: error }, 'edge request failed: answered empty'),
    observeCall: metrics.observeCall,
    notify: (url) => caller.fire(url),
    loops,
    ivt,
    // the post-bid monthly cap counts in the delivery counters: shared by every process, as budgets are
    postbid: new PostbidStage(new PostbidCap(delivery)),
    // optimised demand orders learn from this process's own traffic (docs/ad-server.md)
    tagValues: new TagValues(),
  };
  const eventDeps = {
    clock: app.clock,
    signer,
    replay,
    counters,
    pacing,
    snapshot: () => snapshots.current,
    notify: (url: string) => caller.fire(url),
    onError: (error: unknown) => app.log.error({ err: error }, 'edge count failed after its replay check'),
  };

  const flush = () =>
    counters
      .flush()
      .catch((error: unknown) => app.log.error({ err: error }, 'edge counters flush failed: kept for the next one'));
  let timer: NodeJS.Timeout | undefined;
  let stopCapSeed = (): void => {};
  let unsubscribe = (): void => {};
  app.addHook('onReady', async () => {
    // geoip-lite reads its data files synchronously on first use (seconds, hundreds of MB): do it
    // before the first request rather than inside it.
    deps.geo('8.8.8.8');
    await snapshots.start();
    // what the counters held before this start (budgets spent today and in total, tags' daily caps), from the stats store
    if (snapshots.current) await seedDelivery(snapshots.current, pacing, app);
    stopCapSeed = await keepPostbidCapSeeded(deps.postbid!.cap, app, options.postbidReseedMs ?? 60_000);
    // a config write elsewhere: check the version now (null after a reconnect: a notice may be lost)
    unsubscribe = app.configBus.subscribe(() => snapshots.poke());
    // and once now: a change between the start's build and this listener was heard by no one
    snapshots.poke();
    timer = setInterval(() => void flush(), options.flushMs ?? settings.statsFlushMs);
    timer.unref();
  });
  app.addHook('preClose', async () => {
    stopCapSeed();
    snapshots.stop();
    unsubscribe();
  });
  // After the server has closed (onClose runs once every connection has ended: the last answer is
  // out), so that every request answered is in the final flush; the stats store, registered earlier,
  // closes after this hook.
  app.addHook('onClose', async () => {
    clearInterval(timer);
    // events whose replay check (Redis, the workers' primary) is still on its way are counted first
    await replay
      .drain?.()
      .catch((error: unknown) =>
        app.log.error({ err: error }, 'impression replay checks could not finish before the final flush'),
      );
    await counters.flush().catch((error: unknown) => app.log.error({ err: error }, 'edge counters final flush failed'));
    // after the counters: what this process committed reaches the shared counters, its leases go back
    await delivery
      .flush()
      .catch((error: unknown) => app.log.error({ err: error }, 'delivery counters final flush failed'));
    await delivery.close().catch((error: unknown) => app.log.error({ err: error }, 'delivery counters close failed'));
    await replay.close?.();
    await fetcher.close();
    await caller.close();
  });

  const router = edgeRouter(app, deps, eventDeps, metrics.requestSeconds);
  const edge: Edge = {
    snapshots,
    counters,
    pacing,
    deps,
    currency,
    requestSeconds: metrics.requestSeconds,
    flush: () => counters.flush(),
    addEntry: router.addEntry,
    serveRaw: router.serveRaw,
    routes: router.routes,
  };
  app.decorate('edge', edge);
  if (settings.demo) registerDemoDemand(app, settings.publicHost);

  installInboundRtb(app);
  registerSupplierSync(app);
  // Prebid cache entries answer on every process: the page's GET may reach another worker or node
  const sharedCache =
    options.prebidCache ??
    (settings.redisUrl ? redisCacheStore(settings.redisUrl, options.deliveryPrefix ?? DEFAULT_PREFIX) : null);
  const prebidCache = new PrebidCache(sharedCache, app.log);
  app.addHook('onClose', () => prebidCache.close());
  // what pages post to /cache: shared the same way, held apart in this process (prebidEntries.ts)
  registerPrebidEntries(
    app,
    edge,
    deps,
    prebidCache,
    new PrebidCache(sharedCache, app.log, CLIENT_CACHE_BOUNDS),
    eventDeps,
  );
  registerPostback(edge, eventDeps);
  return edge;
}

/**
 * The demand loop guard of this edge: its hop marker signed with the deployment's key, the operator's
 * switch (ADPLANE_ALLOW_SELF_DEMAND), the server's own entry points (its public host, and the address
 * it listens on once it does), and its refusals counted in `adplane_demand_loops_refused_total` (edgeMetrics.ts) and
 * logged (a line a minute at most).
 */
function demandLoopGuard(app: FastifyInstance, trackingKey: string, metrics: EdgeMetrics): DemandLoopGuard {
  return new DemandLoopGuard(
    new HopMarker(trackingKey),
    app.settings.allowSelfDemand,
    ownEntryPointsOf(app),
    (r) => metrics.loopRefused(r.stage, r.kind),
    app.log,
    () => app.clock.now(),
  );
}
