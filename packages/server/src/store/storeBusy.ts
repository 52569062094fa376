/**
 * A write the config store could not make in time because another writer held what it needed: on
 * SQLite another process's transaction on the same file (SQLITE_BUSY after the busy timeout,
 * store/sqliteDialect.ts), on PostgreSQL a lock not granted, a serialization failure or a deadlock
 * the server broke. Nothing was written (the transaction rolled back), and the same request a moment
 * later usually succeeds: the API answers 503 with Retry-After rather than a 500.
 */
const POSTGRES_BUSY = new Set([
  // lock_not_available (lock_timeout), serialization_failure, deadlock_detected
  '55P03',
  '40001',
  '40P01',
]);

export function isStoreBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  // better-sqlite3: SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_TIMEOUT, ...; SQLITE_LOCKED (a table locked within the connection)
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || POSTGRES_BUSY.has(code);
}
