import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { type Store } from '../store/db.js';
import { type AppMetrics, PROMETHEUS_CONTENT_TYPE } from './metrics.js';

/** Operator endpoints outside /api: liveness with a real store round-trip, and Prometheus metrics. */
export function registerOpsRoutes(app: FastifyInstance, { store, metrics }: { store: Store; metrics: AppMetrics }): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await sql`select 1`.execute(store.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: store unreachable');
      return reply.code(503).send({ status: 'error', message: 'Store unreachable' });
    }
  });

  app.get('/metrics', async (_request, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(metrics.registry.render()));

  // Count every answer by its route pattern (not the raw URL, which would explode the label set).
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequests.inc({
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
    });
  });
}
