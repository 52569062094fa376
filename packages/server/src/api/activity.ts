import { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ACTIVITY_ACTIONS } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { forbidden, parseInput } from '../http/errors.js';
import { listActivity } from '../store/activity.js';

const ActivityQuery = z.object({
  kind: z
    .string()
    .regex(/^[a-z]+$/, 'must be a resource kind')
    .optional(),
  entityId: z.coerce.number().int().positive().optional(),
  action: z.enum(ACTIVITY_ACTIONS).optional(),
  userId: z.coerce.number().int().positive().optional(),
  beforeId: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** The User Activity log (CTVMediaV2V edition): admins read every tenant's, a demand user its own tenant's. */
export async function activityRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/activity', { config: { guard: 'auth' }, preHandler: entitled(app, 'activity') }, async (request) => {
    const { user } = requireAuth(request);
    if (user.type !== 'admin' && user.type !== 'demand') throw forbidden();
    const query = parseInput(ActivityQuery, request.query);
    return listActivity(app.store.db, { tenantId: tenantIdOf(user), ...query });
  });
}
