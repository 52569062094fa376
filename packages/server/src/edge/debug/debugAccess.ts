import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { tenantIdOf } from '../../auth/tenancy.js';
import { isSameOrigin, sameOriginHeaders } from '../../http/sameOrigin.js';
import { findUserByToken } from './userByToken.js';

/**
 * Who asks for a decision trace: the signed-in user (session cookie) or the owner of the profile's
 * API token (`X-Api-Token` header or `token` query parameter). Admins see every tenant; demand users
 * their own. Only debug requests come here: the hot path never reads the config database.
 */
export async function debugCaller(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ tenantId: number | null } | null> {
  const session = await app.sessions.resume(request, reply);
  let user = session?.user ?? null;
  if (!user) {
    const header = request.headers['x-api-token'];
    const token =
      (Array.isArray(header) ? header[0] : header) ?? (request.query as Record<string, string | undefined>).token;
    if (token && token.length >= 16 && token.length <= 256) user = (await findUserByToken(app.store.db, token)) ?? null;
  }
  if (!user || (user.type !== 'admin' && user.type !== 'demand')) return null;
  return { tenantId: tenantIdOf(user) };
}

/**
 * The CORS headers of an answer that carries a decision trace, or null when the request fails the
 * /api origin rule (http/sameOrigin.ts) and gets no trace. A trace shows prices and demand, and the
 * session cookie rides along on a request from a sibling origin of the same site, so it goes only to
 * the console's own origin or to no page at all (a typed URL, a script with the API token), and names
 * only the console's origin, with credentials: never a reflected Origin. The plain VAST answers keep
 * the players' CORS (cors.ts).
 */
export function traceCors(request: FastifyRequest, publicHost: string): Record<string, string> | null {
  if (!isSameOrigin(request, publicHost)) return null;
  const origin = request.headers.origin;
  const own =
    typeof origin === 'string' && sameOriginHeaders({ origin }, [`${request.protocol}://${request.host}`, publicHost]);
  return own
    ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' }
    : { vary: 'Origin' };
}
