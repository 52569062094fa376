import { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { type Guard, requireAuth } from '../auth/guards.js';
import { parseInput } from '../http/errors.js';
import { isReferenced, usedByOf } from '../resources/usedBy.js';

const IdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});

/**
 * GET {api}/:id/usedBy for every kind that others reference (the registry's refs, not a list per
 * kind): who uses this row, grouped by kind, as far as the caller may see (resources/usedBy.ts).
 */
export async function usedByRoutes(app: FastifyInstance): Promise<void> {
  for (const def of Object.values(RESOURCES)) {
    if (!isReferenced(def)) continue;
    const guard: Guard = def.audience === 'sdk' ? 'sdk' : 'auth';
    app.get(`${def.api}/:id/usedBy`, { config: { guard }, preHandler: entitled(app, def.kind) }, async (request) => {
      const auth = requireAuth(request);
      return usedByOf(
        app.store,
        def,
        { user: auth.user, adminId: auth.adminId },
        parseInput(IdParams, request.params).id,
      );
    });
  }
}
