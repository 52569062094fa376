import { type CampaignPacing, type Limit } from '@adplane/shared';
import { campaignPacing, limitsOf, type PacedCampaign } from '../delivery/campaignPacing.js';
import { createdAtMinute } from '../delivery/pacing.js';
import { type DeliveryCounters } from '../delivery/types.js';
import { getAccountById } from '../store/accounts.js';
import { type Store } from '../store/db.js';
import { type EntityRow } from '../store/entities.js';

/**
 * Campaign rows' pacing now, from the delivery counters (docs/delivery.md, "Pacing state"): what the
 * console's pacing column and the built-in pacing alert both read. Each campaign's day is its
 * tenant's day; its first day is paced from its creation, as the edge paces it.
 */
export async function pacingOfCampaigns(
  db: Store['db'],
  counters: DeliveryCounters,
  rows: readonly EntityRow[],
  at: number,
): Promise<CampaignPacing[]> {
  const zones = new Map<number, number>();
  for (const tenantId of new Set(rows.map((r) => r.tenantId))) {
    if (tenantId !== null) zones.set(tenantId, (await getAccountById(db, tenantId))?.timezone ?? 0);
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
    createdAtMinute: createdAtMinute(r.createdAt),
  }));
  const spend = await counters.readCampaignSpend(campaigns.map(limitsOf), at);
  return campaigns.map((c, i) => campaignPacing(c, spend[i]!, at));
}
