import { type FastifyInstance } from 'fastify';
import { bulkActionsOf, RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { bulkChange } from '../resources/bulkService.js';

/**
 * POST {api}/bulk for every tenant kind (entities and accounts): pause, activate, archive, restore or
 * set the targeting of the selected rows, all or nothing (resources/bulkService.ts).
 */
export async function bulkRoutes(app: FastifyInstance): Promise<void> {
  for (const def of Object.values(RESOURCES)) {
    if (bulkActionsOf(def).length === 0) continue;
    app.post(`${def.api}/bulk`, { config: { guard: 'auth' }, preHandler: entitled(app, def.kind) }, async (request) => {
      const auth = requireAuth(request);
      return bulkChange(app.store, def, { user: auth.user, adminId: auth.adminId }, request.body);
    });
  }
}
