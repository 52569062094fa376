import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportRequest, type ReportRequestInput, type SystemPrices } from '@adplane/shared';
import { chdbServer } from '../../test/chdbServer.js';
import { statsRow } from '../../test/statsEngines.js';
import { CLICKHOUSE_MIGRATIONS } from './clickhouse/migrations.js';
import { createClickHouseDatabase, dropClickHouseDatabase } from './clickhouse/clickhouseStore.js';
import { DUCKDB_MIGRATIONS } from './duckdb/migrations.js';
import { DIMENSION_COLUMNS, type HourlyRow, METRIC_COLUMNS_0001 } from './hourlyRow.js';
import { getReport } from './queries/getReport.js';
import { tableOf } from './reportSql.js';
import { ROLLUP_TABLE, rollupBackfillSql } from './rollup.js';
import { openStatsStore, type StatsStore, type StatsStoreConfig } from './statsStore.js';

/**
 * Upgrading a stats store that already holds data: a store at migration 0002 (as every store was
 * before the demand tags' requests and opportunities) opens with 0003 applied, its rows read 0 in
 * the new columns, nothing is lost, and the rollup sums the new columns from then on.
 */
const OLD_COLUMNS = [...DIMENSION_COLUMNS, ...METRIC_COLUMNS_0001];
const OLD_ROWS: HourlyRow[] = [
  statsRow({
    hour: '2026-11-01 10:00:00',
    tenant_id: 1,
    channel_id: 11,
    reqs: 100,
    opps: 80,
    imps: 20,
    revenue: 200_000,
  }),
  statsRow({
    hour: '2026-11-01 10:00:00',
    tenant_id: 1,
    channel_id: 11,
    tag_id: 7,
    demand_calls: 80,
    responses: 70,
    bids: 30,
    wins: 20,
  }),
];
const NEW_ROWS: HourlyRow[] = [
  statsRow({
    hour: '2026-11-01 11:00:00',
    tenant_id: 1,
    channel_id: 11,
    tag_id: 7,
    country: 'US',
    source_reqs: 5,
    source_opps: 3,
    demand_calls: 3,
    responses: 3,
  }),
  statsRow({
    hour: '2026-11-01 11:00:00',
    tenant_id: 1,
    channel_id: 11,
    tag_id: 7,
    country: 'CA',
    source_reqs: 4,
    nofill_reason: 'targeting.country',
  }),
  statsRow({
    hour: '2026-11-01 12:00:00',
    tenant_id: 1,
    channel_id: 12,
    tag_id: 7,
    country: 'US',
    source_reqs: 2,
    source_opps: 2,
    demand_calls: 2,
    timeouts: 2,
    nofill_reason: 'timeout',
  }),
];

const literal = (v: string | number) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);
const insertOldRowsSql = (rows: readonly HourlyRow[]) =>
  `INSERT INTO hourly_stats (${OLD_COLUMNS.join(', ')}) VALUES ${rows.map((r) => `(${OLD_COLUMNS.map((c) => literal(r[c])).join(', ')})`).join(', ')}`;

/** A store as the previous release left it: migrations 0001 and 0002 applied, rows written. */
const OLD_STORES = {
  async duckdb(config: StatsStoreConfig) {
    const instance = await DuckDBInstance.create(join(config.dataDir, config.duckdbFile!));
    const db = await instance.connect();
    await db.run(
      'CREATE TABLE stats_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)',
    );
    for (const m of DUCKDB_MIGRATIONS.slice(0, 2)) {
      for (const statement of m.sql) await db.run(statement);
      await db.run(`INSERT INTO stats_migrations (name) VALUES ('${m.name}')`);
    }
    await db.run(insertOldRowsSql(OLD_ROWS));
    // the previous release appended each batch's sums to the rollup in the write's transaction
    await db.run(rollupBackfillSql(METRIC_COLUMNS_0001));
    const columns = (
      await db.runAndReadAll("SELECT column_name FROM information_schema.columns WHERE table_name = 'hourly_stats'")
    ).getRowObjectsJS();
    db.closeSync();
    instance.closeSync();
    return columns.map((c) => String(c.column_name));
  },
  async clickhouse(config: StatsStoreConfig) {
    const url = new URL(config.clickhouseUrl!);
    await createClickHouseDatabase(config.clickhouseUrl!, config.clickhouseDatabase!);
    const client = createClient({
      url: `${url.protocol}//${url.host}`,
      username: decodeURIComponent(url.username) || 'default',
      password: decodeURIComponent(url.password),
      database: config.clickhouseDatabase!,
      compression: { request: false, response: false },
    });
    try {
      await client.command({
        query: 'CREATE TABLE stats_migrations (name String, applied_at DateTime) ENGINE = TinyLog',
      });
      for (const m of CLICKHOUSE_MIGRATIONS.slice(0, 2)) {
        for (const step of m.sql) await client.command({ query: typeof step === 'string' ? step : step.sql });
        await client.command({ query: `INSERT INTO stats_migrations (name, applied_at) VALUES ('${m.name}', now())` });
      }
      // the materialised view fills the rollup
      await client.command({ query: insertOldRowsSql(OLD_ROWS) });
      const result = await client.query({
        query: "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'hourly_stats'",
        format: 'JSONEachRow',
      });
      const columns = (await result.json<{ name: string }>()).map((c) => c.name);
      // and a 0003 stopped after its first step (ClickHouse has no transactions): it must run again cleanly
      await client.command({ query: 'ALTER TABLE hourly_stats ADD COLUMN source_reqs Int64' });
      return columns;
    } finally {
      await client.close();
    }
  },
};

