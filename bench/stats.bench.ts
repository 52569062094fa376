/**
 * Stats benchmark (issue 9, docs/performance.md "Reports"): on each stats engine (DuckDB always,
 * ClickHouse when CLICKHOUSE_URL is set), fill a fresh store with 30 days of hourly aggregates
 * (BENCH_STATS_ROWS, default 100 million, generated inside the engine), then time:
 * - report by day and channel over 30 days, 6 metrics, one tenant   (target 500 ms)
 * - a report scanning every stored row (admin, by day)               (target 1 s)
 * - the dashboard of one tenant, p95                                 (target 50 ms)
 * - ingest through StatsSink.write in batches of 10,000 rows         (target 250,000 events/s per core)
 * each beside a bare engine query of the same shape run in the same process, and writes
 * bench/results/stats-<engine>.json. Exit code 1 when a target is missed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ReportRequest, type ReportRequestInput } from '@adplane/shared';
import { dropClickHouseDatabase } from '../packages/server/src/stats/clickhouse/clickhouseStore.js';
import { type HourlyRow, DIMENSION_COLUMNS, METRIC_COLUMNS } from '../packages/server/src/stats/hourlyRow.js';
import { rollupBackfillSql } from '../packages/server/src/stats/rollup.js';
import { getDashboard } from '../packages/server/src/stats/queries/getDashboard.js';
import { getReport, type ReportContext } from '../packages/server/src/stats/queries/getReport.js';
import { openStatsStore, type StatsStore } from '../packages/server/src/stats/statsStore.js';

const ROWS = Number(process.env.BENCH_STATS_ROWS ?? 100_000_000);
const TENANTS = 50;
const HOURS = 30 * 24;
const START = '2026-10-24 00:00:00';
const NOW = Date.parse('2026-11-22T23:30:00Z');
const TENANT = 7;
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

/** The row generator, one SQL expression per column, `i` the row number (hour-major, as the edge flushes). */
function generatorSql(engine: 'duckdb' | 'clickhouse'): string {
  const i = engine === 'duckdb' ? 'i' : 'number';
  const perHour = Math.ceil(ROWS / HOURS);
  const hourExpr = engine === 'duckdb'
    ? `TIMESTAMP '${START}' + to_hours(CAST(${i} // ${perHour} AS BIGINT))`
    : `toDateTime('${START}', 'UTC') + intDiv(${i}, ${perHour}) * 3600`;
  const mod = (n: number, salt = 1) => `((${i} * ${salt}) % ${n})`;
  // A CASE, not a list literal indexed per row: building a list for every row is what costs.
  const pick = (values: string[], salt: number) => `(CASE ${mod(values.length, salt)} ${values.map((v, k) => `WHEN ${k} THEN '${v}'`).join(' ')} ELSE '' END)`;
  const h = (salt: number) => `((${i} * ${salt} + 7) % 1000)`;
  const cols: Record<string, string> = {
    hour: hourExpr,
    tenant_id: `${mod(TENANTS)} + 1`,
    // A channel calls 3 of the tenant's tags, as a real channel's demand list does.
    channel_id: `(${mod(TENANTS)} + 1) * 1000 + ${mod(40, 7)}`,
    subpublisher_id: `(${mod(TENANTS)} + 1) * 100 + ${mod(40, 7)} % 8`,
    tag_id: `(${mod(TENANTS)} + 1) * 1000 + 500 + (${mod(40, 7)} * 3 + ${mod(3, 11)}) % 60`,
    partner: pick(['', 'appnexus', 'pubmatic', 'rubicon'], 13),
    advertiser_id: `(${mod(TENANTS)} + 1) * 100 + 50 + ((${mod(40, 7)} * 3 + ${mod(3, 11)}) % 60) % 10`,
    campaign_id: `${mod(3, 19)} * ((${mod(TENANTS)} + 1) * 1000 + 800 + ${mod(20, 23)})`,
    creative_id: `${mod(30, 29)}`,
    supplier_id: `${mod(5, 31)}`,
    adexchange_id: `${mod(4, 37)}`,
    deal_id: pick(['', '', '', 'deal-1', 'deal-2'], 41),
    marketplace_name: pick(['', 'Crestline', 'Meridian', 'PubMatic'], 43),
    country: pick(['US', 'US', 'US', 'GB', 'DE', 'CA', 'FR', 'BR', 'IN', 'JP'], 47),
    region: pick(['NAM', 'EMEA', 'APAC', 'LATAM'], 53),
    us_state: pick(['CA', 'NY', 'TX', 'FL', ''], 59),
    device: pick(['SmartTV', 'Mobile', 'Desktop'], 61),
    os: pick(['Roku', 'Tizen', 'iOS', 'Android', 'Windows', 'macOS'], 67),
    browser: pick(['Chrome', 'Safari', 'Roku', 'Samsung Internet'], 71),
    app_bundle: `concat('com.app', CAST(${mod(500, 73)} AS ${engine === 'duckdb' ? 'VARCHAR' : 'String'}))`,
    domain: `concat('site', CAST(${mod(300, 79)} AS ${engine === 'duckdb' ? 'VARCHAR' : 'String'}), '.test')`,
    publisher_id: `concat('pub-', CAST(${mod(200, 83)} AS ${engine === 'duckdb' ? 'VARCHAR' : 'String'}))`,
    integration: pick(['VAST', 'RTB', 'PreBid'], 89),
    vast_error: pick(['', '', '', '', '', '', '', '', '303', '402'], 97),
    nofill_reason: pick(['', '', '', 'no_bid', 'timeout'], 101),
  };
  const reqs = `(100 + ${h(3)})`;
  const metrics: Record<string, string> = {
    reqs, opps: `(${reqs} * 9 / 10)`, demand_calls: `(${reqs} * 8 / 10)`, responses: `(${reqs} * 6 / 10)`, timeouts: `(${reqs} / 20)`,
    bids: `(${reqs} * 3 / 10)`, wins: `(${reqs} / 5)`, imps: `(${reqs} * 18 / 100)`, starts: `(${reqs} * 17 / 100)`, first_quartiles: `(${reqs} * 16 / 100)`,
    midpoints: `(${reqs} * 15 / 100)`, third_quartiles: `(${reqs} * 14 / 100)`, completes: `(${reqs} * 12 / 100)`, clicks: `(${reqs} / 200)`, errors: `(${reqs} / 50)`,
    ivt: `(${reqs} / 40)`, postbid_imps: `(${reqs} / 50)`, revenue: `(${reqs} * 18 / 100) * (8000 + ${h(5)} * 10)`, cost: `(${reqs} * 18 / 100) * (4000 + ${h(5)} * 5)`,
    rev_m: `(${reqs} * 9 / 100) * 8000`, rev_md: `(${reqs} * 2 / 100) * 8000`,
  };
  const all = [...DIMENSION_COLUMNS.map((c) => `${cols[c]} AS ${c}`), ...METRIC_COLUMNS.map((c) => `CAST(${metrics[c]} AS ${engine === 'duckdb' ? 'BIGINT' : 'Int64'}) AS ${c}`)];
  const from = engine === 'duckdb' ? `range(${ROWS}) t(i)` : `numbers(${ROWS})`;
  return `INSERT INTO hourly_stats (${[...DIMENSION_COLUMNS, ...METRIC_COLUMNS].join(', ')}) SELECT ${all.join(', ')} FROM ${from}`;
}

