import { expect, it } from 'vitest';
import { ReportRequest } from '@adplane/shared';
import { forEachStore } from '../../test/helpers.js';
import { forEachStatsEngine } from '../../test/statsEngines.js';
import { writeDemoHistoryIfEmpty } from './demoHistory.js';
import { getReport } from './queries/getReport.js';

const NOW = Date.parse('2026-11-23T01:30:00Z');

forEachStore((t) => {
  forEachStatsEngine((s) => {
    it('writes 30 days of demo history once, with believable funnels', async () => {
      const written = await writeDemoHistoryIfEmpty(s.stats, t.store.db, NOW);
      expect(written).toBeGreaterThan(10_000);
      expect(await writeDemoHistoryIfEmpty(s.stats, t.store.db, NOW)).toBe(0);
      const request = ReportRequest.parse({ startDate: '2026-10-24', endDate: '2026-11-23', dimensions: ['date'], metrics: ['reqs', 'opps', 'imps', 'revenue', 'cost', 'fill', 'margin'] });
      const rows = await getReport({ stats: s.stats, db: null, scope: { tenantId: t.users.demand.id }, prices: new Map(), isAdmin: false }, request);
      expect(rows.length).toBeGreaterThanOrEqual(30);
      const total = rows.at(-1)!;
      expect(Number(total.reqs)).toBeGreaterThan(Number(total.opps));
      expect(Number(total.opps)).toBeGreaterThan(Number(total.imps));
      expect(Number(total.fill)).toBeGreaterThan(5);
      expect(Number(total.fill)).toBeLessThan(80);
      expect(Number(total.margin)).toBeGreaterThan(20);
      expect(Number(total.revenue)).toBeGreaterThan(Number(total.cost));
    }, 120_000);
  });
});
