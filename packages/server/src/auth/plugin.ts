import fastifyCookie from '@fastify/cookie';
import { type FastifyInstance } from 'fastify';
import { forbidden } from '../http/errors.js';
import { bearerOf, createApiKeyAuth } from './apiKeys.js';
import { checkRouteGuard, guardOf, passesGuard } from './guards.js';
import { createTwoFactor, type TwoFactor } from './twoFactor.js';
import { type TwoFactorKeys, twoFactorKeys } from './twoFactorSecrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Two-factor sign-in (auth/twoFactor.ts). */
    twoFactor: TwoFactor;
    /** Its keys, derived from the session secret (auth/twoFactorSecrets.ts). */
    twoFactorKeys: TwoFactorKeys;
  }
}

/**
 * Cookies, the guard check of every /api route at registration, and the guard enforcement of every
 * request: the caller is read into `request.auth`, from an `Authorization: Bearer` API key when the
 * request has one (auth/apiKeys.ts), else by resuming the session of its cookie; then the route's
 * guard decides. Also the two-factor sign-in service, whose keys come from the same secret.
 * A refused caller gets 403 `{message:'Forbidden'}` (the console then goes to /login).
 */
export async function installAuth(app: FastifyInstance, sessionSecret: string): Promise<void> {
  await app.register(fastifyCookie, { secret: sessionSecret, hook: 'onRequest' });
  app.decorateRequest('auth', null);
  const keys = twoFactorKeys(sessionSecret);
  app.decorate('twoFactorKeys', keys);
  app.decorate('twoFactor', createTwoFactor({ db: app.store.db, keys, now: () => app.clock.now() }));
  app.decorate('guardedRoutes', []);
  app.addHook('onRoute', (route) => checkRouteGuard(route, app.guardedRoutes));
  const byApiKey = createApiKeyAuth({
    db: app.store.db,
    now: () => app.clock.now(),
    perMinute: app.settings.apiKeyRatePerMinute,
    onTouchFailed: (error) => app.log.warn({ err: error }, 'API key last-used time not written'),
  });
  app.addHook('onRequest', async (request, reply) => {
    const guard = guardOf(request);
    if (!guard) return;
    const key = bearerOf(request);
    request.auth = key === null ? await app.sessions.resume(request, reply) : await byApiKey(request, key);
    if (!passesGuard(guard, request.auth)) throw forbidden();
  });
}
