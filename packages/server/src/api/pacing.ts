import { type FastifyInstance } from 'fastify';
import { type Limit, type PacingAnswer, PacingQuery, RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { campaignPacing, limitsOf, type PacedCampaign } from '../delivery/campaignPacing.js';
import { createdAtMinute } from '../delivery/pacing.js';
import { type DeliveryCounters } from '../delivery/types.js';
import { forbidden, HttpError, parseInput } from '../http/errors.js';
import { accessTo } from '../resources/access.js';
import { getAccountById } from '../store/accounts.js';
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

      const zones = new Map<number, number>();
      for (const tenantId of new Set(rows.map((r) => r.tenantId))) {
        if (tenantId !== null) zones.set(tenantId, (await getAccountById(app.store.db, tenantId))?.timezone ?? 0);
      }
      const campaigns: PacedCampaign[] = rows.map((r) => ({
        id: r.id,
        status: r.status,
        archived: r.archived,
        startDate: String(r.data.startDate ?? ''),
        endDate: typeof r.data.endDate === 'string' ? r.data.endDate : null,
        dailyBudget: (r.data.dailyBudget ?? 'unlimited') as Limit,
        totalBudget: (r.data.totalBudget ?? 'unlimited') as Limit,
        pacing: r.data.pacing === 'even' ? 'even' : 'asap',
        timezone: r.tenantId !== null ? (zones.get(r.tenantId) ?? 0) : 0,
        // its first day is paced from its creation (delivery/pacing.ts paceWindow), as the edge paces it
        createdAtMinute: createdAtMinute(r.createdAt),
      }));
      const at = app.clock.now();
      const spend = await app.deliveryCounters.readCampaignSpend(campaigns.map(limitsOf), at);
      const byId = new Map(campaigns.map((c, i) => [c.id, campaignPacing(c, spend[i]!, at)]));
      return { at, campaigns: ids.map((id) => byId.get(id)!) };
    },
  );
}
