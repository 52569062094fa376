import { type FastifyInstance } from 'fastify';
import { SwitchQuery } from '@adplane/shared';
import { loadAuthUser } from '../auth/authUser.js';
import { requireAuth } from '../auth/guards.js';
import { forbidden, notFound, parseInput } from '../http/errors.js';
import { setSessionActor } from '../store/sessions.js';
import { canSignIn, findUserInTenant } from '../store/users.js';

/**
 * Impersonation. An admin (or a session an admin is already impersonating through) may act as any
 * active non-admin user: `?type=demand&id=7`. `?type=admin&id=<the admin's id>` ends it. Browsers
 * follow a link here and are sent to `/`; a client asking for JSON gets the new AuthUser.
 */
export async function switchRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/switch', { config: { guard: 'auth', changesState: true } }, async (request, reply) => {
    const auth = requireAuth(request);
    const realAdminId = auth.adminId ?? (auth.user.type === 'admin' ? auth.user.id : null);
    if (realAdminId === null) throw forbidden();
    const { type, id } = parseInput(SwitchQuery, request.query);

    let actingId: number;
    let adminId: number | null;
    if (type === 'admin') {
      // Back to the admin's own seat; an admin never acts as another admin.
      if (id !== realAdminId) throw forbidden('An admin cannot act as another admin');
      actingId = realAdminId;
      adminId = null;
    } else {
      const target = await findUserInTenant(app.store.db, null, id);
      if (!target || target.type !== type || !canSignIn(target)) throw notFound(`No active ${type} user with id ${id}`);
      actingId = target.id;
      adminId = realAdminId;
    }
    await setSessionActor(app.store.db, auth.sessionId, actingId, adminId);
    request.log.info({ adminId: realAdminId, actingId }, adminId === null ? 'impersonation ended' : 'impersonating');

    if (request.headers.accept?.includes('application/json')) {
      const acting = actingId === auth.user.id ? auth.user : await findUserInTenant(app.store.db, null, actingId);
      if (!acting) throw notFound();
      return loadAuthUser(app.store.db, app.settings, acting, adminId);
    }
    return reply.redirect('/', 302);
  });
}
