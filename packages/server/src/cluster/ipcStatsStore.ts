import { type HourlyRows } from '../stats/hourlyRow.js';
import { clickhouseDialect, duckdbDialect } from '../stats/reportSql.js';
import { checkBatch, type StatsStore } from '../stats/statsStore.js';
import { type WorkerLink } from './workerLink.js';

/**
 * A worker's stats store when the store is the DuckDB file (one process only may open it): every
 * call is served by the primary's store. Batches are checked here too, so a bad one fails in the
 * worker that made it. Closing it closes nothing: the primary owns the store.
 */
export class IpcStatsStore implements StatsStore {
  readonly dialect;

  constructor(
    private readonly link: WorkerLink,
    readonly engine: 'duckdb' | 'clickhouse',
  ) {
    this.dialect = engine === 'duckdb' ? duckdbDialect : clickhouseDialect;
  }

  async write(rows: HourlyRows): Promise<void> {
    const list = checkBatch(rows);
    if (list.length) await this.link.call('statsWrite', { rows: list }, 0);
  }

  select(sql: string): Promise<Record<string, unknown>[]> {
    return this.link.call('statsSelect', { sql }, 0);
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
