import { createServer } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import './appContext.js';
import { createMailer } from './mail/mailer.js';
import { createAlertChecks } from './alerts/alertChecks.js';
import { createDynamicFloorJob } from './floors/dynamicFloors.js';
import { type Clock, systemClock } from './clock.js';
import { registerApiRoutes } from './api/index.js';
import { installResponseEncryption } from './api/encryption.js';
import { LoginThrottle } from './auth/loginThrottle.js';
import { installAuth } from './auth/plugin.js';
import { type EdgeOptions, installEdge } from './edge/edgePlugin.js';
import { createSessions } from './auth/sessions.js';
import { registerSellersJson } from './supplyChain/sellersJson.js';
import { answerClientError } from './http/clientError.js';
import { installEdgeLane } from './http/edgeLane.js';
import { type EdgeRequest, type EdgeResponse } from './http/edgeHttp.js';
import { installErrorHandling } from './http/errors.js';
import { installSameOriginChecks } from './http/sameOrigin.js';
import { EDGE_HEADERS, installSecurityHeaders, isEdgePath, setEdgeHeaders } from './http/securityHeaders.js';
import { createAppMetrics } from './ops/metrics.js';
import { registerOpsRoutes } from './ops/routes.js';
import { periodicPass } from './ops/periodicPass.js';
import { isHttpsHost, type Settings } from './settings.js';
import { type Store } from './store/db.js';
import { createReportLines } from './stats/reportQueue.js';
import { openStatsStore, type StatsStore } from './stats/statsStore.js';
import { ensureSessionSecret } from './store/sessionSecret.js';
import { deleteExpiredSessions } from './store/sessions.js';
import { registerConsole, sendConsole, wantsConsole } from './web/console.js';
import { installAccessLog } from './ops/accessLog.js';
import { registerCreativePreview } from './web/creativePreview.js';
import { type ConfigChangeBus, openConfigChangeBus, openDeliveryCounters } from './delivery/index.js';
import { readConfigVersion } from './store/configVersion.js';
import { archiveOldCreatives } from './resources/oldCreatives.js';
import { deleteStalePasswordResets } from './store/passwordResets.js';
import { pruneSignInLog } from './store/signInLog.js';
import { createOutbox, OUTBOX_KEEP_SENT_MS } from './notify/outbox.js';
import { deleteSentDeliveries } from './store/deliveries.js';
import { outboundPolicy } from './http/outboundAddress.js';
import { startScheduleLoop } from './schedules/scheduleRunner.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Snapshot invalidation: the API publishes after config writes, the edge rebuilds on each notice (docs/delivery.md). */
    configBus: ConfigChangeBus;
  }
}

/** Which planes a process serves (docs/architecture.md): the control plane (/api and the console), the edge, or both. */
export const ROLES = ['api', 'edge', 'all'] as const;
export type Role = (typeof ROLES)[number];

