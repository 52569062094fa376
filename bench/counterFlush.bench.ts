/**
 * The serving thread's share of a counters flush (docs/performance.md, "The counters' flush"): the
 * edge's HourlyCounters filled with BENCH_FLUSH_ROWS (20,000) distinct rows, then flushed to a DuckDB
 * stats store, BENCH_ROUNDS (8) times a case, while a 1 ms timer on the same thread records how late
 * it runs (the event loop's stall), and the serving thread's CPU time (Linux's schedstat) and the
 * event loop's busy time are read around the flush:
 *
 *   npx tsx bench/counterFlush.bench.ts
 *
 * Cases: the store on the serving thread (openDuckDbStore: the rows made and encoded there, 1,000 at
 * a time); the store as the server opens it (openStatsStore: the stats thread owns DuckDB, the flush
 * hands it the counters' typed arrays). With CLICKHOUSE_URL, ClickHouse's store alike (on the serving
 * thread: openClickHouseStore; as the server opens it: the flush written by the stats thread), in a
 * database of the run's own, dropped after each case. After the rounds, each case times two reads
 * of what they stored (a report's grouped answer, 10,000 rows) and the serving thread's CPU in them:
 * on DuckDB the stats thread answers reads too, their rows copied to the serving thread. Every round checks that the store holds exactly the rows counted. Results:
 * bench/results/counter-flush.json and a table on stdout; BENCH_CASES=a,b runs those only (nothing
 * written).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { HourlyCounters } from '../packages/server/src/edge/counters/hourlyCounters.js';
import {
  dropClickHouseDatabase,
  openClickHouseStore,
} from '../packages/server/src/stats/clickhouse/clickhouseStore.js';
import { openDuckDbStore } from '../packages/server/src/stats/duckdb/duckdbStore.js';
import { openStatsStore, STATS_TABLE, type StatsStore } from '../packages/server/src/stats/statsStore.js';

const ROWS = Number(process.env.BENCH_FLUSH_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const here = dirname(fileURLToPath(import.meta.url));
const HOUR = Date.UTC(2026, 10, 28, 12) + 1_000;

const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'CA', 'BR', 'IN', 'JP'];
const DEVICES = ['ctv', 'mobile', 'desktop', 'tablet'];
const OS = ['roku', 'tizen', 'android', 'ios', 'windows'];

/** Adds `ROWS` distinct rows (several text columns each, as a varied hour of traffic makes them). */
function fill(counters: HourlyCounters, round: number): void {
  for (let i = 0; i < ROWS; i++) {
    counters.add(
      {
        tenant_id: 1 + (i % 50),
        channel_id: 1 + (i % 997),
        tag_id: 1 + (i % 4001),
        country: COUNTRIES[i % COUNTRIES.length]!,
        device: DEVICES[i % DEVICES.length]!,
        os: OS[i % OS.length]!,
        domain: `site-${i % 5003}.example.com`,
        app_bundle: i % 3 ? '' : `com.example.app${i % 701}`,
        integration: 'VAST',
        nofill_reason: i % 4 ? '' : 'timeout',
      },
      { reqs: 1, opps: 1, demand_calls: 2, bids: 1, imps: 1, revenue: 1_250 + round },
      HOUR + i,
    );
  }
}

interface Round {
  flushMs: number;
  cpuMs: number;
  busyMs: number;
  maxStallMs: number;
}

/** The serving thread's time on a CPU so far, in ms (Linux's schedstat: ns, not the 10 ms ticks of stat). */
const servingCpuMs = (): number =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

async function measure(stats: StatsStore): Promise<Round[]> {
  const counters = new HourlyCounters(() => stats);
  const rounds: Round[] = [];
  // the first round warms the code up and is not reported; then rounds alternate: the stall measured
  // by the timer, and the CPU and busy time without it (its own ticks would count in them)
  for (let round = 0; round < 2 * ROUNDS + 1; round++) {
    fill(counters, round);
    if (counters.pending !== ROWS) throw new Error(`expected ${ROWS} rows pending, got ${counters.pending}`);
    const timed = round % 2 === 1;
    let maxStall = 0;
    let last = performance.now();
    let ticking = timed;
    const tick = () => {
      const now = performance.now();
      maxStall = Math.max(maxStall, now - last - 1);
      last = now;
      if (ticking) setTimeout(tick, 1);
    };
    if (timed) setTimeout(tick, 1);
    const elu = performance.eventLoopUtilization();
    const cpu0 = servingCpuMs();
    const t0 = performance.now();
    await counters.flush();
    const flushMs = performance.now() - t0;
    const cpuMs = servingCpuMs() - cpu0;
    const busyMs = performance.eventLoopUtilization(elu).active;
    ticking = false;
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (round > 0) rounds.push({ flushMs, cpuMs, busyMs, maxStallMs: timed ? Math.max(0, maxStall) : Number.NaN });
    const [stored] = await stats.select(`SELECT count(*) AS n, sum(reqs) AS reqs FROM ${STATS_TABLE}`);
    if (Number(stored!.n) !== ROWS * (round + 1) || Number(stored!.reqs) !== ROWS * (round + 1))
      throw new Error(`round ${round}: the store holds ${JSON.stringify(stored)}, not ${ROWS * (round + 1)} rows`);
  }
  return rounds;
}

