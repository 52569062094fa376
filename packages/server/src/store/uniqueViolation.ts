/**
 * A write refused by a unique index of either engine, read back as the field it is about, so that a
 * race the service's own "is it taken?" check cannot see (two creations at once) still answers a
 * 409 naming the field instead of a 500. Index names follow `<table>_<field>_unique` (see migrations).
 */
export interface UniqueViolation {
  index: string;
  field: string;
}

const INDEX_NAME = /^([a-z_]+?)_([a-z]+)_unique$/;

function fieldOfIndex(index: string): string {
  const match = INDEX_NAME.exec(index);
  return match ? match[2] : index;
}

export function uniqueViolationOf(error: unknown): UniqueViolation | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  // PostgreSQL (pg): SQLSTATE 23505 with the index name in `constraint`.
  if (e.code === '23505' && typeof e.constraint === 'string')
    return { index: e.constraint, field: fieldOfIndex(e.constraint) };
  // SQLite (better-sqlite3): "UNIQUE constraint failed: index 'users_username_unique'" for expression
  // indexes, "UNIQUE constraint failed: users.uid" for plain columns.
  if (
    (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') &&
    typeof e.message === 'string'
  ) {
    const named = /index '([^']+)'/.exec(e.message);
    if (named) return { index: named[1], field: fieldOfIndex(named[1]) };
    const column = /failed: ([a-z_]+)\.([a-z_]+)/.exec(e.message);
    if (column) return { index: `${column[1]}_${column[2]}_unique`, field: column[2] };
    return { index: 'unknown', field: 'id' };
  }
  return null;
}
