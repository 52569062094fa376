import { expect, it } from 'vitest';
import { NO_DEMAND_ID, ReportRequest, resolvePartner } from '@adplane/shared';
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
      const request = ReportRequest.parse({
        startDate: '2026-10-24',
        endDate: '2026-11-23',
        dimensions: ['date'],
        metrics: ['reqs', 'opps', 'imps', 'revenue', 'cost', 'fill', 'margin'],
      });
      const rows = await getReport(
        {
          stats: s.stats,
          db: null,
          scope: { tenantId: t.users.demand.id },
          prices: new Map(),
          viewer: { type: 'demand' as const },
        },
        request,
      );
      expect(rows.length).toBeGreaterThanOrEqual(30);
      const total = rows.at(-1)!;
      expect(Number(total.reqs)).toBeGreaterThan(Number(total.opps));
      expect(Number(total.opps)).toBeGreaterThan(Number(total.imps));
      expect(Number(total.fill)).toBeGreaterThan(5);
      expect(Number(total.fill)).toBeLessThan(80);
      expect(Number(total.margin)).toBeGreaterThan(20);
      expect(Number(total.revenue)).toBeGreaterThan(Number(total.cost));

      // A demand tag's funnel is not empty: considered, offered, called, filled, and why not.
      const ctx = {
        stats: s.stats,
        db: null,
        scope: { tenantId: t.users.demand.id },
        prices: new Map(),
        viewer: { type: 'demand' as const },
      };
      const range = { startDate: '2026-10-24', endDate: '2026-11-23' };
      const byTag = await getReport(
        ctx,
        ReportRequest.parse({
          ...range,
          dimensions: ['tag'],
          metrics: ['source_reqs', 'source_opps', 'demandCalls', 'imps'],
          sort: { by: 'source_reqs' },
        }),
      );
      const tag = byTag[0]!;
      expect(Number(tag.source_reqs)).toBeGreaterThan(Number(tag.source_opps));
      expect(Number(tag.source_opps)).toBe(Number(tag.demandCalls));
      expect(Number(tag.source_opps)).toBeGreaterThan(Number(tag.imps));
      expect(Number(tag.imps)).toBeGreaterThan(0);
      const reasons = await getReport(
        ctx,
        ReportRequest.parse({
          ...range,
          dimensions: ['nofill_reason'],
          metrics: ['source_reqs'],
          filters: { tag: [Number(tag.tag)] },
        }),
      );
      const unfilled = reasons
        .filter((r) => !r.total && r.nofill_reason !== '')
        .reduce((sum, r) => sum + Number(r.source_reqs), 0);
      const auctioned = Number(reasons.find((r) => !r.total && r.nofill_reason === '')?.source_reqs ?? 0);
      expect(unfilled).toBeGreaterThan(0);
      expect(unfilled + auctioned).toBe(Number(tag.source_reqs));

      // Written as the edge writes: a report by tag counts each tag's requests on its own row, equal to its
      // demand requests, and the requests offered to no demand on the "No demand called" row; without a demand
      // dimension each request is counted once.
      const tagRows = await getReport(
        ctx,
        ReportRequest.parse({
          ...range,
          dimensions: ['tag'],
          metrics: ['reqs', 'source_reqs', 'opps', 'source_opps', 'imps', 'fill', 'sourceFill'],
        }),
      );
      for (const r of tagRows.filter((x) => !x.total && Number(x.tag) > 0)) {
        expect(r.reqs).toBe(r.source_reqs);
        expect(r.opps).toBe(r.source_opps);
        expect(r.fill).toBe(r.sourceFill);
      }
      const none = tagRows.find((x) => x.tag === NO_DEMAND_ID)!;
      const notOffered = await getReport(
        ctx,
        ReportRequest.parse({ ...range, dimensions: [], metrics: ['reqs'], filters: { nofill_reason: ['no_demand'] } }),
      );
      expect(none.reqs).toBe(notOffered[0]!.reqs);
      expect(none.imps).toBe(0);

      // The Market Report names marketplaces as live traffic does: a Prebid partner by its name, never its catalogue id
      const markets = await getReport(
        ctx,
        ReportRequest.parse({ ...range, dimensions: ['marketplace_name'], metrics: ['rev_m'], hideErrors: true }),
      );
      const names = markets.filter((r) => !r.total).map((r) => String(r.marketplace_name));
      expect(names).toEqual(
        expect.arrayContaining([resolvePartner('appnexusP')!.partner.name, resolvePartner('pubmaticP')!.partner.name]),
      );
      expect(names.filter((n) => /P$/.test(n) && resolvePartner(n))).toEqual([]);
    }, 120_000);
  });
});
