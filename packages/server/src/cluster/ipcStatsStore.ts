import { KEY_WIDTH, METRICS } from '../stats/counterTable.js';
import { type CounterTable, type HourlyRows } from '../stats/hourlyRow.js';
import { duckdbDialect } from '../stats/reportSql.js';
import { batchCsv } from '../stats/duckdb/csvBatch.js';
import { type StatsStore } from '../stats/statsStore.js';
import { type WorkerLink } from './workerLink.js';

/**
 * A worker's stats store when the store is the DuckDB file (one process only may open it): every
 * call is served by the primary's store. A batch is checked and encoded here, as the store would
 * (a bad one fails in the worker that made it), and goes to the primary as one string: the primary
 * only writes it; a counters flush goes as its arrays, made into rows by the primary's stats thread.
 * Closing it closes nothing: the primary owns the store.
 */
export class IpcStatsStore implements StatsStore {
  readonly engine = 'duckdb';
  readonly dialect = duckdbDialect;

  constructor(private readonly link: WorkerLink) {}

  async write(rows: HourlyRows): Promise<void> {
    const csv = batchCsv(rows);
    if (csv) await this.link.call('statsWriteCsv', { csv }, 0);
  }

  /** A counters flush goes as its arrays (the rows in use only) and text: the primary's stats thread makes the rows. */
  async writeTable(table: CounterTable): Promise<void> {
    if (table.rows === 0) return;
    const { rows } = table;
    const keys = table.keys.slice(0, rows * KEY_WIDTH);
    const sums = table.sums.slice(0, rows * METRICS);
    await this.link.call('statsWriteTable', { rows, keys, sums, text: table.text }, 0);
  }

  select(sql: string): Promise<Record<string, unknown>[]> {
    return this.link.call('statsSelect', { sql }, 0);
  }

  /** The primary's store writes the rows to `path` (the data folder the processes share). */
  async exportRows(sql: string, path: string): Promise<void> {
    await this.link.call('statsExport', { sql, path }, 0);
  }

  async exec(sql: string): Promise<void> {
    await this.link.call('statsExec', { sql }, 0);
  }

  migrations(): Promise<string[]> {
    return this.link.call('statsMigrations', {}, 0);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