async function time<T>(runs: number, work: () => Promise<T>): Promise<{ p50: number; p95: number; max: number; last: T }> {
  const ms: number[] = [];
  let last!: T;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    last = await work();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: round(ms[Math.floor(ms.length * 0.5)]), p95: round(ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.95) - 1)]), max: round(ms.at(-1)!), last };
}

function ingestRows(n: number, offset: number): HourlyRow[] {
  const rows: HourlyRow[] = [];
  for (let k = 0; k < n; k++) {
    const i = offset + k;
    const reqs = 100 + (i % 900);
    rows.push({
      hour: `2026-11-22 ${String(i % 24).padStart(2, '0')}:00:00`, tenant_id: (i % TENANTS) + 1, channel_id: i % 4000, subpublisher_id: i % 400, tag_id: i % 6000,
      partner: '', advertiser_id: i % 500, campaign_id: i % 3 ? 0 : i % 1000, creative_id: i % 30, supplier_id: 0, adexchange_id: i % 4, deal_id: '',
      marketplace_name: i % 2 ? 'Crestline' : '', country: ['US', 'GB', 'DE'][i % 3], region: 'NAM', us_state: '', device: 'SmartTV', os: 'Roku', browser: 'Roku',
      app_bundle: `com.app${i % 500}`, domain: '', publisher_id: `pub-${i % 200}`, integration: 'VAST', vast_error: '', nofill_reason: '',
      reqs, opps: reqs - 10, demand_calls: reqs - 20, responses: reqs - 40, timeouts: 5, bids: 50, wins: 30, imps: 28, starts: 27, first_quartiles: 25,
      midpoints: 22, third_quartiles: 20, completes: 18, clicks: 1, errors: 2, ivt: 3, postbid_imps: 2, revenue: 280_000, cost: 140_000, rev_m: 140_000, rev_md: 0,
    });
  }
  return rows;
}
const eventsOf = (row: HourlyRow) => row.reqs + row.demand_calls + row.responses + row.bids + row.wins + row.imps + row.starts + row.first_quartiles + row.midpoints + row.third_quartiles + row.completes + row.clicks + row.errors;

