import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachStatsEngine } from '../../../test/statsEngines.js';
import { type Dimensions, HourlyCounters, hourOf, type Metrics } from './hourlyCounters.js';
import { DIMENSION_COLUMNS, METRIC_COLUMNS } from '../../stats/hourlyRow.js';
import { ROLLUP_TABLE } from '../../stats/rollup.js';
import { openStatsStore, STATS_TABLE, type StatsStore } from '../../stats/statsStore.js';

const T = Date.UTC(2026, 10, 23, 1, 30);

/**
 * What the store must hold: the sums of every add, by hour and dimensions, summed here without the
 * counters (a row as its dimension values in table order, text and ids as the store answers them).
 */
class Expected {
  readonly rows = new Map<string, Record<string, number>>();

  add(dims: Dimensions, metrics: Metrics, now: number): void {
    const key = JSON.stringify(
      DIMENSION_COLUMNS.map((c) =>
        c === 'hour' ? hourOf(now) : (dims[c] ?? ((DIMENSION_COLUMNS_IDS as string[]).includes(c) ? 0 : '')),
      ),
    );
    const sums = this.rows.get(key) ?? Object.fromEntries(METRIC_COLUMNS.map((m) => [m, 0]));
    for (const [m, v] of Object.entries(metrics)) sums[m]! += v;
    this.rows.set(key, sums);
  }

  /** Rows as `stored` answers them, sorted the same way. */
  sorted(): string[] {
    return [...this.rows]
      .map(([key, sums]) => JSON.stringify([...JSON.parse(key), ...METRIC_COLUMNS.map((m) => sums[m])]))
      .sort();
  }
}
const DIMENSION_COLUMNS_IDS = DIMENSION_COLUMNS.filter(
  (c) => c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id',
);

/** Every stored row of `tenant`, as Expected.sorted makes them. */
async function stored(stats: StatsStore, tenant: number): Promise<string[]> {
  // the table keeps each flush's rows: the same key flushed twice is two rows, summed here
  const hour = stats.engine === 'duckdb' ? "strftime(hour, '%Y-%m-%d %H:%M:%S')" : 'toString(hour)';
  const dims = DIMENSION_COLUMNS.filter((c) => c !== 'hour');
  const rows = await stats.select(
    `SELECT ${hour} AS hour, ${dims.join(', ')}, ${METRIC_COLUMNS.map((m) => `sum(${m}) AS ${m}`).join(', ')} FROM ${STATS_TABLE} WHERE tenant_id = ${tenant} GROUP BY hour, ${dims.join(', ')}`,
  );
  return rows
    .map((r) =>
      JSON.stringify(
        [...DIMENSION_COLUMNS, ...METRIC_COLUMNS].map((c) => (typeof r[c] === 'string' ? r[c] : Number(r[c]))),
      ),
    )
    .sort();
}

/** The rollup's sums of `tenant`, and the full rows' (they must agree). */
async function rollupAgrees(stats: StatsStore, tenant: number): Promise<void> {
  const sums = METRIC_COLUMNS.map((m) => `sum(${m}) AS ${m}`).join(', ');
  const [full] = await stats.select(`SELECT ${sums} FROM ${STATS_TABLE} WHERE tenant_id = ${tenant}`);
  const [rollup] = await stats.select(`SELECT ${sums} FROM ${ROLLUP_TABLE} WHERE tenant_id = ${tenant}`);
  for (const m of METRIC_COLUMNS) expect(Number(rollup![m]), m).toBe(Number(full![m]));
}

