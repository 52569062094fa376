import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportRequest, type ReportRequestInput, type SystemPrices } from '@adplane/shared';
import { chdbServer } from '../../test/chdbServer.js';
import { statsMigrationsOf, statsRow } from '../../test/statsEngines.js';
import { clickHouseMigrations, clickHouseServerOf, PLAIN_SERVER } from './clickhouse/migrations.js';
import { createClickHouseDatabase, dropClickHouseDatabase } from './clickhouse/clickhouseStore.js';
import { DUCKDB_MIGRATIONS } from './duckdb/migrations.js';
import { DIMENSION_COLUMNS_0001, type HourlyRow, METRIC_COLUMNS_0001 } from './hourlyRow.js';
import { getReport } from './queries/getReport.js';
import { tableOf } from './reportSql.js';
import { ROLLUP_KEY_0002, ROLLUP_TABLE, rollupBackfillSql } from './rollup.js';
import { openStatsStore, type StatsStore, type StatsStoreConfig } from './statsStore.js';

/**
 * Upgrading a stats store that already holds data: a store at migration 0002 (as every store was
 * before the demand tags' requests and opportunities) opens with 0003 applied, its rows read 0 in
 * the new columns, nothing is lost, and the rollup sums the new columns from then on. On a current
 * ClickHouse its text columns of few values become LowCardinality(String) (0005).
 */
const OLD_COLUMNS = [...DIMENSION_COLUMNS_0001, ...METRIC_COLUMNS_0001];
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
    await db.run(rollupBackfillSql(METRIC_COLUMNS_0001, ROLLUP_KEY_0002));
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
      // the previous release made plain String columns on every server
      for (const m of clickHouseMigrations(PLAIN_SERVER).slice(0, 2)) {
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
      expect(await stats.migrations()).toEqual(await statsMigrationsOf(stats));
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
      expect(await stats.migrations()).toEqual(await statsMigrationsOf(stats));
      expect(await sumsOf(ROLLUP_TABLE)).toEqual({
        source_reqs: 11,
        source_opps: 5,
        demand_calls: 85,
        imps: 20,
        reqs: 100,
      });
    });

    it("adds the A/B arm: rows stored before read '' (no arm), a new row's arm is kept and summed by arm in the rollup", async () => {
      expect(await stats!.select("SELECT count() AS n FROM hourly_stats WHERE arm <> ''")).toEqual([{ n: 0 }]);
      await stats!.write([
        statsRow({ hour: '2026-11-01 13:00:00', tenant_id: 1, channel_id: 13, arm: 'A', reqs: 60, imps: 6 }),
        statsRow({ hour: '2026-11-01 13:00:00', tenant_id: 1, channel_id: 13, arm: 'B', reqs: 40, imps: 5 }),
      ]);
      const byArm = ReportRequest.parse({
        startDate: '2026-11-01',
        endDate: '2026-11-01',
        dimensions: ['channel', 'arm'],
        metrics: ['reqs', 'imps'],
      });
      expect(tableOf({ request: byArm, scope: { tenantId: 1 }, prices: NO_PRICES })).toBe(ROLLUP_TABLE);
      const rows = await run({ dimensions: ['channel', 'arm'], metrics: ['reqs', 'imps'] });
      const sorted = rows
        .filter((r) => !r.total)
        .map((r) => [r.channel, r.arm, r.reqs, r.imps])
        .sort((a, b) => `${String(a[0])}${String(a[1])}`.localeCompare(`${String(b[0])}${String(b[1])}`));
      expect(sorted).toEqual([
        [11, '', 100, 20],
        [12, '', 0, 0],
        [13, 'A', 60, 6],
        [13, 'B', 40, 5],
      ]);
      // the full rows say the same
      const full = await run({ dimensions: ['arm', 'country'], metrics: ['reqs', 'imps'] });
      expect(full.filter((r) => r.arm === 'B').map((r) => [r.reqs, r.imps])).toEqual([[40, 5]]);
    });
  });
}

/**
 * Column types (clickhouse/migrations.ts): a server from 19.3 stores the text dimensions of few
 * values as LowCardinality(String), a new database made so and one made before converted at start;
 * 18.16 keeps plain String. Either way every answer is the same.
 */
