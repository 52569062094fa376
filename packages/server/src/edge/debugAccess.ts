import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { tenantIdOf } from '../auth/tenancy.js';
import { findUserByToken } from './userByToken.js';

/**
 * Who asks for a decision trace: the signed-in user (session cookie) or the owner of the profile's
 * API token (`X-Api-Token` header or `token` query parameter). Admins see every tenant; demand users
 * their own. Only debug requests come here: the hot path never reads the config database.
 */
export async function debugCaller(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<{ tenantId: number | null } | null> {
  const session = await app.sessions.resume(request, reply);
  let user = session?.user ?? null;
  if (!user) {
    const header = request.headers['x-api-token'];
    const token = (Array.isArray(header) ? header[0] : header) ?? (request.query as Record<string, string | undefined>).token;
    if (token && token.length >= 16 && token.length <= 256) user = (await findUserByToken(app.store.db, token)) ?? null;
  }
  if (!user || (user.type !== 'admin' && user.type !== 'demand')) return null;
  return { tenantId: tenantIdOf(user) };
}
