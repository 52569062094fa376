import fastifyCookie from '@fastify/cookie';
import { type FastifyInstance } from 'fastify';
import { forbidden } from '../http/errors.js';
import { checkRouteGuard, guardOf, passesGuard } from './guards.js';

/**
 * Cookies, the guard check of every /api route at registration, and the guard enforcement of every
 * request: the session is resumed from the cookie into `request.auth`, then the route's guard decides.
 * A refused caller gets 403 `{message:'Forbidden'}` (the console then goes to /login).
 */
export async function installAuth(app: FastifyInstance, sessionSecret: string): Promise<void> {
  await app.register(fastifyCookie, { secret: sessionSecret, hook: 'onRequest' });
  app.decorateRequest('auth', null);
  app.decorate('guardedRoutes', []);
  app.addHook('onRoute', (route) => checkRouteGuard(route, app.guardedRoutes));
  app.addHook('onRequest', async (request, reply) => {
    const guard = guardOf(request);
    if (!guard) return;
    request.auth = await app.sessions.resume(request, reply);
    if (!passesGuard(guard, request.auth)) throw forbidden();
  });
}