const PLAIN_TYPES = {
  app_bundle: 'String',
  browser: 'String',
  country: 'String',
  deal_id: 'String',
  device: 'String',
  domain: 'String',
  integration: 'String',
  marketplace_name: 'String',
  nofill_reason: 'String',
  os: 'String',
  partner: 'String',
  publisher_id: 'String',
  region: 'String',
  us_state: 'String',
  vast_error: 'String',
  arm: 'String',
};
const LC = 'LowCardinality(String)';
const CURRENT_TYPES = {
  ...PLAIN_TYPES,
  browser: LC,
  country: LC,
  deal_id: LC,
  device: LC,
  integration: LC,
  marketplace_name: LC,
  nofill_reason: LC,
  os: LC,
  partner: LC,
  region: LC,
  us_state: LC,
  vast_error: LC,
  arm: LC,
};

/** hourly_stats' text columns and their types, as the server reports them. */
async function textColumnTypes(stats: StatsStore): Promise<Record<string, string>> {
  const rows = await stats.select(
    "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'hourly_stats' AND type LIKE '%String%' ORDER BY name",
  );
  return Object.fromEntries(rows.map((r) => [String(r.name), String(r.type)]));
}

const pick = <T>(values: readonly T[], i: number, salt: number) => values[(i * salt) % values.length]!;
/** Rows that vary every text dimension, some empty, over two days and two tenants. */
const VARIED_ROWS: HourlyRow[] = Array.from({ length: 96 }, (_, i) =>
  statsRow({
    hour: `2026-11-0${1 + (i % 2)} ${String(i % 24).padStart(2, '0')}:00:00`,
    tenant_id: 1 + (i % 3 === 0 ? 1 : 0),
    channel_id: 10 + (i % 4),
    tag_id: i % 5 === 0 ? 0 : 70 + (i % 3),
    campaign_id: i % 7 === 0 ? 900 : 0,
    partner: pick(['', 'appnexus', 'pubmatic'], i, 5),
    deal_id: pick(['', '', 'deal-1', "deal-'q'"], i, 7),
    marketplace_name: pick(['', 'Crestline', 'Meridian'], i, 11),
    country: pick(['US', 'GB', 'DE', ''], i, 13),
    region: pick(['CA', 'ENG', 'BE', ''], i, 17),
    us_state: pick(['CA', 'NY', ''], i, 19),
    device: pick(['SmartTV', 'Mobile', 'Desktop'], i, 23),
    os: pick(['Roku', 'iOS', 'Android', ''], i, 29),
    browser: pick(['Chrome', 'Safari', ''], i, 31),
    app_bundle: `com.app${i % 9}`,
    domain: pick(['', 'news.example', 'video.example'], i, 37),
    publisher_id: `pub-${i % 6}`,
    integration: pick(['VAST', 'RTB', 'PreBid'], i, 41),
    vast_error: pick(['', '', '303', '402'], i, 43),
    nofill_reason: pick(['', 'no_bid', 'timeout', 'targeting.country'], i, 47),
    reqs: 100 + i,
    opps: 90 + i,
    demand_calls: 80 + (i % 11),
    responses: 60 + (i % 7),
    bids: 30 + (i % 5),
    wins: 20 + (i % 4),
    imps: 18 + (i % 3),
    completes: 10 + (i % 2),
    clicks: i % 3,
    errors: i % 4 === 0 ? 2 : 0,
    revenue: 180_000 + i * 1_000,
    cost: 90_000 + i * 500,
    rev_m: i % 2 ? 50_000 : 0,
    source_reqs: i % 5 === 0 ? 0 : 120 + i,
    source_opps: i % 5 === 0 ? 0 : 100 + i,
  }),
);

