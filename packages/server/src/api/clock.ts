import { type FastifyInstance } from 'fastify';
import { type ServerClock } from '@adplane/shared';

/**
 * GET /api/clock: the server's time (`app.clock`), for the console to tell which hour of a report by
 * hour is still being counted (its numbers partial) by the clock the counts are kept on, not the
 * browser's. Any signed-in user: it tells nothing but the time.
 */
export async function clockRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/clock', { config: { guard: 'auth' } }, async (): Promise<ServerClock> => ({ now: app.clock.now() }));
}
