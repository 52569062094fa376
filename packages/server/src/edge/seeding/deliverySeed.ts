import { STATS_TABLE, type StatsStore } from '../../stats/statsStore.js';
import { hourOf } from '../counters/hourlyCounters.js';
import { tenantDay } from '../../delivery/pacing.js';
import {
  type CampaignLimits,
  type CountFloors,
  type DealLimits,
  type DeliveryCounters,
  type DeliveryLog,
  type TagLimits,
} from '../../delivery/types.js';

/**
 * What delivery control counted before this process started, read back from the stats store: each
 * campaign's spend today (in its tenant's day) and in total, each demand tag's impressions and calls
 * today, each capped supply deal's impressions today and in total. The in-process counters start empty at every start (and a Redis without persistence may
 * have lost its data): without this, a restart would hand every campaign its daily and total budget
 * again. The counts only raise the shared ones (`raiseCounts`); what the counters had not flushed to
 * the stats store before the restart (at most a flush interval, 5 s) is the margin. A store that
 * cannot answer leaves the counts as they are and says so: the edge starts anyway.
 */
export interface SeedInput {
  campaigns: readonly CampaignLimits[];
  tags: readonly TagLimits[];
  /** Capped supply deals, with the tenant and OpenRTB deal id their impressions are counted under. */
  deals?: readonly { deal: DealLimits; tenantId: number; dealId: string }[];
}

/**
 * Supply deals' impressions by tenant and deal id (`<tenant>|<deal id>`): those of demand tags' bids
 * (a DSP deal's are our campaigns'), since `since` or in all.
 */
async function dealImps(
  stats: Pick<StatsStore, 'select'>,
  dealIds: readonly string[],
  since: number | null,
): Promise<Map<string, number>> {
  const list = dealIds.map((d) => `'${d.replaceAll("'", "''")}'`).join(', ');
  const hour = since === null ? '' : ` AND hour >= '${hourOf(since)}'`;
  const rows = await stats.select(
    `SELECT tenant_id AS t, deal_id AS d, sum(imps) AS n FROM ${STATS_TABLE} WHERE tag_id > 0 AND deal_id IN (${list})${hour} GROUP BY tenant_id, deal_id`,
  );
  return new Map(rows.map((r) => [`${Number(r.t)}|${String(r.d)}`, Number(r.n ?? 0)]));
}

async function sums(
  stats: Pick<StatsStore, 'select'>,
  column: 'campaign_id' | 'tag_id',
  metrics: readonly string[],
  since: number | null,
): Promise<Map<number, number[]>> {
  const where = since === null ? `${column} > 0` : `${column} > 0 AND hour >= '${hourOf(since)}'`;
  const rows = await stats.select(
    `SELECT ${column} AS id, ${metrics.map((m, i) => `sum(${m}) AS m${i}`).join(', ')} FROM ${STATS_TABLE} WHERE ${where} GROUP BY ${column}`,
  );
  return new Map(rows.map((r) => [Number(r.id), metrics.map((_, i) => Number(r[`m${i}`] ?? 0))]));
}

export async function countFloors(
  stats: Pick<StatsStore, 'select'>,
  input: SeedInput,
  now: number,
): Promise<CountFloors> {
  const zones = new Set([...input.campaigns.map((c) => c.timezone), ...input.tags.map((t) => t.timezone)]);
  const today = new Map<number, { campaigns: Map<number, number[]>; tags: Map<number, number[]> }>();
  for (const zone of zones) {
    const since = tenantDay(now, zone).start;
    today.set(zone, {
      campaigns: input.campaigns.some((c) => c.timezone === zone)
        ? await sums(stats, 'campaign_id', ['revenue'], since)
        : new Map(),
      tags: input.tags.some((t) => t.timezone === zone)
        ? await sums(stats, 'tag_id', ['imps', 'demand_calls'], since)
        : new Map(),
    });
  }
  const deals = input.deals ?? [];
  const dealIds = [...new Set(deals.map((d) => d.dealId))];
  const dealsToday = new Map<number, Map<string, number>>();
  for (const zone of new Set(deals.filter((d) => d.deal.dailyImpCap !== 'unlimited').map((d) => d.deal.timezone)))
    dealsToday.set(zone, await dealImps(stats, dealIds, tenantDay(now, zone).start));
  const dealTotals = deals.some((d) => d.deal.impCap !== 'unlimited')
    ? await dealImps(stats, dealIds, null)
    : new Map<string, number>();
  const limited = input.campaigns.filter((c) => c.totalBudget !== 'unlimited');
  const totals = limited.length ? await sums(stats, 'campaign_id', ['revenue'], null) : new Map<number, number[]>();
  return {
    campaigns: input.campaigns
      .map((campaign) => ({
        campaign,
        today: today.get(campaign.timezone)!.campaigns.get(campaign.id)?.[0] ?? 0,
        total: campaign.totalBudget === 'unlimited' ? 0 : (totals.get(campaign.id)?.[0] ?? 0),
      }))
      .filter((c) => c.today > 0 || c.total > 0),
    tags: input.tags
      .map((tag) => {
        const [imps = 0, calls = 0] = today.get(tag.timezone)!.tags.get(tag.id) ?? [];
        return { tag, imps, calls };
      })
      .filter((t) => t.imps > 0 || t.calls > 0),
    deals: deals
      .map(({ deal, tenantId, dealId }) => ({
        deal,
        today: dealsToday.get(deal.timezone)?.get(`${tenantId}|${dealId}`) ?? 0,
        total: deal.impCap === 'unlimited' ? 0 : (dealTotals.get(`${tenantId}|${dealId}`) ?? 0),
      }))
      .filter((d) => d.today > 0 || d.total > 0),
  };
}

/** Reads the floors and raises the counters to them; the number of campaigns and tags raised (0 when the store failed). */
export async function seedDeliveryCounts(
  delivery: Pick<DeliveryCounters, 'raiseCounts'>,
  stats: Pick<StatsStore, 'select'> | null,
  input: SeedInput,
  log: Pick<DeliveryLog, 'warn'>,
  now: number,
): Promise<number> {
  if (!stats || (!input.campaigns.length && !input.tags.length && !input.deals?.length)) return 0;
  try {
    const floors = await countFloors(stats, input, now);
    await delivery.raiseCounts(floors, now);
    return floors.campaigns.length + floors.tags.length + (floors.deals?.length ?? 0);
  } catch (err) {
    log.warn(
      { err },
      "delivery: today's spend and counts could not be read back from the stats store; budgets count from what the counters hold",
    );
    return 0;
  }
}