/** Adds `n` rows' worth of traffic for `tenant`: repeated and new keys, awkward text, two hours. */
function traffic(counters: HourlyCounters, expected: Expected, tenant: number, n: number, seed: number): void {
  for (let i = 0; i < n; i++) {
    const dims: Dimensions = {
      tenant_id: tenant,
      channel_id: 1 + (i % 37),
      tag_id: i % 5 ? 1 + ((i * 7) % 101) : 0,
      country: ['US', 'GB', 'DE', ''][i % 4]!,
      domain: `site-${(i * seed) % 211}.example`,
      deal_id: i % 9 ? '' : `deal "${i % 3}", 'q'`,
      nofill_reason: i % 6 ? '' : 'timeout',
      app_bundle: i % 11 ? '' : `com.app\n${seed}-${i % 13}`,
    };
    const metrics: Metrics = { reqs: 1, opps: i % 2, bids: i % 3 ? 0 : 1, revenue: 1_000 + i, cost: -(i % 4) };
    const now = T + (i % 2) * 3_600_000 + i;
    counters.add(dims, metrics, now);
    expected.add(dims, metrics, now);
  }
}

describe('the stats thread', () => {
  forEachStatsEngine((t) => {
    it('stores every row of a flush exactly as counted, and the rollup with them', async () => {
      const counters = new HourlyCounters(() => t.stats);
      const expected = new Expected();
      traffic(counters, expected, 101, 6_000, 3);
      await counters.flush();
      traffic(counters, expected, 101, 2_000, 5);
      await counters.flush();
      expect(counters.pending).toBe(0);
      expect(await stored(t.stats, 101)).toEqual(expected.sorted());
      await rollupAgrees(t.stats, 101);
    });

    it('reads the text of every list when the counters start new ones', async () => {
      const counters = new HourlyCounters(() => t.stats, { renewTextAt: 5 });
      const expected = new Expected();
      for (let round = 0; round < 4; round++) {
        traffic(counters, expected, 102, 300, 7 + round);
        await counters.flush();
      }
      expect(await stored(t.stats, 102)).toEqual(expected.sorted());
    });
  });
});

describe('the DuckDB stats thread', () => {
  it('takes a refused flush back whole and writes it with the next, new text included', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-thread-'));
    const stats = await openStatsStore({ dataDir, clickhouseUrl: null });
    try {
      const counters = new HourlyCounters(() => stats);
      const expected = new Expected();
      traffic(counters, expected, 1, 1_500, 3);
      await counters.flush();
      // the table away: DuckDB refuses the insert, as a full disk or a broken file would
      await stats.exec(`ALTER TABLE ${STATS_TABLE} RENAME TO hourly_stats_away`);
      traffic(counters, expected, 1, 1_500, 5);
      const pending = counters.pending;
      await expect(counters.flush()).rejects.toThrow(/hourly_stats/);
      expect(counters.pending).toBe(pending);
      await stats.exec(`ALTER TABLE hourly_stats_away RENAME TO ${STATS_TABLE}`);
      traffic(counters, expected, 1, 700, 11);
      await counters.flush();
      expect(counters.pending).toBe(0);
      expect(await stored(stats, 1)).toEqual(expected.sorted());
      await rollupAgrees(stats, 1);
    } finally {
      await stats.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stores a flush in flight before it closes, and refuses calls after', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-thread-'));
    try {
      const stats = await openStatsStore({ dataDir, clickhouseUrl: null });
      const counters = new HourlyCounters(() => stats);
      const expected = new Expected();
      traffic(counters, expected, 1, 5_000, 3);
      const flushed = counters.flush();
      // the flush's arrays are on their way to the thread when the store is closed (a shutdown)
      await new Promise((resolve) => setImmediate(resolve));
      await stats.close();
      await flushed;
      await expect(stats.select('SELECT 1')).rejects.toThrow('closed');
      const again = await openStatsStore({ dataDir, clickhouseUrl: null });
      try {
        expect(await stored(again, 1)).toEqual(expected.sorted());
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails to open as the store does: the error of the thread', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adplane-stats-thread-'));
    try {
      // a folder where the file should be: DuckDB cannot open it
      await expect(
        openStatsStore({ dataDir: join(dataDir, 'x'), clickhouseUrl: null, duckdbFile: '..' }),
      ).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
