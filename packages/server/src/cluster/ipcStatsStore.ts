import { type HourlyRows } from '../stats/hourlyRow.js';
import { duckdbDialect } from '../stats/reportSql.js';
import { batchCsv } from '../stats/duckdb/csvBatch.js';
import { type StatsStore } from '../stats/statsStore.js';
import { type WorkerLink } from './workerLink.js';

/**
 * A worker's stats store when the store is the DuckDB file (one process only may open it): every
 * call is served by the primary's store. A batch is checked and encoded here, as the store would
 * (a bad one fails in the worker that made it), and goes to the primary as one string: the primary
 * only writes it. Closing it closes nothing: the primary owns the store.
 */
export class IpcStatsStore implements StatsStore {
  readonly engine = 'duckdb';
  readonly dialect = duckdbDialect;

  constructor(private readonly link: WorkerLink) {}

  async write(rows: HourlyRows): Promise<void> {
    const csv = batchCsv(rows);
    if (csv) await this.link.call('statsWriteCsv', { csv }, 0);
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
