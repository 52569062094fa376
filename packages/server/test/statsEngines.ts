import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type HourlyRow } from '../src/stats/hourlyRow.js';
import { dropClickHouseDatabase } from '../src/stats/clickhouse/clickhouseStore.js';
import { clickHouseServerOf } from '../src/stats/clickhouse/migrations.js';
import { openStatsStore, type StatsStore, type StatsStoreConfig } from '../src/stats/statsStore.js';
import { chdbServer } from './chdbServer.js';
import { openTestStore, postgresMissingOnCi, type TestStore } from './helpers.js';
import { type Dialect } from '../src/store/db.js';

/** `clickhouse`: the server at CLICKHOUSE_URL (CI: Debian's 18.16); `chdb`: a current ClickHouse in the worker (chdbServer.ts). */
type StatsEngine = 'duckdb' | 'clickhouse' | 'chdb';

export interface TestStats {
  readonly engine: StatsEngine;
  readonly stats: StatsStore;
  /** What openStatsStore was given (an app under test opens its own store from it). */
  readonly config: StatsStoreConfig;
}

function openTestStats(engine: StatsEngine): TestStats {
  let stats: StatsStore | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-'));
  const config: StatsStoreConfig =
    engine === 'duckdb'
      ? { dataDir, clickhouseUrl: null }
      : {
          dataDir,
          clickhouseUrl: process.env.CLICKHOUSE_URL ?? '',
          clickhouseDatabase: `adplane_test_${process.pid}_${randomBytes(4).toString('hex')}`,
        };
  beforeAll(async () => {
    // chdb's URL is known once the worker's server listens, before any test or later hook reads the config
    if (engine === 'chdb') config.clickhouseUrl = (await chdbServer()).url;
    stats = await openStatsStore(config);
  });
  afterAll(async () => {
    await stats?.close();
    if (config.clickhouseUrl && config.clickhouseDatabase)
      await dropClickHouseDatabase(config.clickhouseUrl, config.clickhouseDatabase);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    engine,
    config,
    get stats() {
      if (!stats) throw new Error('The stats store is opened in beforeAll: use it inside a test or hook');
      return stats;
    },
  };
}

/**
 * Run `fn`'s tests on the embedded DuckDB stats store and, when CLICKHOUSE_URL is set, on ClickHouse
 * (a fresh database per block, dropped after), as forEachStore does for SQLite and PostgreSQL. With
 * CI=true and no CLICKHOUSE_URL, the ClickHouse block fails.
 */
export function forEachStatsEngine(fn: (t: TestStats) => void): void {
  describe('duckdb', () => fn(openTestStats('duckdb')));
  onClickHouseUrl(fn);
}

/**
 * forEachStatsEngine and a block on a current ClickHouse (chdb in the test worker: chdbServer.ts),
 * as CI's clickhouse-server is Debian's 18.16: the files that prove the store's SQL and the reports'
 * numbers on every engine run here; the others, whose SQL those files cover, spare its time.
 */
export function forEachStatsEngineAndCurrent(fn: (t: TestStats) => void): void {
  describe('duckdb', () => fn(openTestStats('duckdb')));
  describe('clickhouse (current, chdb)', () => fn(openTestStats('chdb')));
  onClickHouseUrl(fn);
}

function onClickHouseUrl(fn: (t: TestStats) => void): void {
  if (process.env.CLICKHOUSE_URL) {
    describe('clickhouse', () => fn(openTestStats('clickhouse')));
  } else {
    clickHouseMissingOnCi();
  }
}

/**
 * The tests of an API over both stores, a config store (SQLite, PostgreSQL) and a stats engine
 * (DuckDB, ClickHouse; with `current`, chdb's current ClickHouse too), on pairs that give every
 * store and every engine a block, not on their cross product: the two are separate databases that
 * never meet in one query (a report reads its numbers from the stats engine and the names from the
 * config store, joined in the app), so what one answers does not depend on the other's kind.
 * SQLite meets DuckDB (the embedded set-up) and chdb; PostgreSQL meets ClickHouse (the scale-out
 * set-up), or DuckDB where CLICKHOUSE_URL is unset. A store or engine CI lacks fails as in
 * forEachStore and forEachStatsEngine.
 */
export function forEachStoreAndStatsEngine(
  fn: (t: TestStore, s: TestStats) => void,
  options: { current?: boolean; seed?: boolean } = {},
): void {
  const seed = options.seed ?? true;
  const pair = (store: Dialect, engine: StatsEngine) =>
    describe(`${store} + ${engine}`, () => fn(openTestStore(store, seed), openTestStats(engine)));
  pair('sqlite', 'duckdb');
  if (options.current) pair('sqlite', 'chdb');
  const clickhouse = Boolean(process.env.CLICKHOUSE_URL);
  if (process.env.DATABASE_URL) pair('postgres', clickhouse ? 'clickhouse' : 'duckdb');
  else {
    postgresMissingOnCi();
    if (clickhouse) pair('sqlite', 'clickhouse');
  }
  if (!clickhouse) clickHouseMissingOnCi();
}

/** With CI=true and no CLICKHOUSE_URL, a block whose one test fails, saying how to start ClickHouse. */
function clickHouseMissingOnCi(): void {
  if (process.env.CI === 'true') {
    describe('clickhouse', () => {
      it('needs CLICKHOUSE_URL on CI', () => {
        throw new Error(
          'CI=true but CLICKHOUSE_URL is unset: the ClickHouse stats tests cannot run. Start it with .ci/clickhouse.sh and set CLICKHOUSE_URL=http://127.0.0.1:8123 (see .ci/run).',
        );
      });
    });
  }
}

/**
 * The migrations a store of the current code records: every engine's first four, and on a ClickHouse
 * that has LowCardinality (19.3 on; not CI's 18.16) the text columns' conversion.
 */
export async function statsMigrationsOf(stats: StatsStore): Promise<string[]> {
  const all = ['0001_hourly_stats', '0002_hourly_rollup', '0003_source_reqs_opps', '0004_postbid_ivt'];
  const later = ['0006_arm', '0007_deal_reqs'];
  if (stats.engine !== 'clickhouse') return [...all, ...later];
  const [{ v }] = await stats.select('SELECT version() AS v');
  return clickHouseServerOf(String(v)).lowCardinality ? [...all, '0005_low_cardinality', ...later] : [...all, ...later];
}

/** An hourly row with every dimension empty and every count 0, overridden by `values`. */
export function statsRow(values: Partial<HourlyRow> & { hour: string }): HourlyRow {
  return {
    tenant_id: 0,
    channel_id: 0,
    subpublisher_id: 0,
    tag_id: 0,
    partner: '',
    advertiser_id: 0,
    campaign_id: 0,
    creative_id: 0,
    supplier_id: 0,
    adexchange_id: 0,
    deal_id: '',
    marketplace_name: '',
    country: '',
    region: '',
    us_state: '',
    device: '',
    os: '',
    browser: '',
    app_bundle: '',
    domain: '',
    publisher_id: '',
    integration: '',
    vast_error: '',
    nofill_reason: '',
    arm: '',
    reqs: 0,
    opps: 0,
    demand_calls: 0,
    responses: 0,
    timeouts: 0,
    bids: 0,
    wins: 0,
    imps: 0,
    starts: 0,
    first_quartiles: 0,
    midpoints: 0,
    third_quartiles: 0,
    completes: 0,
    clicks: 0,
    errors: 0,
    ivt: 0,
    postbid_imps: 0,
    revenue: 0,
    cost: 0,
    rev_m: 0,
    rev_md: 0,
    source_reqs: 0,
    source_opps: 0,
    postbid_ivt: 0,
    deal_reqs: 0,
    ...values,
  };
}
