import { beforeAll, describe, expect, it } from 'vitest';
import { ReportRequest, type ReportRequestInput, type SystemPrices } from '@adplane/shared';
import { forEachStatsEngineAndCurrent, statsMigrationsOf, statsRow } from '../../test/statsEngines.js';
import { getReport } from './queries/getReport.js';
import { clickhouseDatabaseOf } from './statsStore.js';
import { reportRowsSql, type StatsScope, tableOf, utcBounds } from './reportSql.js';

const NO_PRICES = new Map<number, SystemPrices>();

forEachStatsEngineAndCurrent((t) => {
  const run = (
    input: Omit<ReportRequestInput, 'startDate' | 'endDate'> & Partial<ReportRequestInput>,
    scope: StatsScope = { tenantId: null },
    prices = NO_PRICES,
  ) =>
    getReport(
      { stats: t.stats, db: null, scope, prices, viewer: { type: 'admin' as const } },
      ReportRequest.parse({ startDate: '2026-11-01', endDate: '2026-11-02', ...input }),
    );

  beforeAll(async () => {
    await t.stats.write([
      // Time-zone rows, tenant 1.
      statsRow({
        hour: '2026-11-01 22:00:00',
        tenant_id: 1,
        channel_id: 11,
        subpublisher_id: 101,
        imps: 10,
        opps: 40,
        revenue: 3_000_000,
        cost: 1_200_000,
      }),
      statsRow({
        hour: '2026-11-02 01:00:00',
        tenant_id: 1,
        channel_id: 12,
        subpublisher_id: 102,
        imps: 5,
        opps: 20,
        reqs: 100,
        completes: 4,
        clicks: 1,
      }),
      statsRow({
        hour: '2026-11-02 23:00:00',
        tenant_id: 1,
        channel_id: 11,
        subpublisher_id: 101,
        imps: 7,
        opps: 0,
        country: "O'Land",
      }),
      // Another tenant in the same hours.
      statsRow({
        hour: '2026-11-01 22:00:00',
        tenant_id: 2,
        channel_id: 21,
        imps: 1000,
        opps: 1000,
        reqs: 5000,
        revenue: 9_000_000,
      }),
      // A row that only counts an error.
      statsRow({ hour: '2026-11-02 02:00:00', tenant_id: 1, channel_id: 13, errors: 3, vast_error: '303' }),
      // Tenant 3 on Nov 10: two advertisers, and no-fill reasons on one channel.
      statsRow({
        hour: '2026-11-10 09:00:00',
        tenant_id: 3,
        channel_id: 31,
        advertiser_id: 301,
        reqs: 10,
        opps: 10,
        imps: 4,
        revenue: 400_000,
      }),
      statsRow({
        hour: '2026-11-10 09:00:00',
        tenant_id: 3,
        channel_id: 31,
        advertiser_id: 302,
        reqs: 6,
        opps: 6,
        imps: 3,
        revenue: 900_000,
      }),
      statsRow({ hour: '2026-11-10 10:00:00', tenant_id: 3, channel_id: 31, reqs: 5, nofill_reason: 'timeout' }),
      statsRow({ hour: '2026-11-10 11:00:00', tenant_id: 3, channel_id: 31, reqs: 2, nofill_reason: 'no_bid' }),
    ]);
  });

  it('records its migrations', async () => {
    const migrations = await t.stats.migrations();
    expect(migrations).toEqual(await statsMigrationsOf(t.stats));
    // a current ClickHouse converts its text columns of few values (clickhouse/migrations.ts 0005); DuckDB has none
    if (t.engine !== 'clickhouse') expect(migrations.includes('0005_low_cardinality')).toBe(t.engine === 'chdb');
  });

  it('shifts local days by the time-zone offset', async () => {
    const imps = async (timezone: number) =>
      (await run({ timezone, dimensions: ['date'], metrics: ['imps'] }, { tenantId: 1 })).map((r) =>
        r.total ? `total ${String(r.imps)}` : `${String(r.date)} ${String(r.imps)}`,
      );
    expect(await imps(0)).toEqual(['2026-11-01 10', '2026-11-02 12', 'total 22']);
    // +3: 22:00 -> 01:00 on the 2nd, 01:00 -> 04:00, 23:00 -> the 3rd (outside).
    expect(await imps(3)).toEqual(['2026-11-02 15', 'total 15']);
    // -5: 22:00 -> 17:00 on the 1st, 01:00 -> 20:00 on the 1st, 23:00 -> 18:00 on the 2nd.
    expect(await imps(-5)).toEqual(['2026-11-01 15', '2026-11-02 7', 'total 22']);
    // Over a range wide enough, the same traffic adds up in every zone.
    for (const timezone of [-12, -5, 0, 7, 12]) {
      const rows = await run(
        { startDate: '2026-10-30', endDate: '2026-11-05', timezone, metrics: ['imps'] },
        { tenantId: 1 },
      );
      expect(rows).toEqual([{ total: true, imps: 22 }]);
    }
    const hours = await run({ timezone: 3, dimensions: ['hour'], metrics: ['imps'] }, { tenantId: 1 });
    expect(hours.map((r) => r.hour)).toEqual(['2026-11-02 01:00', '2026-11-02 04:00', '2026-11-02 05:00', undefined]);
  });

  it('computes fill, margin, eCPM, profit, VTR and CTR from sums', async () => {
    const rows = await run(
      { metrics: ['revenue', 'cost', 'profit', 'margin', 'ecpm', 'fill', 'vtr', 'ctr'] },
      { tenantId: 1 },
    );
    // revenue $3.00, cost $1.20; imps 22, opps 60; completes 4, clicks 1.
    expect(rows).toHaveLength(1);
    const total = rows[0];
    expect(total).toMatchObject({ total: true, revenue: 3_000_000, cost: 1_200_000, profit: 1_800_000 });
    expect(total.margin).toBeCloseTo(60, 9);
    expect(total.ecpm).toBe(Math.round((3_000_000 / 22) * 1000)); // whole micro-dollars
    expect(total.fill).toBeCloseTo((22 / 60) * 100, 9);
    expect(total.vtr).toBeCloseTo((4 / 22) * 100, 9);
    expect(total.ctr).toBeCloseTo((1 / 22) * 100, 9);
    const byChannel = await run(
      { dimensions: ['channel'], metrics: ['fill', 'margin'], sort: { by: 'channel', order: 'asc' } },
      { tenantId: 1 },
    );
    // Channel 11: 17 imps over 40 opps; channel 13 has no opps and no revenue: 0, not a division error.
    expect(byChannel.map((r) => [r.channel, Number(r.fill).toFixed(4), Number(r.margin).toFixed(4)])).toEqual([
      [11, '42.5000', '60.0000'],
      [12, '25.0000', '0.0000'],
      [13, '0.0000', '0.0000'],
      [undefined, '36.6667', '60.0000'],
    ]);
  });

  it('answers an empty range with zero totals', async () => {
    const rows = await run({
      startDate: '2025-01-01',
      endDate: '2025-01-31',
      dimensions: ['date'],
      metrics: ['imps', 'fill', 'revenue'],
    });
    expect(rows).toEqual([{ total: true, imps: 0, fill: 0, revenue: 0 }]);
  });

  it("never shows a tenant another tenant's rows", async () => {
    const t1 = await run({ dimensions: ['channel'], metrics: ['imps'] }, { tenantId: 1 });
    expect(t1.map((r) => r.channel)).not.toContain(21);
    expect(t1.at(-1)).toEqual({ total: true, imps: 22 });
    const t2 = await run({ dimensions: ['channel'], metrics: ['imps', 'reqs'] }, { tenantId: 2 });
    expect(t2).toEqual([
      { channel: 21, imps: 1000, reqs: 5000 },
      { total: true, imps: 1000, reqs: 5000 },
    ]);
    const all = await run({ metrics: ['imps'] });
    expect(all).toEqual([{ total: true, imps: 1022 }]);
  });

  it('shows a sub only its channels', async () => {
    const rows = await run({ dimensions: ['channel'], metrics: ['imps'] }, { tenantId: 1, subpublisherId: 101 });
    expect(rows).toEqual([
      { channel: 11, imps: 17 },
      { total: true, imps: 17 },
    ]);
  });

  it('filters, hides error-only rows, sorts and limits', async () => {
    const filtered = await run(
      { dimensions: ['country'], metrics: ['imps'], filters: { country: ["O'Land"] } },
      { tenantId: 1 },
    );
    expect(filtered).toEqual([
      { country: "O'Land", imps: 7 },
      { total: true, imps: 7 },
    ]);
    const withErrors = await run({ dimensions: ['channel'], metrics: ['errors', 'imps'] }, { tenantId: 1 });
    expect(withErrors.map((r) => r.channel)).toContain(13);
    const hidden = await run(
      { dimensions: ['channel'], metrics: ['errors', 'imps'], hideErrors: true },
      { tenantId: 1 },
    );
    expect(hidden.map((r) => r.channel)).toEqual([11, 12, undefined]);
    // The totals still cover every row of the range: channel 13's errors are counted though its row is hidden.
    expect(hidden.at(-1)).toEqual({ total: true, errors: 3, imps: 22 });
    const top = await run({
      dimensions: ['channel'],
      metrics: ['imps'],
      sort: { by: 'imps', order: 'desc' },
      limit: 1,
    });
    expect(top).toEqual([
      { channel: 21, imps: 1000 },
      { total: true, imps: 1022 },
    ]);
    // Cut by the default cap too: the totals are not those of the rows shown.
    const capped = await getReport(
      { stats: t.stats, db: null, scope: { tenantId: null }, prices: NO_PRICES, viewer: { type: 'admin' as const } },
      ReportRequest.parse({
        startDate: '2026-11-01',
        endDate: '2026-11-02',
        dimensions: ['channel'],
        metrics: ['imps', 'fill'],
        sort: { by: 'channel', order: 'asc' },
      }),
      { limit: 2 },
    );
    expect(capped.map((r) => r.channel)).toEqual([11, 12, undefined]);
    expect(capped.at(-1)).toEqual({ total: true, imps: 1022, fill: (1022 / 1060) * 100 });
  });

  it('sorts by a ratio and by a time dimension descending, with ties in a stable order', async () => {
    const byFill = await run({
      dimensions: ['channel'],
      metrics: ['fill', 'imps'],
      sort: { by: 'fill', order: 'desc' },
    });
    // Channel 21: 100%, 11: 42.5%, 12: 25%, 13: 0 (no opportunities).
    expect(byFill.map((r) => r.channel)).toEqual([21, 11, 12, 13, undefined]);
    const days = await run(
      { timezone: -5, dimensions: ['date', 'channel'], metrics: ['imps'], sort: { by: 'date', order: 'desc' } },
      { tenantId: 1 },
    );
    expect(days.map((r) => `${String(r.date)}/${String(r.channel)}`)).toEqual([
      '2026-11-02/11',
      '2026-11-01/11',
      '2026-11-01/12',
      '2026-11-01/13',
      'undefined/undefined',
    ]);
  });

  it('adds up the rows to the totals on every shape, in any zone', async () => {
    const metrics = ['reqs', 'imps', 'revenue', 'cost', 'profit', 'margin', 'fill', 'ecpm'] as const;
    for (const timezone of [-12, -5, 0, 3, 12]) {
      const [whole] = await run({ startDate: '2026-10-30', endDate: '2026-11-12', timezone, metrics: [...metrics] });
      for (const dimensions of [['date'], ['hour'], ['date', 'channel'], ['tenant', 'country']] as const) {
        const rows = await run({
          startDate: '2026-10-30',
          endDate: '2026-11-12',
          timezone,
          dimensions: [...dimensions],
          metrics: [...metrics],
        });
        const total = rows.at(-1)!;
        for (const m of metrics)
          expect(total[m], `${dimensions.join('+')} ${m} at ${timezone}`).toBeCloseTo(Number(whole[m]), 6);
        expect(rows.slice(0, -1).reduce((n, r) => n + Number(r.imps), 0)).toBe(whole.imps);
      }
    }
  });

  it('shows an advertiser only its own rows', async () => {
    const on10 = { startDate: '2026-11-10', endDate: '2026-11-10' };
    expect(
      await run(
        { ...on10, dimensions: ['channel'], metrics: ['imps', 'revenue', 'ecpm'] },
        { tenantId: 3, advertiserId: 301 },
      ),
    ).toEqual([
      { channel: 31, imps: 4, revenue: 400_000, ecpm: 100_000_000 },
      { total: true, imps: 4, revenue: 400_000, ecpm: 100_000_000 },
    ]);
    expect((await run({ ...on10, metrics: ['imps'] }, { tenantId: 1, advertiserId: 301 })).at(-1)).toEqual({
      total: true,
      imps: 0,
    });
  });

  it('counts requests by no-fill reason, the total still every request', async () => {
    const rows = await run(
      {
        startDate: '2026-11-10',
        endDate: '2026-11-10',
        dimensions: ['nofill_reason'],
        metrics: ['reqs'],
        sort: { by: 'nofill_reason', order: 'asc' },
      },
      { tenantId: 3 },
    );
    expect(rows).toEqual([
      { nofill_reason: '', reqs: 16 },
      { nofill_reason: 'no_bid', reqs: 2 },
      { nofill_reason: 'timeout', reqs: 5 },
      { total: true, reqs: 23 },
    ]);
  });

  it('groups by typed keys and formats only the grouped rows', () => {
    const input = {
      request: ReportRequest.parse({
        startDate: '2026-11-01',
        endDate: '2026-11-02',
        timezone: -5,
        dimensions: ['date', 'hour', 'device'],
        metrics: ['fill'],
      }),
      scope: { tenantId: 1 },
      prices: NO_PRICES,
    };
    const sql = reportRowsSql(t.stats.dialect, input, 10);
    const groupBy = sql.slice(sql.indexOf(' GROUP BY '), sql.indexOf(' ORDER BY '));
    expect(groupBy).not.toMatch(/strftime|formatDateTime|toString/);
    expect(groupBy).toContain(t.stats.dialect.localDay(-5));
    // Only the sums fill needs, each once.
    expect(sql.match(/sum\(/g)).toHaveLength(2);
  });

  it('prices the system cost per tenant', async () => {
    const prices = new Map<number, SystemPrices>([
      [1, { priceReq: 10_000, priceImp: 50_000, pricePostbid: 0, priceDsp: 10 }],
      [2, { priceReq: 20_000, priceImp: 0, pricePostbid: 0, priceDsp: 0 }],
    ]);
    const rows = await run(
      { dimensions: ['tenant'], metrics: ['systemCost'], sort: { by: 'tenant', order: 'asc' } },
      { tenantId: null },
      prices,
    );
    // Tenant 1: 100 reqs x $0.01/1000 + 22 imps x $0.05/1000 = 1,000 + 1,100 micros; tenant 2: 5,000 x $0.02/1000 = 100,000.
    expect(rows).toEqual([
      { tenant: 1, systemCost: 2_100 },
      { tenant: 2, systemCost: 100_000 },
      { total: true, systemCost: 102_100 },
    ]);
  });

  it('answers from the rollup what it holds, the same as the full rows', async () => {
    const fromRollup = await run({ dimensions: ['channel'], metrics: ['imps', 'revenue', 'fill'] }, { tenantId: 1 });
    // Adding a dimension the rollup lacks reads the full rows; summed back by channel it agrees.
    const full = await run({ dimensions: ['channel', 'country'], metrics: ['imps', 'revenue'] }, { tenantId: 1 });
    for (const row of fromRollup.filter((r) => !r.total)) {
      const same = full.filter((r) => r.channel === row.channel);
      expect(same.reduce((n, r) => n + Number(r.imps), 0)).toBe(row.imps);
      expect(same.reduce((n, r) => n + Number(r.revenue), 0)).toBe(row.revenue);
    }
    expect(fromRollup.at(-1)).toEqual({ total: true, imps: 22, revenue: 3_000_000, fill: (22 / 60) * 100 });
    const input = (dimensions: string[], metrics: string[]) => ({
      request: ReportRequest.parse({ startDate: '2026-11-01', endDate: '2026-11-01', dimensions, metrics }),
      scope: { tenantId: 1 },
      prices: NO_PRICES,
    });
    expect(tableOf(input(['date', 'channel', 'subpublisher'], ['imps', 'fill']))).toBe('hourly_rollup');
    // by tag, the requests offered to no demand are told apart by the campaign and ad exchange of each row
    // (a report of demand: reportSql.ts), which the rollup does not keep; a list's tags are answered from it
    expect(tableOf(input(['date', 'channel', 'tag'], ['imps', 'fill']))).toBe('hourly_stats');
    expect(
      tableOf({
        ...input(['date', 'channel', 'tag'], ['imps', 'fill']),
        request: ReportRequest.parse({
          startDate: '2026-11-01',
          endDate: '2026-11-01',
          dimensions: ['date', 'channel', 'tag'],
          metrics: ['imps', 'fill'],
          filters: { tag: [7] },
        }),
      }),
    ).toBe('hourly_rollup');
    // real demand only (the dashboard's top tags) is answered from it too
    expect(
      tableOf({
        ...input(['tag'], ['imps', 'fill']),
        request: ReportRequest.parse({
          startDate: '2026-11-01',
          endDate: '2026-11-01',
          dimensions: ['tag'],
          metrics: ['imps', 'fill'],
          demandOnly: true,
        }),
      }),
    ).toBe('hourly_rollup');
    expect(tableOf(input(['date', 'country'], ['imps']))).toBe('hourly_stats');
    expect(tableOf(input(['date'], ['systemCost']))).toBe('hourly_stats');
  });

  it("writes the A/B arm and rolls it up: a report by channel and arm reads the rollup, the same as the full rows; rows without a split read ''", async () => {
    await t.stats.write([
      statsRow({
        hour: '2026-12-05 10:00:00',
        tenant_id: 9,
        channel_id: 90,
        arm: 'A',
        country: 'US',
        reqs: 70,
        imps: 7,
        revenue: 700_000,
      }),
      statsRow({
        hour: '2026-12-05 10:00:00',
        tenant_id: 9,
        channel_id: 90,
        arm: 'A',
        country: 'GB',
        reqs: 30,
        imps: 2,
        revenue: 200_000,
      }),
      statsRow({
        hour: '2026-12-05 11:00:00',
        tenant_id: 9,
        channel_id: 90,
        arm: 'B',
        country: 'US',
        reqs: 50,
        imps: 9,
        revenue: 1_100_000,
      }),
      statsRow({
        hour: '2026-12-05 11:00:00',
        tenant_id: 9,
        channel_id: 91,
        country: 'US',
        reqs: 20,
        imps: 1,
        revenue: 50_000,
      }),
    ]);
    const dates = { startDate: '2026-12-05', endDate: '2026-12-05' };
    const request = ReportRequest.parse({
      ...dates,
      dimensions: ['channel', 'arm'],
      metrics: ['reqs', 'imps', 'revenue'],
    });
    expect(tableOf({ request, scope: { tenantId: 9 }, prices: NO_PRICES })).toBe('hourly_rollup');
    const rolled = await run(
      {
        ...dates,
        dimensions: ['channel', 'arm'],
        metrics: ['reqs', 'imps', 'revenue'],
        sort: { by: 'arm', order: 'asc' },
      },
      { tenantId: 9 },
    );
    expect(rolled.map((r) => [r.channel, r.arm, r.reqs, r.imps, r.revenue])).toEqual([
      [91, '', 20, 1, 50_000],
      [90, 'A', 100, 9, 900_000],
      [90, 'B', 50, 9, 1_100_000],
      [undefined, undefined, 170, 19, 2_050_000],
    ]);
    const full = await run(
      { ...dates, dimensions: ['arm', 'country'], metrics: ['reqs', 'imps', 'revenue'] },
      { tenantId: 9 },
    );
    for (const arm of ['', 'A', 'B']) {
      const rows = full.filter((r) => !r.total && r.arm === arm);
      const same = rolled.find((r) => r.arm === arm)!;
      expect(rows.reduce((n, r) => n + Number(r.reqs), 0)).toBe(same.reqs);
      expect(rows.reduce((n, r) => n + Number(r.revenue), 0)).toBe(same.revenue);
    }
    // filtered by arm, as any text dimension
    const b = await run(
      { ...dates, dimensions: ['hour'], metrics: ['reqs'], filters: { arm: ['B'] } },
      { tenantId: 9 },
    );
    expect(b.map((r) => [r.hour, r.reqs])).toEqual([
      ['2026-12-05 11:00', 50],
      [undefined, 50],
    ]);
  });

  it('keeps text exactly: quotes, commas, line breaks, backslashes and empty values', async () => {
    const awkward = ['a,"b"', 'line\nbreak', '\\N', '', "it's", 'é ✓'];
    await t.stats.write(
      awkward.map((domain, i) =>
        statsRow({ hour: '2026-12-02 00:00:00', tenant_id: 8, channel_id: 80 + i, domain, imps: i + 1 }),
      ),
    );
    const rows = await run(
      { startDate: '2026-12-02', endDate: '2026-12-02', dimensions: ['domain'], metrics: ['imps'] },
      { tenantId: 8 },
    );
    const byDomain = new Map(rows.filter((r) => !r.total).map((r) => [r.domain, r.imps]));
    awkward.forEach((domain, i) => expect(byDomain.get(domain), JSON.stringify(domain)).toBe(i + 1));
    // the rollup got the same batch
    const byChannel = await run(
      { startDate: '2026-12-02', endDate: '2026-12-02', dimensions: ['channel'], metrics: ['imps'] },
      { tenantId: 8 },
    );
    expect(byChannel.at(-1)).toEqual({ total: true, imps: 21 });
  });

  it('writes a bad batch not at all', async () => {
    const good = statsRow({ hour: '2026-12-01 00:00:00', tenant_id: 9, imps: 1 });
    await expect(t.stats.write([good, statsRow({ hour: '2026-12-01 00:30:00', tenant_id: 9 })])).rejects.toThrow(
      /row 1: hour/,
    );
    await expect(t.stats.write([good, { ...good, imps: 1.5 }])).rejects.toThrow(/row 1: imps/);
    const rows = await run({ startDate: '2026-12-01', endDate: '2026-12-01', metrics: ['imps'] }, { tenantId: 9 });
    expect(rows).toEqual([{ total: true, imps: 0 }]);
  });
});

describe('utcBounds', () => {
  it('turns local days into UTC hours', () => {
    expect(utcBounds('2026-11-01', '2026-11-02', 3)).toEqual({
      from: '2026-10-31 21:00:00',
      to: '2026-11-02 21:00:00',
    });
    expect(utcBounds('2026-11-01', '2026-11-01', -12)).toEqual({
      from: '2026-11-01 12:00:00',
      to: '2026-11-02 12:00:00',
    });
  });
});

describe('clickhouseDatabaseOf', () => {
  it('reads the database from the URL path, adplane when the path names none', () => {
    expect(clickhouseDatabaseOf('http://127.0.0.1:8123')).toBe('adplane');
    expect(clickhouseDatabaseOf('http://127.0.0.1:8123/')).toBe('adplane');
    expect(clickhouseDatabaseOf('http://user:pw@ch.example.com:8123/adplane_eu/')).toBe('adplane_eu');
  });
});