/**
 * Reads of the rows the rounds stored, as the store answers them: a report's grouped answer (a few
 * hundred rows) and 10,000 rows; per read its time and the serving thread's CPU (median of 15).
 */
async function reads(stats: StatsStore): Promise<Record<string, { ms: number; servingCpuMs: number }>> {
  const day = stats.engine === 'duckdb' ? "date_trunc('day', hour)" : 'toStartOfDay(hour)';
  const cases = {
    'by day and channel, one tenant': `SELECT ${day} AS d, channel_id, sum(reqs) AS reqs, sum(revenue) AS revenue FROM ${STATS_TABLE} WHERE tenant_id = 7 GROUP BY d, channel_id ORDER BY d, channel_id`,
    '10,000 rows': `SELECT tenant_id, channel_id, tag_id, country, domain, reqs, revenue FROM ${STATS_TABLE} LIMIT 10000`,
  };
  const out: Record<string, { ms: number; servingCpuMs: number }> = {};
  for (const [name, sql] of Object.entries(cases)) {
    await stats.select(sql);
    const ms: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 15; i++) {
      const cpu0 = servingCpuMs();
      const t0 = performance.now();
      await stats.select(sql);
      ms.push(performance.now() - t0);
      cpu.push(servingCpuMs() - cpu0);
    }
    out[name] = { ms: round1(median(ms)), servingCpuMs: round1(median(cpu)) };
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (x: number) => Math.round(x * 10) / 10;

const CASES: Record<string, (dir: string) => Promise<StatsStore>> = {
  'duckdb, store on the serving thread': (dir) => openDuckDbStore(dir, 'stats.duckdb'),
  'duckdb, as the server opens it': (dir) => openStatsStore({ dataDir: dir, clickhouseUrl: null }),
};
const clickhouseUrl = process.env.CLICKHOUSE_URL;
const database = `adplane_flush_bench_${process.pid}`;
if (clickhouseUrl) {
  CASES['clickhouse, store on the serving thread'] = () => openClickHouseStore(clickhouseUrl, database);
  CASES['clickhouse, as the server opens it'] = (dir) =>
    openStatsStore({ dataDir: dir, clickhouseUrl, clickhouseDatabase: database });
}

async function main(): Promise<void> {
  const only = process.env.BENCH_CASES?.split(',');
  const results: Record<string, unknown>[] = [];
  for (const [name, open] of Object.entries(CASES)) {
    if (only && !only.some((o) => name.includes(o))) continue;
    const dir = mkdtempSync(join(tmpdir(), 'adplane-flush-bench-'));
    const stats = await open(dir);
    try {
      const rounds = await measure(stats);
      const timed = rounds.filter((r) => !Number.isNaN(r.maxStallMs));
      const untimed = rounds.filter((r) => Number.isNaN(r.maxStallMs));
      const row = {
        case: name,
        flushMs: round1(median(rounds.map((r) => r.flushMs))),
        servingCpuMs: round1(median(untimed.map((r) => r.cpuMs))),
        servingCpuMaxMs: round1(Math.max(...untimed.map((r) => r.cpuMs))),
        loopBusyMs: round1(median(untimed.map((r) => r.busyMs))),
        maxStallMs: round1(median(timed.map((r) => r.maxStallMs))),
        worstStallMs: round1(Math.max(...timed.map((r) => r.maxStallMs))),
        reads: await reads(stats),
      };
      results.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
    } finally {
      await stats.close();
      if (clickhouseUrl && name.startsWith('clickhouse')) await dropClickHouseDatabase(clickhouseUrl, database);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (only) return;
  writeFileSync(
    join(here, 'results', 'counter-flush.json'),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg(), node: process.version },
        setup: { rows: ROWS, rounds: ROUNDS },
        cases: results,
      },
      null,
      2,
    )}\n`,
  );
}

await main();
