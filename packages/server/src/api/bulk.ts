import { type FastifyInstance } from 'fastify';
import { bulkActionsOf, LIST_KINDS, LIST_OF_ROWS, RESOURCES } from '@adplane/shared';
import { entitled, requireEntitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { addValuesToLists, bulkChange } from '../resources/bulkService.js';

/**
 * POST {api}/bulk for every tenant kind (entities and accounts): pause, activate, archive, restore,
 * set the targeting or add to a list of the selected rows, all or nothing (resources/bulkService.ts).
 * POST {list api}/add: values seen in traffic (apps, domains, publishers) into app, publisher or
 * creative lists, all or nothing.
 */
export async function bulkRoutes(app: FastifyInstance): Promise<void> {
  for (const def of Object.values(RESOURCES)) {
    if (bulkActionsOf(def).length === 0) continue;
    app.post(`${def.api}/bulk`, { config: { guard: 'auth' }, preHandler: entitled(app, def.kind) }, async (request) => {
      const auth = requireAuth(request);
      // the lists that hold these rows may be closed to this edition (creative lists are V2V only)
      const listKind = LIST_OF_ROWS[def.kind];
      if (listKind && (request.body as { action?: unknown } | null)?.action === 'addToList')
        await requireEntitled(app, auth.user, listKind);
      return bulkChange(app.store, def, { user: auth.user, adminId: auth.adminId }, request.body);
    });
  }
  for (const kind of LIST_KINDS) {
    app.post(
      `${RESOURCES[kind].api}/add`,
      { config: { guard: 'auth' }, preHandler: entitled(app, kind) },
      async (request) => {
        const auth = requireAuth(request);
        return addValuesToLists(app.store, kind, { user: auth.user, adminId: auth.adminId }, request.body);
      },
    );
  }
}
