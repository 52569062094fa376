import { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { type Guard, requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { parseInput } from '../http/errors.js';
import { getAccountDto } from '../resources/accountService.js';
import { getOne } from '../resources/entityService.js';
import { listActivity } from '../store/activity.js';
import { isEntityKind } from '../store/entityTables.js';

const IdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});

const HistoryQuery = z.object({
  beforeId: z.coerce.number().int('must be an id').positive('must be an id').optional(),
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be 1 to 200')
    .max(200, 'must be 1 to 200')
    .default(50),
});

/**
 * GET {api}/:id/history for every kind, in every edition: the row's own changes from the activity
 * log, newest first. The whole User Activity log stays a CTVMediaV2V page (api/activity.ts); a row's
 * own history is for whoever may read the row: the row must be visible to the caller (else 404, as
 * its own GET), and the entries are read in the caller's tenant (admins: every tenant's).
 */
export async function historyRoutes(app: FastifyInstance): Promise<void> {
  for (const def of Object.values(RESOURCES)) {
    if (def.storage === 'entity' && !isEntityKind(def.kind)) continue;
    const guard: Guard =
      def.audience === 'sdk' ? 'sdk' : def.audience === 'admin' && def.storage === 'account' ? 'admin' : 'auth';
    app.get(`${def.api}/:id/history`, { config: { guard }, preHandler: entitled(app, def.kind) }, async (request) => {
      const auth = requireAuth(request);
      const actor = { user: auth.user, adminId: auth.adminId };
      const id = parseInput(IdParams, request.params).id;
      const query = parseInput(HistoryQuery, request.query);
      if (def.storage === 'account') await getAccountDto(app.store, def, actor, id);
      else await getOne(app.store, def, actor, id);
      return listActivity(app.store.db, { tenantId: tenantIdOf(auth.user), kind: def.kind, entityId: id, ...query });
    });
  }
}
