import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError } from '../http/errors.js';
import { type Store } from '../store/db.js';
import { type AppMetrics, PROMETHEUS_CONTENT_TYPE } from './metrics.js';
import { type MetricsAccess, metricsGate } from './metricsAccess.js';

/** Operator endpoints outside /api: liveness with a real store round-trip, and Prometheus metrics. */
export function registerOpsRoutes(
  app: FastifyInstance,
  { store, metrics, access }: { store: Store; metrics: AppMetrics; access: MetricsAccess },
): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await sql`select 1`.execute(store.db);
      // delivery control: Redis down is shown, not failed on: the edge keeps serving on local counters
      return app.hasDecorator('edge')
        ? { status: 'ok', delivery: app.edge.pacing.delivery.health() }
        : { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: store unreachable');
      return reply.code(503).send({ status: 'error', message: 'Store unreachable' });
    }
  });

  const mayScrape = metricsGate(access);
  app.get('/metrics', async (request, reply) => {
    if (!mayScrape(request)) {
      throw new HttpError(
        403,
        'Metrics are restricted: scrape from an address in ADPLANE_METRICS_ALLOW or send Authorization: Bearer <ADPLANE_METRICS_TOKEN>',
      );
    }
    return reply.type(PROMETHEUS_CONTENT_TYPE).send(await metrics.render());
  });

  // Count and time every answer by its route pattern (not the raw URL, which would explode the label set).
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}