export interface BuildAppOptions {
  settings: Settings;
  store: Store;
  /** A pino logger to use instead of one built from settings.logLevel. */
  logger?: FastifyBaseLogger;
  role?: Role;
  /** What every part of the app reads the time from (default the machine's); tests pass a TestClock. */
  clock?: Clock;
  /** Tests pass one with a fake clock. */
  loginThrottle?: LoginThrottle;
  /** A stats store the caller owns (and closes); by default the app opens one from settings and closes it on close. */
  stats?: StatsStore;
  /** Prefix of the Redis keys and channels (default the settings', ADPLANE_REDIS_PREFIX, else `adplane:`): tests keep theirs apart. */
  deliveryPrefix?: string;
  /** A cluster worker's bus and edge transports (cluster/worker.ts); default: from settings. The app closes the bus. */
  configBus?: (log: FastifyBaseLogger) => ConfigChangeBus;
  edge?: EdgeOptions;
  /** Headers on every answer of the listening server, the edge lane's and node:http's (a cluster worker's id). */
  serverHeaders?: Record<string, string>;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The adplane HTTP app, ready for `listen` or `inject`. Order matters: error handling and hooks
 * first, then the auth plugin (its onRoute hook checks every /api route's guard), then the routes.
 */
export async function buildApp({
  settings,
  store,
  logger,
  role = 'all',
  clock = systemClock,
  loginThrottle,
  stats,
  deliveryPrefix: givenPrefix,
  configBus: givenBus,
  edge: edgeOptions,
  serverHeaders,
}: BuildAppOptions): Promise<FastifyInstance> {
  // The edge answers its requests from its one route table (edge/edgeRouter.ts) before Fastify sees
  // them, on the listening server alone (no routing, hooks or body machinery on the hot path): through
  // the edge lane, and through node:http's handler below for what the lane hands over. Fastify, and so
  // `inject`, sees only the rest (and `debug=1` on /vast, which needs the console's sign-in).
  let serveEdgeRaw: ((req: EdgeRequest, res: EdgeResponse) => boolean) | null = null;
  const deliveryPrefix = givenPrefix ?? settings.redisPrefix;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: { level: settings.logLevel } }),
    trustProxy: settings.trustProxy,
    // The edge builds its snapshot before the app is ready (onReady): a cold build of a large store
    // (100,000 campaigns: 3-5 s alone, more with workers starting at once on a busy machine) must not
    // trip Fastify's default 10 s limit, after which the process would exit and be restarted.
    ...(role !== 'api' ? { pluginTimeout: 120_000 } : {}),
    // One line per request only at debug (or with ADPLANE_ACCESS_LOG=1, at info): at info the
    // terminal holds start-up, warnings and errors, which a person can read (ops/accessLog.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // a request node:http cannot read: Fastify's 4xx, without a body for HEAD (http/clientError.ts)
    clientErrorHandler: answerClientError,
    serverFactory: (handler) => {
      const fixed = serverHeaders ? Object.entries(serverHeaders) : [];
      const server = createServer((req, res) => {
        for (const [name, value] of fixed) res.setHeader(name, value);
        // the edge's headers on what the edge answers here (Fastify's hook sets them on the rest: http/securityHeaders.ts)
        if (serveEdgeRaw && isEdgePath(req.url ?? '')) setEdgeHeaders(res);
        if (serveEdgeRaw?.(req, res)) return;
        handler(req, res);
      });
      server.keepAliveTimeout = settings.keepAliveMs;
      // the edge's requests are answered in its lane, before node:http's per-request machinery (http/edgeLane.ts)
      if (role !== 'api') {
        installEdgeLane(server, {
          serve: (req, res) => serveEdgeRaw?.(req, res) ?? false,
          keepAliveMs: settings.keepAliveMs,
          headersTimeoutMs: server.headersTimeout,
          // every answer of the lane is the edge's: it carries the edge's headers (http/securityHeaders.ts)
          headers: { ...EDGE_HEADERS, ...serverHeaders },
          onError: (error) => app.log.error({ err: error }, 'edge request failed: connection closed'),
        });
      }
      return server;
    },
  }) as unknown as FastifyInstance;

  const sessionSecret = await ensureSessionSecret(store, settings);
  app.decorate('clock', clock);
  app.decorate('store', store);
  const statsStore =
    stats ?? (await openStatsStore({ dataDir: settings.dataDir, clickhouseUrl: settings.clickhouseUrl }));
  app.decorate('stats', statsStore);
  if (!stats) app.addHook('onClose', () => statsStore.close());
  app.decorate(
    'reportLines',
    createReportLines({ filesAtOnce: settings.reportFilesAtOnce, filesPerUser: settings.reportFilesPerUser }),
  );
  app.decorate('settings', settings);
  app.decorate('metrics', createAppMetrics());
  const mailer = createMailer(settings.mail);
  app.decorate('mailer', mailer);
  app.addHook('onClose', () => mailer.close());
  const outbox = createOutbox({
    db: store.db,
    mailer,
    clock,
    log: app.log,
    outbound: outboundPolicy(settings.demandAllowPrivate, []),
  });
  app.decorate('outbox', outbox);
  app.addHook('onClose', () => outbox.stop());
  app.decorate('loginThrottle', loginThrottle ?? new LoginThrottle({ now: () => clock.now() }));
  app.decorate(
    'sessions',
    createSessions({
      db: store.db,
      ttlMs: settings.sessionTtlHours * HOUR_MS,
      secure: isHttpsHost(settings),
      now: () => clock.now(),
    }),
  );

  installAccessLog(app, settings.accessLog);
  installErrorHandling(app);
  installSameOriginChecks(app);
  await installSecurityHeaders(app, settings);
  if (settings.encryptResponses) installResponseEncryption(app);
  registerOpsRoutes(app, {
    store,
    metrics: app.metrics,
    access: { allow: settings.metricsAllow, token: settings.metricsToken },
  });
  await installAuth(app, sessionSecret);
  const configBus =
    givenBus?.(app.log) ??
    (await openConfigChangeBus({ redisUrl: settings.redisUrl }, { log: app.log, prefix: deliveryPrefix }));
  app.decorate('configBus', configBus);
  app.addHook('onClose', () => configBus.close());

  if (role !== 'api') {
    const edge = await installEdge(app, { deliveryPrefix, ...edgeOptions });
    serveEdgeRaw = (req, res) => edge.serveRaw(req, res);
    await registerSellersJson(app);
  }

  let consoleServed = false;
  if (role !== 'edge') {
    // the console's pacing reads the delivery counters: the edge's own in role all; in role api a
    // reader of the shared counters that never serves (no timers: it exchanges nothing, only reads)
    if (role === 'api') {
      const reader = await openDeliveryCounters(
        { redisUrl: settings.redisUrl },
        {
          log: app.log,
          timers: false,
          clock: () => clock.now(),
          prefix: deliveryPrefix,
        },
      );
      app.addHook('onClose', () => reader.close());
      app.decorate('deliveryCounters', reader);
    } else {
      app.decorate('deliveryCounters', app.edge.pacing.delivery);
    }
    await registerApiRoutes(app);
    registerCreativePreview(app);
    consoleServed = await registerConsole(app, settings.webDist);
    // after a config write (its transaction committed: the answer is out), every edge process hears of
    // it at once; writes that did not move the version cost the edge one version read
    app.addHook('onResponse', async (request, reply) => {
      if (
        request.method === 'GET' ||
        request.method === 'HEAD' ||
        request.method === 'OPTIONS' ||
        reply.statusCode >= 400 ||
        !request.url.startsWith('/api/')
      )
        return;
      try {
        configBus.publish(await readConfigVersion(store.db));
      } catch (error) {
        request.log.warn({ err: error }, 'config change not published: edge processes rely on polling');
      }
    });
  }

  app.setNotFoundHandler((request, reply) => {
    if (consoleServed && wantsConsole(request)) return sendConsole(request, reply);
    return reply.code(404).send({ message: 'Not found' });
  });

  if (role !== 'edge') {
    const alertChecks = createAlertChecks(app);
    app.decorate('alerts', alertChecks);
    const dynamicFloors = createDynamicFloorJob(app);
    app.decorate('dynamicFloors', dynamicFloors);
    // The api role's housekeeping, at start and hourly on the app's clock; each job logs its own failure.
    const jobs: Record<string, () => Promise<unknown>> = {
      'expired sessions': () => deleteExpiredSessions(store.db, new Date(clock.now()).toISOString()),
      'spent and expired password-reset links': () => deleteStalePasswordResets(store.db, clock.now()),
      'sign-in log past its keeping': () => pruneSignInLog(store.db, clock.now()),
      'sent notifications past their keeping': () =>
        deleteSentDeliveries(store.db, new Date(clock.now() - OUTBOX_KEEP_SENT_MS).toISOString()),
      // tenants' "Delete old creatives automatically"
      'old creatives': async () => {
        const ids = await archiveOldCreatives(store, app.stats, clock.now());
        if (ids.length) app.log.info({ creatives: ids }, `archived ${ids.length} old creatives`);
      },
    };
    const housekeeping = periodicPass(
      () =>
        Promise.all(
          Object.entries(jobs).map(([name, job]) =>
            job().catch((error: unknown) => app.log.error({ err: error }, `housekeeping: ${name} failed`)),
          ),
        ),
      [],
      (error) => app.log.error({ err: error }, 'housekeeping failed'),
    );
    let stopSchedules: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      await housekeeping.start(HOUR_MS);
      // the outbox's e-mails and webhooks are sent by the api role (notify/outbox.ts)
      void outbox.start();
      // saved reports' schedules, a run missed while no api process ran first (schedules/scheduleRunner.ts)
      stopSchedules = startScheduleLoop(app);
      // tenants' alert rules are checked by the api role, each due rule by one process (alerts/alertChecks.ts)
      void alertChecks.start();
      // dynamic channels' floors from their clearing prices, each due channel by one process (floors/dynamicFloors.ts)
      void dynamicFloors.start();
    });
    // a sweep under way ends before the stores it writes close
    app.addHook('preClose', () => housekeeping.stop());
    // a scheduled run under way ends before the stores it writes close
    app.addHook('preClose', async () => stopSchedules?.());
    // a check under way ends before the stores it reads close
    app.addHook('preClose', () => alertChecks.stop());
    app.addHook('preClose', () => dynamicFloors.stop());
  }
  return app;
}