/** Reports by, and filtered on, each converted column (several of them reports of demand). */
const TYPE_REPORTS: Omit<ReportRequestInput, 'startDate' | 'endDate'>[] = [
  ...(
    [
      'partner',
      'deal',
      'marketplace_name',
      'country',
      'region',
      'us_state',
      'device',
      'os',
      'browser',
      'integration',
      'vast_error',
      'nofill_reason',
    ] as const
  ).map((d) => ({ dimensions: ['date', d], metrics: ['reqs', 'opps', 'imps', 'revenue', 'fill', 'ecpm'] })),
  { dimensions: ['country', 'device', 'os'], metrics: ['imps', 'revenue', 'completes'] },
  { dimensions: ['domain', 'app_bundle', 'publisher_id'], metrics: ['reqs', 'imps'] },
  {
    dimensions: ['date'],
    metrics: ['reqs', 'imps', 'revenue'],
    filters: { country: ['US', 'GB'], device: ['SmartTV'] },
  },
  {
    dimensions: ['browser'],
    metrics: ['reqs', 'imps'],
    filters: { nofill_reason: ['timeout', ''], vast_error: ['303'] },
  },
  { dimensions: ['tag', 'deal'], metrics: ['reqs', 'opps', 'demandCalls', 'wins'], filters: { deal: ["deal-'q'"] } },
  { dimensions: ['partner', 'integration'], metrics: ['reqs', 'responses', 'bids', 'wins'] },
];

const reportOn = (stats: StatsStore, input: Omit<ReportRequestInput, 'startDate' | 'endDate'>) =>
  getReport(
    { stats, db: null, scope: { tenantId: null }, prices: NO_PRICES, viewer: { type: 'admin' as const } },
    ReportRequest.parse({ startDate: '2026-11-01', endDate: '2026-11-02', ...input }),
  );

