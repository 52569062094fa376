import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { NO_DEMAND_ID, ReportRequest, flightWindow, resolvePartner } from '@adplane/shared';
import { forEachStoreAndStatsEngine } from '../../test/statsEngines.js';
import { parseJson } from '../store/json.js';
import { writeDemoHistoryIfEmpty } from './demoHistory.js';
import { getReport } from './queries/getReport.js';
import { STATS_TABLE } from './statsStore.js';

const NOW = Date.parse('2026-11-23T01:30:00Z');

forEachStoreAndStatsEngine((t, s) => {
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

  it('writes no delivery the seeded rows deny: paused, out of flight, waiting for approval', async () => {
    await writeDemoHistoryIfEmpty(s.stats, t.store.db, NOW);
    const tenantId = t.users.demand.id;
    // the first and last hour each id has delivery on, and its impressions, straight from the rows the edge would write
    const delivery = async (column: string) => {
      const rows = await s.stats.select(
        `SELECT ${column} AS id, CAST(min(hour) AS VARCHAR) AS first_hour, CAST(max(hour) AS VARCHAR) AS last_hour, ` +
          `sum(imps) AS impressions FROM ${STATS_TABLE} ` +
          `WHERE tenant_id = ${tenantId} AND ${column} <> 0 GROUP BY ${column} HAVING sum(reqs) + sum(source_reqs) + sum(imps) > 0`,
      );
      const at = (text: unknown) => Date.parse(`${String(text).slice(0, 19).replace(' ', 'T')}Z`);
      return new Map(
        rows.map(
          (r) =>
            [Number(r.id), { first: at(r.first_hour), last: at(r.last_hour), imps: Number(r.impressions) }] as const,
        ),
      );
    };
    const seeded = async (table: 'campaigns' | 'supply_channels' | 'demand_tags' | 'creatives') =>
      (
        await sql<{ id: number; name: string; status: number; archived: number; data: string }>`
            SELECT id, name, status, archived, data FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(
          t.store.db,
        )
      ).rows.map((r) => ({ ...r, id: Number(r.id), data: parseJson<Record<string, unknown>>(r.data, {}) }));

    const byCampaign = await delivery('campaign_id');
    const campaigns = await seeded('campaigns');
    const crescent = campaigns.find((c) => c.name === 'Crescent Auto - Spring Sales Event display')!;
    expect(crescent.status).toBe(0);
    expect(byCampaign.has(crescent.id)).toBe(false);
    let inFlightSeen = 0;
    for (const c of campaigns) {
      const d = byCampaign.get(c.id);
      if (c.status === 0 || c.archived) {
        expect(d, c.name).toBeUndefined();
        continue;
      }
      if (!d) continue;
      inFlightSeen++;
      // the flight in the tenant's time zone (UTC-5 in the demo), as the edge reads it
      const flight = flightWindow(c.data.startDate as string, (c.data.endDate as string | null) ?? null, -5);
      expect(d.first, c.name).toBeGreaterThanOrEqual(flight.startMs!);
      if (flight.endMs !== null) expect(d.last, c.name).toBeLessThan(flight.endMs);
    }
    expect(inFlightSeen).toBeGreaterThan(0);

    const byChannel = await delivery('channel_id');
    const channels = await seeded('supply_channels');
    const paused = channels.filter((c) => c.status === 0 || c.archived);
    expect(paused.map((c) => c.name)).toContain('Run of network - web display 300x250 (PreBid)');
    for (const c of paused) expect(byChannel.has(c.id), c.name).toBe(false);
    expect(channels.filter((c) => byChannel.has(c.id)).length).toBeGreaterThan(0);

    const byTag = await delivery('tag_id');
    for (const tag of await seeded('demand_tags'))
      if (tag.status === 0 || tag.archived) expect(byTag.has(tag.id), tag.name).toBe(false);

    // a creative waiting for approval never served; an approved one of a campaign in flight did
    const byCreative = await delivery('creative_id');
    const creatives = await seeded('creatives');
    const pending = creatives.filter((c) => c.data.approval !== 'approved');
    expect(pending.map((c) => c.name)).toContain('Crescent Auto - Spring Sales Event 300x250');
    for (const c of pending) expect(byCreative.has(c.id), c.name).toBe(false);
    expect(creatives.some((c) => (byCreative.get(c.id)?.imps ?? 0) > 0)).toBe(true);
  }, 120_000);
});
