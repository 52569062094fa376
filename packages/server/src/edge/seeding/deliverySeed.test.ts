import { describe, expect, it } from 'vitest';
import { countFloors, seedDeliveryCounts } from './deliverySeed.js';
import { type CampaignLimits, type CountFloors, type TagLimits } from '../../delivery/types.js';

const campaign = (
  id: number,
  timezone: number,
  totalBudget: CampaignLimits['totalBudget'] = 'unlimited',
): CampaignLimits => ({ id, timezone, dailyBudget: 1_000_000, totalBudget, pacing: 'asap', frequencyCap: null });
const tag = (id: number, timezone: number): TagLimits => ({
  id,
  timezone,
  qpsLimit: 'unlimited',
  dailyRequestCap: 100,
  dailyImpCap: 10,
});

/** 2026-11-23 03:30 UTC: still the 22nd at UTC-5, already the 23rd at UTC+3. */
const NOW = Date.UTC(2026, 10, 23, 3, 30);

describe('delivery counts read back from the stats store', () => {
  it("reads each campaign's today in its tenant's day, its total when it has a total budget, and tags' impressions and calls", async () => {
    const asked: string[] = [];
    const stats = {
      select: async (sql: string) => {
        asked.push(sql);
        if (sql.includes('tag_id AS id')) return [{ id: 7, m0: 4, m1: 90 }];
        if (sql.includes("hour >= '2026-11-22 05:00:00'")) return [{ id: 1, m0: 2_500 }];
        if (sql.includes("hour >= '2026-11-22 21:00:00'")) return [{ id: 2, m0: 700 }];
        return [
          { id: 1, m0: 9_000 },
          { id: 2, m0: 1_200 },
          { id: 3, m0: 50 },
        ];
      },
    };
    const floors = await countFloors(
      stats,
      { campaigns: [campaign(1, -5, 10_000_000), campaign(2, 3), campaign(3, 3)], tags: [tag(7, -5)] },
      NOW,
    );
    expect(floors.campaigns.map((c) => [c.campaign.id, c.today, c.total])).toEqual([
      [1, 2_500, 9_000],
      [2, 700, 0],
    ]);
    expect(floors.tags.map((t) => [t.tag.id, t.imps, t.calls])).toEqual([[7, 4, 90]]);
    // the UTC start of the tenant's day: the 22nd 00:00 at UTC-5 is 05:00 UTC; the 23rd 00:00 at UTC+3 is the 22nd 21:00 UTC
    expect(asked.some((q) => q.includes("hour >= '2026-11-22 05:00:00'"))).toBe(true);
    expect(asked.some((q) => q.includes("hour >= '2026-11-22 21:00:00'"))).toBe(true);
  });

  it("reads a capped supply deal's impressions on demand tags' rows, today in its tenant's day and in all", async () => {
    const asked: string[] = [];
    const stats = {
      select: async (sql: string) => {
        asked.push(sql);
        if (sql.includes("hour >= '2026-11-22 05:00:00'")) return [{ t: 4, d: 'SD-1', n: 3 }];
        return [
          { t: 4, d: 'SD-1', n: 40 },
          // the same deal id in another tenant is another deal
          { t: 5, d: 'SD-1', n: 900 },
        ];
      },
    };
    const deal = { id: 11, timezone: -5, impCap: 50, dailyImpCap: 5 };
    const floors = await countFloors(
      stats,
      { campaigns: [], tags: [], deals: [{ deal, tenantId: 4, dealId: 'SD-1' }] },
      NOW,
    );
    expect(floors.deals).toEqual([{ deal, today: 3, total: 40 }]);
    // only demand tags' rows: a DSP deal of the same id is our campaigns'
    expect(asked.every((q) => q.includes('tag_id > 0') && q.includes("deal_id IN ('SD-1')"))).toBe(true);
  });

  it('raises the counters with what it read; a store that fails leaves them and says so', async () => {
    const raised: CountFloors[] = [];
    const delivery = { raiseCounts: async (f: CountFloors) => void raised.push(f) };
    const warnings: string[] = [];
    const log = { warn: (_: object, msg: string) => void warnings.push(msg) };
    const ok = { select: async (sql: string) => (sql.includes('campaign_id') ? [{ id: 1, m0: 300 }] : []) };
    expect(await seedDeliveryCounts(delivery, ok, { campaigns: [campaign(1, 0)], tags: [] }, log, NOW)).toBe(1);
    expect(raised[0]!.campaigns[0]).toMatchObject({ today: 300, total: 0 });
    const failing = { select: async () => Promise.reject(new Error('down')) };
    expect(await seedDeliveryCounts(delivery, failing, { campaigns: [campaign(1, 0)], tags: [] }, log, NOW)).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(raised).toHaveLength(1);
  });
});