describe('ClickHouse column types', () => {
  it('reads LowCardinality from the server version: 19.3 on, not 18.x or 19.1', () => {
    expect(
      ['18.16.1', '19.1.6', '19.3.3', '20.8.3.18', '26.7.2.1', ''].map((v) => clickHouseServerOf(v).lowCardinality),
    ).toEqual([false, false, true, true, true, false]);
  });

  describe('chdb', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-types-'));
    const id = () => `adplane_test_types_${process.pid}_${randomBytes(4).toString('hex')}`;
    const fresh: StatsStoreConfig = { dataDir, clickhouseUrl: '', clickhouseDatabase: id() };
    const old: StatsStoreConfig = { dataDir, clickhouseUrl: '', clickhouseDatabase: id() };
    const opened: StatsStore[] = [];
    const open = async (config: StatsStoreConfig) => {
      const store = await openStatsStore(config);
      opened.push(store);
      return store;
    };
    beforeAll(async () => {
      fresh.clickhouseUrl = old.clickhouseUrl = (await chdbServer()).url;
    });
    afterAll(async () => {
      for (const store of opened) await store.close();
      for (const config of [fresh, old])
        await dropClickHouseDatabase(config.clickhouseUrl!, config.clickhouseDatabase!);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('creates a new database on a current ClickHouse with LowCardinality(String) text columns', async () => {
      const stats = await open(fresh);
      expect(String((await stats.select('SELECT version() AS v'))[0]!.v)).toMatch(/^26\./);
      expect(await textColumnTypes(stats)).toEqual(CURRENT_TYPES);
      expect(await stats.migrations()).toEqual([
        '0001_hourly_stats',
        '0002_hourly_rollup',
        '0003_source_reqs_opps',
        '0004_postbid_ivt',
        '0005_low_cardinality',
        '0006_arm',
        '0007_deal_reqs',
      ]);
      // made with those types, so 0005 found nothing to convert
      expect(
        await stats.select('SELECT count() AS n FROM system.mutations WHERE database = currentDatabase()'),
      ).toEqual([{ n: 0 }]);
    });

    it('converts a database made with plain String columns at start: the same rows, the same answers as DuckDB', async () => {
      // as the previous release left a database on any server: 0001..0004 with plain String, rows written
      await createClickHouseDatabase(old.clickhouseUrl!, old.clickhouseDatabase!);
      const url = new URL(old.clickhouseUrl!);
      const client = createClient({
        url: `${url.protocol}//${url.host}`,
        database: old.clickhouseDatabase!,
        compression: { request: false, response: false },
      });
      const allRows = async () => {
        const result = await client.query({
          query: `SELECT * FROM hourly_stats ORDER BY ${DIMENSION_COLUMNS_0001.join(', ')}`,
          format: 'JSONEachRow',
          clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
        });
        return result.json<Record<string, unknown>>();
      };
      let before: Record<string, unknown>[];
      try {
        await client.command({
          query: 'CREATE TABLE stats_migrations (name String, applied_at DateTime) ENGINE = TinyLog',
        });
        for (const m of clickHouseMigrations(PLAIN_SERVER).slice(0, 4)) {
          for (const step of m.sql) await client.command({ query: typeof step === 'string' ? step : step.sql });
          await client.command({
            query: `INSERT INTO stats_migrations (name, applied_at) VALUES ('${m.name}', now())`,
          });
        }
        // two inserts: two parts for the conversion to rewrite
        for (const half of [VARIED_ROWS.slice(0, 48), VARIED_ROWS.slice(48)])
          await client.insert({ table: 'hourly_stats', values: half, format: 'JSONEachRow' });
        before = await allRows();
      } finally {
        await client.close();
      }
      expect(before).toHaveLength(VARIED_ROWS.length);

      const stats = await open(old);
      expect(await stats.migrations()).toEqual(await statsMigrationsOf(stats));
      expect(await stats.migrations()).toContain('0005_low_cardinality');
      expect(await textColumnTypes(stats)).toEqual(CURRENT_TYPES);

      const duck = await open({ dataDir, clickhouseUrl: null, duckdbFile: ':memory:' });
      await duck.write(VARIED_ROWS);
      const answers = (store: StatsStore) => Promise.all(TYPE_REPORTS.map((r) => reportOn(store, r)));
      const expected = await answers(duck);
      expect(expected.map((rows) => rows.length > 1)).toEqual(TYPE_REPORTS.map(() => true));
      // the columns the rows had (later migrations add more, which the old rows read as empty)
      const columns = Object.keys(before[0]!).join(', ');
      const rowsOf = async () =>
        (await stats.select(
          `SELECT ${columns} FROM hourly_stats ORDER BY ${DIMENSION_COLUMNS_0001.join(', ')}`,
        )) as unknown;

      // while the server may still be rewriting the parts, and once it has: the same rows, the same answers
      expect(await rowsOf()).toEqual(before);
      expect(await answers(stats)).toEqual(expected);
      await expect
        .poll(
          () =>
            stats.select(
              'SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND NOT is_done',
            ),
          {
            timeout: 60_000,
          },
        )
        .toEqual([{ n: 0 }]);
      expect(await rowsOf()).toEqual(before);
      expect(await answers(stats)).toEqual(expected);
      // and it goes on: a new batch lands in the converted table and the rollup
      await stats.write(VARIED_ROWS.slice(0, 10));
      await duck.write(VARIED_ROWS.slice(0, 10));
      expect(await answers(stats)).toEqual(await answers(duck));
    });
  });

  describe.runIf(process.env.CLICKHOUSE_URL)('clickhouse at CLICKHOUSE_URL', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-types-'));
    const config: StatsStoreConfig = {
      dataDir,
      clickhouseUrl: process.env.CLICKHOUSE_URL ?? '',
      clickhouseDatabase: `adplane_test_types_${process.pid}_${randomBytes(4).toString('hex')}`,
    };
    let stats: StatsStore | undefined;
    afterAll(async () => {
      await stats?.close();
      await dropClickHouseDatabase(config.clickhouseUrl!, config.clickhouseDatabase!);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps plain String on a server without LowCardinality (18.16: experimental only), and answers as DuckDB', async () => {
      stats = await openStatsStore(config);
      const version = String((await stats.select('SELECT version() AS v'))[0]!.v);
      const server = clickHouseServerOf(version);
      expect(await textColumnTypes(stats)).toEqual(server.lowCardinality ? CURRENT_TYPES : PLAIN_TYPES);
      expect((await stats.migrations()).includes('0005_low_cardinality')).toBe(server.lowCardinality);
      if (version.startsWith('18.')) {
        // the type is there behind a flag that is off: a table with it is refused
        await expect(stats.exec('CREATE TABLE lc_probe (a LowCardinality(String)) ENGINE = Memory')).rejects.toThrow(
          /allow_experimental_low_cardinality_type/,
        );
        expect(server.lowCardinality).toBe(false);
      }
      await stats.write(VARIED_ROWS);
      const duck = await openStatsStore({ dataDir, clickhouseUrl: null, duckdbFile: ':memory:' });
      try {
        await duck.write(VARIED_ROWS);
        for (const r of TYPE_REPORTS) expect(await reportOn(stats, r)).toEqual(await reportOn(duck, r));
      } finally {
        await duck.close();
      }
    });
  });
});
