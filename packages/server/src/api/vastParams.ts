import { type FastifyInstance } from 'fastify';
import { tagMacrosFor } from '../auth/authUser.js';
import { requireAuth } from '../auth/guards.js';

/** Macros of the acting user's VAST tags (standard list + the tenant's custom tag parameters). */
export async function vastParamsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/demand/vastParams', { config: { guard: 'auth' } }, async (request) => {
    return (await tagMacrosFor(app.store.db, requireAuth(request).user)).vastParams;
  });

  app.get('/api/demand/vast2Params', { config: { guard: 'auth' } }, async (request) => {
    return (await tagMacrosFor(app.store.db, requireAuth(request).user)).vast2Params;
  });
}