async function benchEngine(engine: 'duckdb' | 'clickhouse') {
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-bench-'));
  const database = `adplane_bench_${process.pid}`;
  const config = { dataDir, clickhouseUrl: engine === 'clickhouse' ? process.env.CLICKHOUSE_URL! : null, clickhouseDatabase: database };
  const stats: StatsStore = await openStatsStore(config);
  const out: Record<string, unknown> = { engine, rows: ROWS };
  try {
    process.stdout.write(`${engine}: generating ${ROWS.toLocaleString('en-US')} rows...\n`);
    let t0 = performance.now();
    await stats.exec(generatorSql(engine));
    // ClickHouse's materialised view filled the rollup during the insert; DuckDB's store fills it on write, so a bulk load sums it here.
    if (engine === 'duckdb') await stats.exec(rollupBackfillSql());
    out.generateSeconds = round((performance.now() - t0) / 1000);
    const [{ n }] = await stats.select('SELECT count(*) AS n FROM hourly_stats');
    out.storedRows = Number(n);
    const [{ r }] = await stats.select('SELECT count(*) AS r FROM hourly_rollup');
    out.rollupRows = Number(r);

    const ctx = (tenantId: number | null): ReportContext => ({ stats, db: null, scope: { tenantId }, prices: new Map(), isAdmin: tenantId === null });
    const report = (input: ReportRequestInput, tenantId: number | null) => getReport(ctx(tenantId), ReportRequest.parse(input));
    const six = ['reqs', 'opps', 'imps', 'revenue', 'fill', 'ecpm'] as const;
    const range = { startDate: '2026-10-24', endDate: '2026-11-22', timezone: 0 };
    const d = engine === 'duckdb' ? "strftime(hour, '%Y-%m-%d')" : "formatDateTime(hour, '%Y-%m-%d', 'UTC')";
    const lit = (s: string) => (engine === 'duckdb' ? `TIMESTAMP '${s}'` : `toDateTime('${s}', 'UTC')`);
    const bareSix = 'sum(reqs), sum(opps), sum(imps), sum(revenue), sum(imps) * 100 / sum(opps), sum(revenue) * 1000 / sum(imps)';
    const where = `hour >= ${lit('2026-10-24 00:00:00')} AND hour < ${lit('2026-11-23 00:00:00')}`;

    const cases: Record<string, { ours: Awaited<ReturnType<typeof time>>; bare: Awaited<ReturnType<typeof time>>; targetMs: number; stat: 'p50' | 'p95' }> = {};
    const runCase = async (name: string, runs: number, targetMs: number, stat: 'p50' | 'p95', ours: () => Promise<unknown>, bareSql: string[]) => {
      await ours();
      const o = await time(runs, ours);
      const b = await time(runs, () => Promise.all(bareSql.map((q) => stats.select(q))));
      cases[name] = { ours: { ...o, last: undefined }, bare: { ...b, last: undefined }, targetMs, stat };
      process.stdout.write(`${engine} ${name}: ours ${stat} ${o[stat]} ms, bare ${b[stat]} ms (target ${targetMs} ms)\n`);
    };
    await runCase('report_day_channel_30d', 10, 500, 'p50', () => report({ ...range, dimensions: ['date', 'channel'], metrics: [...six] }, TENANT),
      [`SELECT ${d} AS day, channel_id, ${bareSix} FROM hourly_stats WHERE ${where} AND tenant_id = ${TENANT} GROUP BY day, channel_id ORDER BY day, channel_id LIMIT 10000`]);
    // By day and device: device is not in the rollup, so this reads every stored row of the 30 days.
    await runCase('scan_all_rows_by_day_device', 5, 1000, 'p50', () => report({ ...range, dimensions: ['date', 'device'], metrics: [...six] }, null),
      [`SELECT ${d} AS day, device, ${bareSix} FROM hourly_stats WHERE ${where} GROUP BY day, device ORDER BY day, device`]);
    const week = `tenant_id = ${TENANT} AND hour >= ${lit('2026-11-16 00:00:00')} AND hour < ${lit('2026-11-23 00:00:00')}`;
    // The dashboard's shape: the week by hour on the rollup, top channels, top tags.
    await runCase('dashboard', 20, 50, 'p95', () => getDashboard(ctx(TENANT), 0, NOW), [
      `SELECT hour, sum(revenue), sum(cost), sum(imps), sum(opps), sum(reqs) FROM hourly_rollup WHERE ${week} GROUP BY hour ORDER BY hour`,
      `SELECT channel_id, sum(revenue) AS r, sum(imps), sum(imps) * 100 / sum(opps) FROM hourly_rollup WHERE ${week} GROUP BY channel_id ORDER BY r DESC LIMIT 5`,
      `SELECT tag_id, sum(revenue) AS r, sum(imps), sum(imps) * 100 / sum(opps) FROM hourly_rollup WHERE ${week} GROUP BY tag_id ORDER BY r DESC LIMIT 5`,
    ]);
    out.cases = cases;

    // Ingest through the StatsSink, in batches, into a fresh store.
    const sinkDir = mkdtempSync(join(tmpdir(), 'adplane-stats-ingest-'));
    const sink = await openStatsStore({ ...config, dataDir: sinkDir, clickhouseDatabase: `${database}_ingest` });
    const batches = Array.from({ length: 20 }, (_, b) => ingestRows(10_000, b * 10_000));
    const events = batches.flat().reduce((s, r) => s + eventsOf(r), 0);
    const cpu0 = process.cpuUsage();
    t0 = performance.now();
    for (const batch of batches) await sink.write(batch);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    out.ingest = {
      rows: 200_000, batchRows: 10_000, seconds: round(seconds, 2), rowsPerSecond: Math.round(200_000 / seconds), eventsPerSecond: Math.round(events / seconds),
      processCpuSeconds: round((cpu.user + cpu.system) / 1e6, 2), eventsPerCpuSecond: Math.round(events / ((cpu.user + cpu.system) / 1e6)), targetEventsPerSecondPerCore: 250_000,
    };
    process.stdout.write(`${engine} ingest: ${JSON.stringify(out.ingest)}\n`);
    await sink.close();
    if (engine === 'clickhouse') await dropClickHouseDatabase(config.clickhouseUrl!, `${database}_ingest`);
    rmSync(sinkDir, { recursive: true, force: true });
  } finally {
    await stats.close();
    if (engine === 'clickhouse') await dropClickHouseDatabase(config.clickhouseUrl!, database);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

const engines: ('duckdb' | 'clickhouse')[] = (process.env.BENCH_ENGINES ?? (process.env.CLICKHOUSE_URL ? 'duckdb,clickhouse' : 'duckdb')).split(',') as ('duckdb' | 'clickhouse')[];
let missed = false;
for (const engine of engines) {
  const loadBefore = loadavg().map((v) => round(v, 2));
  const result = await benchEngine(engine);
  const cases = result.cases as Record<string, { ours: Record<string, number>; targetMs: number; stat: 'p50' | 'p95' }>;
  for (const [name, c] of Object.entries(cases)) if (c.ours[c.stat] > c.targetMs) { missed = true; process.stdout.write(`MISSED ${engine} ${name}\n`); }
  const ingest = result.ingest as { eventsPerCpuSecond: number };
  if (ingest.eventsPerCpuSecond < 250_000) missed = true;
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/stats-${engine}.json`, `${JSON.stringify({
    ...result, machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: round(totalmem() / 2 ** 30), loadAverageBefore: loadBefore, loadAverageAfter: loadavg().map((v) => round(v, 2)) }, at: new Date().toISOString(),
  }, null, 2)}\n`);
}
process.exit(missed ? 1 : 0);
