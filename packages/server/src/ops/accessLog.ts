import { type FastifyInstance } from 'fastify';

/**
 * The access log: one line per answered request (method, URL, status, time) at debug, or at info
 * when the operator asks for it (ADPLANE_ACCESS_LOG=1). Fastify's own per-request lines ("incoming
 * request", "request completed") are off, so that at info the terminal shows start-up, warnings and
 * errors only. Edge requests answered from the raw server (/vast, /ev) are not logged here: they are
 * counted in /metrics and the stats store.
 */
export function installAccessLog(app: FastifyInstance, atInfo: boolean): void {
  app.addHook('onResponse', async (request, reply) => {
    // Fastify's logger is pino, which can say whether a level is on (its type does not show it)
    const log = request.log as typeof request.log & { isLevelEnabled(level: string): boolean };
    if (atInfo ? !log.isLevelEnabled('info') : !log.isLevelEnabled('debug')) return;
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (atInfo) log.info(line, 'request');
    else log.debug(line, 'request');
  });
}
