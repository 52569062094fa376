import { type CachedDoc } from '../edge/doors/prebidServer/bidCache.js';
import { type Exchange, type ExchangeReply, type Notices, type SpendRead } from '../delivery/sharedCounters.js';
import { type CounterTable } from '../stats/hourlyRow.js';

/**
 * The messages between the primary of `adplane --workers N` and its workers (node:cluster IPC,
 * structured clone). The primary holds what the workers must share when there is no Redis or
 * ClickHouse to share it through: the DuckDB stats store, the delivery counters, the impression
 * replay guard, and the relay of config change notices (docs/delivery.md, "Workers").
 */
export const CLUSTER_TAG = 'adplane-cluster';

/** The answer header naming the worker that answered (its cluster id; 0 for a single process). */
export const WORKER_HEADER = 'x-adplane-worker';

/** A worker's question, and the type of the primary's answer to it. */
export interface Calls {
  exchange: { args: { pid: string; leaseTtlMs: number; x: Exchange }; result: ExchangeReply };
  readSpend: { args: { keys: string[] }; result: SpendRead[] };
  leave: { args: { pid: string }; result: null };
  /** Impression (and video event) keys: true for each seen for the first time by any worker. */
  firstTimes: { args: { keys: string[]; now: number }; result: boolean[] };
  /** Every key answered new so far is on disk (the primary's journal): asked before a worker writes counts. */
  persistReplay: { args: Record<string, never>; result: null };
  /** A batch of stats rows, encoded by the worker for the DuckDB store (stats/duckdb/csvBatch.ts). */
  statsWriteCsv: { args: { csv: string }; result: null };
  /**
   * A flush of the worker's counters as their arrays (stats/hourlyRow.ts CounterTable; the channel's
   * advanced serialization keeps them typed): the primary's stats thread makes and encodes the rows.
   */
  statsWriteTable: { args: CounterTable; result: null };
  statsSelect: { args: { sql: string }; result: Record<string, unknown>[] };
  statsExec: { args: { sql: string }; result: null };
  /** A report file's rows to a Parquet file the worker's report-file thread reads (StatsStore.exportRows). */
  statsExport: { args: { sql: string; path: string }; result: null };
  statsMigrations: { args: Record<string, never>; result: string[] };
  /** The Prebid cache entries of the workers (edge/doors/prebidServer/bidCache.ts): the page's GET may reach another worker. */
  cachePut: { args: { uuid: string; doc: CachedDoc; ttlSeconds: number }; result: null };
  cacheGet: { args: { uuid: string }; result: CachedDoc | null };
}
export type Op = keyof Calls;

export type ToPrimary =
  | { tag: typeof CLUSTER_TAG; kind: 'call'; id: number; op: Op; args: Calls[Op]['args'] }
  /** Delivery notices to relay to the other workers (sharedCounters.ts: Notices). */
  | { tag: typeof CLUSTER_TAG; kind: 'notices'; notices: Notices }
  /** The config is now at `version`: relayed to the other workers (snapshot invalidation). */
  | { tag: typeof CLUSTER_TAG; kind: 'config'; version: number };

export type ToWorker =
  | { tag: typeof CLUSTER_TAG; kind: 'reply'; id: number; ok: true; value: unknown }
  | { tag: typeof CLUSTER_TAG; kind: 'reply'; id: number; ok: false; error: string }
  | { tag: typeof CLUSTER_TAG; kind: 'notices'; notices: Notices }
  | { tag: typeof CLUSTER_TAG; kind: 'config'; version: number };

export function isClusterMessage<T extends ToPrimary | ToWorker>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === CLUSTER_TAG;
}
