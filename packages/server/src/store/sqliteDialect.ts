import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';

/** How long a statement waits for another process's write to end before it fails with SQLITE_BUSY (below). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Pauses between two tries for the write lock: those of SQLite's own busy handler, then 50 ms each. */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25];
const LAST_PAUSE_MS = 50;

const isBusy = (error: unknown): boolean =>
  error instanceof SqliteDatabase.SqliteError && error.code.startsWith('SQLITE_BUSY');

/**
 * Kysely's SQLite dialect, with every transaction begun IMMEDIATE and every statement waiting for
 * another process's write without blocking the event loop.
 *
 * IMMEDIATE: a transaction takes the file's write lock at its start, not at its first write. Every
 * transaction of the store writes, and most read first (a check, the row before the change), so with
 * SQLite's default (DEFERRED) two processes on one file (`--workers N`, or an api and edge processes
 * sharing it) could both read, and then the one that came second to write failed at once with
 * SQLITE_BUSY (SQLite cannot wait there: its snapshot is already older than the other's write), a 500
 * instead of the check's answer. Begun IMMEDIATE, the second transaction waits for the first to commit
 * and then reads what it wrote: a check made in a transaction (a seller id, docs/supply-chain.md)
 * holds across processes as within one.
 *
 * The wait: the file's busy_timeout is 0 (SQLite's own busy handler sleeps on the thread, which is the
 * event loop's), and a statement that finds the file locked is tried again after SQLite's pauses,
 * asynchronously, until the busy timeout: a transaction's `begin immediate`, and as much a single write
 * outside a transaction (a sign-in's session). So the process keeps serving the edge, whose requests
 * never touch the store, while its save waits; after the busy timeout the statement fails with
 * SQLITE_BUSY (a 503 to the API's caller: ./storeBusy.ts). A statement that failed busy did nothing, so
 * trying it again is safe, a COMMIT included (SQLite keeps the transaction open).
 *
 * In one process nothing changes: Kysely gives SQLite's one connection to one statement or transaction
 * at a time. Readers are never blocked (WAL).
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly file: SqliteDatabase.Database,
    private readonly busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS,
  ) {
    super({ database: file });
    file.pragma('busy_timeout = 0');
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.file, this.busyTimeoutMs);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  private patient: PatientConnection | undefined;

  constructor(
    file: SqliteDatabase.Database,
    private readonly busyTimeoutMs: number,
  ) {
    super({ database: file });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    // SQLite has one connection, the same object every time
    if (this.patient?.inner !== connection) this.patient = new PatientConnection(connection, this.busyTimeoutMs);
    return this.patient;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** The connection, each statement tried again while the file is locked by another, up to the busy timeout. */
class PatientConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly busyTimeoutMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let deadline = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (deadline === 0) deadline = performance.now() + this.busyTimeoutMs;
        const left = deadline - performance.now();
        if (left <= 0) throw error;
        await sleep(Math.min(PAUSES_MS[attempt] ?? LAST_PAUSE_MS, left));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}
