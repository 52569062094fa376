import { type z } from 'zod';

/**
 * Typed reads of stored documents. The config store keeps each row's fields as a JSON document; the
 * ad server compiles those rows into its snapshot. A row written under an older rule that the
 * current schema rejects (an IAB code since retired, a cap out of range) is skipped and counted,
 * never fatal: one bad row must not stop a whole snapshot.
 */

/** A row as the store hands it over: meta columns and the kind's document. */
export interface StoredRow {
  id: number;
  tenantId: number | null;
  uid: string | null;
  status: number;
  archived: boolean;
  /** The name column; the document does not repeat it. */
  name?: string;
  data: unknown;
}

/** What every typed row carries besides its kind's fields. */
export interface RowHead {
  id: number;
  tenantId: number | null;
  uid: string | null;
  name: string;
  status: 0 | 1;
  archived: boolean;
}

/** A row that was skipped, with the first reason, for logs and the operator. */
interface SkippedRow {
  kind: string;
  id: number;
  field: string;
  message: string;
}

/** Where a caller collects skips (one per snapshot build, say); the module also keeps running counts per kind. */
export interface SkipSink {
  skipped: SkippedRow[];
}

const skippedCounts = new Map<string, number>();

/** Rows skipped since the process started, per kind (or for one kind). */
export function skippedRowCount(kind?: string): number {
  if (kind !== undefined) return skippedCounts.get(kind) ?? 0;
  let total = 0;
  for (const n of skippedCounts.values()) total += n;
  return total;
}

/**
 * The typed parser of one kind: the stored document through the kind's schema (defaults filled,
 * values normalised), or null (counted) when the schema rejects it.
 */
export function storedRowParser<S extends z.ZodType>(kind: string, schema: S) {
  return (row: StoredRow, sink?: SkipSink): (RowHead & Omit<z.output<S>, 'name' | 'status'>) | null => {
    const data =
      row.data && typeof row.data === 'object' && !Array.isArray(row.data) ? (row.data as Record<string, unknown>) : {};
    const name = row.name ?? (typeof data.name === 'string' && data.name ? data.name : `#${row.id}`);
    const status = row.status === 0 ? 0 : 1;
    const result = schema.safeParse({ ...data, name, status });
    if (!result.success) {
      skippedCounts.set(kind, (skippedCounts.get(kind) ?? 0) + 1);
      const issue = result.error.issues[0];
      sink?.skipped.push({
        kind,
        id: row.id,
        field: issue?.path.map(String).join('.') || '(row)',
        message: issue?.message ?? 'is invalid',
      });
      return null;
    }
    const value = result.data as Record<string, unknown>;
    return {
      ...value,
      id: row.id,
      tenantId: row.tenantId,
      uid: row.uid,
      name,
      status,
      archived: row.archived,
    } as RowHead & Omit<z.output<S>, 'name' | 'status'>;
  };
}
