import { type DimensionId, type ReportRequest, type ReportRow } from '@adplane/shared';

/**
 * The messages between the serving thread and the report-file thread (reportFileThread.ts,
 * reportFileWorker.ts). A file is a job: opened (its header written), its rows written part by part,
 * closed (its totals line written last); one call of a job at a time.
 */

/** Where a part's rows come from: a Parquet file the stats store wrote, or ClickHouse. */
export interface RowSource {
  parquet: string;
}

export type JobOp =
  | { kind: 'open'; path: string; request: ReportRequest; named: boolean }
  /** Answers the number of rows written. */
  | { kind: 'rows'; source: RowSource }
  | { kind: 'close'; totals: ReportRow | null };

export type ToThread =
  | { t: 'call'; id: number; job: number; op: JobOp }
  /** Stops a job at its next chunk and drops its file's stream (its call fails as cancelled). */
  | { t: 'cancel'; job: number }
  | { t: 'names'; ask: number; names: [number, string][] };

export type FromThread =
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string; cancelled: boolean }
  /** The names of entity ids of a job's rows, asked once per id and file. */
  | { t: 'names'; job: number; ask: number; dimension: DimensionId; ids: number[] };
