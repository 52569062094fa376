import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, SqliteDialect, SqliteDriver } from 'kysely';

/**
 * How long a write waits for another process's write to end before it fails with SQLITE_BUSY: the
 * connection's busy_timeout, and a transaction's wait for the write lock (below).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Pauses between two tries for the write lock: those of SQLite's own busy handler, then 50 ms each. */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25];
const LAST_PAUSE_MS = 50;

const isBusy = (error: unknown): boolean => error instanceof SqliteDatabase.SqliteError && error.code.startsWith('SQLITE_BUSY');

/**
 * Kysely's SQLite dialect, with every transaction begun IMMEDIATE: it takes the file's write lock at
 * its start, not at its first write. Every transaction of the store writes, and most read first
 * (a check, the row before the change), so with SQLite's default (DEFERRED) two processes on one
 * file (`--workers N`, or an api and edge processes sharing it) could both read, and then the one
 * that came second to write failed at once with SQLITE_BUSY (SQLite cannot wait there: its snapshot
 * is already older than the other's write), a 500 instead of the check's answer. Begun IMMEDIATE,
 * the second transaction waits for the first to commit and then reads what it wrote: a check made in
 * a transaction (a seller id, docs/supply-chain.md) holds across processes as within one.
 *
 * In one process nothing changes: Kysely gives SQLite's one connection to one transaction at a time.
 * Readers are never blocked (WAL). The wait for the lock is asynchronous (busy_timeout set to 0 while
 * it tries, SQLite's pauses between tries), so the process keeps serving the edge, whose requests
 * never touch the store, while its save waits; after the busy timeout it fails with SQLITE_BUSY, as
 * a write outside a transaction does.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  /** Sets the file's busy_timeout to `busyTimeoutMs`, the longest a write or a transaction's start waits. */
  constructor(
    private readonly file: SqliteDatabase.Database,
    private readonly busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS,
  ) {
    super({ database: file });
    file.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.file, this.busyTimeoutMs);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    private readonly file: SqliteDatabase.Database,
    private readonly busyTimeoutMs: number,
  ) {
    super({ database: file });
  }

  /** Called with the one connection held (Kysely's lock), so no other statement sees busy_timeout at 0. */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const deadline = Date.now() + this.busyTimeoutMs;
    this.file.pragma('busy_timeout = 0');
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await connection.executeQuery(CompiledQuery.raw('begin immediate'));
          return;
        } catch (error) {
          const left = deadline - Date.now();
          if (!isBusy(error) || left <= 0) throw error;
          await sleep(Math.min(PAUSES_MS[attempt] ?? LAST_PAUSE_MS, left));
        }
      }
    } finally {
      this.file.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}
