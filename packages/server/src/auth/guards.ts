import { type FastifyRequest, type HTTPMethods, type RouteOptions } from 'fastify';
import { type UserType } from '@adplane/shared';
import { forbidden } from '../http/errors.js';
import { type User } from '../store/users.js';

export { tenantIdOf } from './tenancy.js';

/**
 * Who may call an /api route: 'public' anyone; 'auth' any signed-in user; 'admin',
 * 'demand', 'sdk' only that user type (the acting user, i.e. the impersonated one while an admin
 * impersonates). Every /api route declares one: `app.get(url, { config: { guard: 'auth' } }, handler)`.
 */
const GUARDS = ['public', 'auth', 'admin', 'demand', 'sdk'] as const;
export type Guard = (typeof GUARDS)[number];

/** The caller of a request, set by the auth hook before the handler runs (null when signed out). */
export interface AuthContext {
  /** The acting user. */
  user: User;
  /** The admin behind an impersonation, else null. */
  adminId: number | null;
  /** Id of the session row; '' for a caller by API key, which has no session. */
  sessionId: string;
  /** The API key of an `Authorization: Bearer` caller (auth/apiKeys.ts), else absent. */
  apiKeyId?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    guard?: Guard;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export interface GuardedRoute {
  method: string;
  url: string;
  guard: Guard;
}

const isApiUrl = (url: string) => url === '/api' || url.startsWith('/api/');

/**
 * Called for every route as it is registered: an /api route without a guard stops the program at
 * start. Records each /api route so docs/routes.md can list them.
 */
export function checkRouteGuard(
  route: Pick<RouteOptions, 'method' | 'url' | 'config'>,
  registry: GuardedRoute[],
): void {
  if (!isApiUrl(route.url)) return;
  const guard = (route.config as { guard?: unknown } | undefined)?.guard;
  const methods = ([] as HTTPMethods[]).concat(route.method as HTTPMethods | HTTPMethods[]);
  if (!GUARDS.includes(guard as Guard)) {
    throw new Error(`Route ${methods.join(',')} ${route.url} must declare config.guard (one of ${GUARDS.join(', ')})`);
  }
  for (const method of methods) {
    // HEAD twins of GET routes are added by Fastify itself; the docs list the GET.
    if (method === 'HEAD') continue;
    if (!registry.some((r) => r.method === method && r.url === route.url))
      registry.push({ method, url: route.url, guard: guard as Guard });
  }
}

const GUARD_TYPE: Partial<Record<Guard, UserType>> = { admin: 'admin', demand: 'demand', sdk: 'sdk' };

/** Whether a caller passes a guard. */
export function passesGuard(guard: Guard, auth: AuthContext | null): boolean {
  if (guard === 'public') return true;
  if (!auth) return false;
  const type = GUARD_TYPE[guard];
  return type === undefined || auth.user.type === type;
}

export function guardOf(request: FastifyRequest): Guard | undefined {
  return request.routeOptions.config?.guard;
}

/** The caller of a guarded route; throws 403 when signed out (for handlers of 'public' or 'auth' routes). */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw forbidden();
  return request.auth;
}