const NO_PRICES = new Map<number, SystemPrices>();

// chdb: a current ClickHouse in the test worker (test/chdbServer.ts); clickhouse: the one at CLICKHOUSE_URL (CI: 18.16)
for (const engine of ['duckdb', 'chdb', 'clickhouse'] as const) {
  if (engine === 'clickhouse' && !process.env.CLICKHOUSE_URL) continue;
  describe(engine, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-migrate-'));
    const config: StatsStoreConfig =
      engine === 'duckdb'
        ? { dataDir, clickhouseUrl: null, duckdbFile: 'stats.duckdb' }
        : {
            dataDir,
            clickhouseUrl: process.env.CLICKHOUSE_URL ?? '',
            clickhouseDatabase: `adplane_test_migrate_${process.pid}_${randomBytes(4).toString('hex')}`,
          };
    const oldStore = OLD_STORES[engine === 'duckdb' ? 'duckdb' : 'clickhouse'];
    let stats: StatsStore | undefined;
    beforeAll(async () => {
      if (engine === 'chdb') config.clickhouseUrl = (await chdbServer()).url;
    });
    afterAll(async () => {
      await stats?.close();
      if (config.clickhouseUrl) await dropClickHouseDatabase(config.clickhouseUrl, config.clickhouseDatabase!);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const run = (input: Omit<ReportRequestInput, 'startDate' | 'endDate'>) =>
      getReport(
        { stats: stats!, db: null, scope: { tenantId: 1 }, prices: NO_PRICES, viewer: { type: 'admin' as const } },
        ReportRequest.parse({ startDate: '2026-11-01', endDate: '2026-11-01', ...input }),
      );
    const sumsOf = async (table: string) =>
      (
        await stats!.select(
          `SELECT sum(source_reqs) AS source_reqs, sum(source_opps) AS source_opps, sum(demand_calls) AS demand_calls, sum(imps) AS imps, sum(reqs) AS reqs FROM ${table} WHERE tenant_id = 1`,
        )
      )[0];

    it('adds source_reqs and source_opps to a store with data: old rows read 0, nothing lost, the rollup sums the new columns', async () => {
      const before = await oldStore(config);
      expect(before).toContain('rev_md');
      expect(before).not.toContain('source_reqs');

      stats = await openStatsStore(config);
      expect(await stats.migrations()).toEqual([
        '0001_hourly_stats',
        '0002_hourly_rollup',
        '0003_source_reqs_opps',
        '0004_postbid_ivt',
      ]);
      // the old rows are all there, with 0 in the new columns
      expect(
        await stats.select(
          'SELECT source_reqs, source_opps, demand_calls FROM hourly_stats WHERE tag_id = 7 ORDER BY demand_calls',
        ),
      ).toEqual([{ source_reqs: 0, source_opps: 0, demand_calls: 80 }]);
      expect(await sumsOf('hourly_stats')).toEqual({
        source_reqs: 0,
        source_opps: 0,
        demand_calls: 80,
        imps: 20,
        reqs: 100,
      });
      expect(await sumsOf(ROLLUP_TABLE)).toEqual({
        source_reqs: 0,
        source_opps: 0,
        demand_calls: 80,
        imps: 20,
        reqs: 100,
      });

      await stats.write(NEW_ROWS);
      const total = { source_reqs: 11, source_opps: 5, demand_calls: 85, imps: 20, reqs: 100 };
      expect(await sumsOf('hourly_stats')).toEqual(total);
      expect(await sumsOf(ROLLUP_TABLE)).toEqual(total);

      // A report of a tag's rows reads the rollup; by tag and country the full rows: both agree.
      const metrics = ['source_reqs', 'source_opps', 'demandCalls', 'imps'];
      const byTag = ReportRequest.parse({
        startDate: '2026-11-01',
        endDate: '2026-11-01',
        dimensions: ['tag'],
        metrics,
        filters: { tag: [7] },
      });
      expect(tableOf({ request: byTag, scope: { tenantId: 1 }, prices: NO_PRICES })).toBe(ROLLUP_TABLE);
      const tag7 = (await run({ dimensions: ['tag'], metrics, filters: { tag: [7] } })).find((r) => r.tag === 7);
      expect(tag7).toMatchObject({ source_reqs: 11, source_opps: 5, demandCalls: 85, imps: 0 });
      const full = (await run({ dimensions: ['tag', 'country'], metrics })).filter((r) => r.tag === 7);
      expect(full.reduce((n, r) => n + Number(r.source_reqs), 0)).toBe(11);
      expect(full.reduce((n, r) => n + Number(r.source_opps), 0)).toBe(5);
      const reasons = await run({ dimensions: ['nofill_reason'], metrics: ['source_reqs'], filters: { tag: [7] } });
      expect(
        reasons
          .filter((r) => !r.total)
          .map((r) => [r.nofill_reason, r.source_reqs])
          .sort(),
      ).toEqual([
        ['', 5],
        ['targeting.country', 4],
        ['timeout', 2],
      ]);
    });

    it('opens the migrated store again without applying anything twice', async () => {
      await stats!.close();
      stats = await openStatsStore(config);
      expect(await stats.migrations()).toEqual([
        '0001_hourly_stats',
        '0002_hourly_rollup',
        '0003_source_reqs_opps',
        '0004_postbid_ivt',
      ]);
      expect(await sumsOf(ROLLUP_TABLE)).toEqual({
        source_reqs: 11,
        source_opps: 5,
        demand_calls: 85,
        imps: 20,
        reqs: 100,
      });
    });
  });
}
