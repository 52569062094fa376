import { type Clock } from './clock.js';
import { type LoginThrottle } from './auth/loginThrottle.js';
import { type Mailer } from './mail/mailer.js';
import { type Outbox } from './notify/outbox.js';
import { type GuardedRoute } from './auth/guards.js';
import { type Sessions } from './auth/sessions.js';
import { type AppMetrics } from './ops/metrics.js';
import { type Settings } from './settings.js';
import { type ReportLines } from './stats/reportQueue.js';
import { type StatsStore } from './stats/statsStore.js';
import { type Store } from './store/db.js';

/**
 * What buildApp decorates the Fastify instance with, for route files: `app.store.db` for repositories,
 * `app.settings`, `app.clock`, `app.sessions`, `app.metrics`, `app.stats`, `app.mailer`. Routes never open their own connections.
 */
declare module 'fastify' {
  interface FastifyInstance {
    /** What the app reads the time from (clock.ts): the edge, delivery control, sessions, reports. */
    clock: Clock;
    store: Store;
    settings: Settings;
    sessions: Sessions;
    loginThrottle: LoginThrottle;
    metrics: AppMetrics;
    /** The server's outgoing mail (mail/mailer.ts); `mailer.on` is false when no SMTP server is set. */
    mailer: Mailer;
    /** Outgoing e-mails and webhook calls, sent with retries by the api role (notify/outbox.ts). */
    outbox: Outbox;
    /** The stats store: the edge writes hourly rows into it (StatsSink), reports read it. */
    stats: StatsStore;
    /** The lines report files and runs wait in (stats/reportQueue.ts). */
    reportLines: ReportLines;
    /** Every /api route with its guard, filled as routes register (docs/routes.md is rendered from it). */
    guardedRoutes: GuardedRoute[];
  }
}
