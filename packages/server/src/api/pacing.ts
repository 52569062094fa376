import { type FastifyInstance } from 'fastify';
import { type PacingAnswer, PacingQuery, RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { type DeliveryCounters } from '../delivery/types.js';
import { forbidden, HttpError, parseInput } from '../http/errors.js';
import { accessTo } from '../resources/access.js';
import { pacingOfCampaigns } from '../resources/pacedCampaigns.js';
import { getEntities } from '../store/entities.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The delivery counters the console reads pacing from: the edge's own in role all, a reader of the
     * shared counters in role api (Redis when REDIS_URL is set; in-process there is nothing counted).
     */
    deliveryCounters: DeliveryCounters;
  }
}

/**
 * GET /api/demand/campaigns/pacing?ids=1,2,3: each campaign's pacing from the live delivery counters
 * (spent today, target so far, projected, total spent, state, spend per hour of the tenant's day).
 * Scoped as the campaigns are: a demand user its tenant's, an adv user the campaigns assigned to it.
 */
export async function pacingRoutes(app: FastifyInstance): Promise<void> {
  const def = RESOURCES.campaigns;
  app.get(
    `${def.api}/pacing`,
    { config: { guard: 'auth' }, preHandler: entitled(app, 'campaigns') },
    async (request): Promise<PacingAnswer> => {
      const { user } = requireAuth(request);
      const access = accessTo(def, user);
      if (access.level === 'none') throw forbidden(`${def.plural} are not open to you`);
      const { ids } = parseInput(PacingQuery, request.query);
      const rows = await getEntities(app.store.db, 'campaigns', access.scope, ids);
      const found = new Set(rows.map((r) => r.id));
      const missing = ids.findIndex((id) => !found.has(id));
      if (missing >= 0) throw new HttpError(404, `ids: ${def.label} ${ids[missing]} not found`, 'ids');

      const at = app.clock.now();
      const paced = await pacingOfCampaigns(app.store.db, app.deliveryCounters, rows, at);
      const byId = new Map(paced.map((p) => [p.campaignId, p]));
      return { at, campaigns: ids.map((id) => byId.get(id)!) };
    },
  );
}
