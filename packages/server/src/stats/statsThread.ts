import { KEY_WIDTH, METRICS } from './counterTable.js';
import { batchCsv } from './duckdb/csvBatch.js';
import { type CounterTable, type HourlyRows } from './hourlyRow.js';
import { clickhouseDialect, duckdbDialect } from './reportSql.js';
import { type StatsStore } from './statsStore.js';
import { type Call, type FromThread, type ThreadConfig, type ToThread } from './statsThreadProtocol.js';
import { startWorkerThread } from './workerThread.js';

/** How long the thread stays up with no store open (a test file opens and closes one after another). */
const IDLE_MS = 10_000;

/**
 * The process's stats thread: started with the first store, ended IDLE_MS after the last closed.
 * It holds the process open only while a call waits for it. A thread that ended fails the calls
 * waiting and every call of the stores it held (their owner was that thread); a store opened after
 * starts a new one.
 */
class StatsThread {
  private readonly worker = startWorkerThread('statsThreadWorker');
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  ended: Error | null = null;
  stores = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly onEnd: () => void) {
    this.worker.unref();
    this.worker.on('message', (message: FromThread) => {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.worker.unref();
      if (message.ok) p.resolve(message.value);
      else p.reject(new Error(message.error));
    });
    const fail = (error: Error) => {
      this.ended ??= error;
      onEnd();
      for (const p of this.pending.values()) p.reject(this.ended);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the stats thread ended (exit code ${code})`)));
  }

  call<T>(store: number, call: Call, transfer?: ArrayBuffer[]): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, store, call } satisfies ToThread, transfer);
    });
  }

  opened(): void {
    this.stores++;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  closed(): void {
    if (--this.stores > 0) return;
    this.idle = setTimeout(() => {
      // ended before it is told to stop: a store opened while the thread winds down gets a new thread
      // instead of this one, whose end would fail the store's first call
      this.ended ??= new Error('the stats thread ended: idle');
      this.onEnd();
      void this.worker.terminate();
    }, IDLE_MS);
    this.idle.unref();
  }
}

let thread: StatsThread | null = null;
let nextStore = 0;

function theThread(): StatsThread {
  if (!thread || thread.ended) {
    const started = new StatsThread(() => {
      if (thread === started) thread = null;
    });
    thread = started;
  }
  return thread;
}

/**
 * A stats store run by a thread of its own (statsThreadWorker.ts; docs/reports.md, "Where the work
 * runs"): every call is a message to it. A counters flush (`writeTable`) is handed over as its typed
 * arrays, copied once and moved to the thread, with the text entries the thread has not seen yet:
 * the rows are made, checked and encoded there, and written whole or not at all. Rows from
 * elsewhere (`write`) are encoded here on DuckDB, as a worker of `--workers N` encodes its own (the
 * caller's batch fails here when a row is bad).
 *
 * The thread holds the process open only while a call waits for it. A thread that ended fails
 * every call after: the counters keep a refused flush for the next one.
 */
export async function openStatsThread(config: ThreadConfig): Promise<StatsStore> {
  const host = theThread();
  const store = nextStore++;
  host.opened();
  try {
    await host.call(store, { op: 'open', config });
  } catch (error) {
    host.closed();
    throw error;
  }
  let closed = false;
  const call = <T>(message: Call, transfer?: ArrayBuffer[]): Promise<T> =>
    closed ? Promise.reject(new Error('the stats store is closed')) : host.call<T>(store, message, transfer);

  /** The counters' text list the thread holds, and how many of its entries it has been sent. */
  let textList: { list: readonly string[]; id: number; sent: number } = { list: [], id: -1, sent: 0 };
  let nextStream = 0;

  const writeCsv = (csv: string): Promise<void> => (csv ? call<void>({ op: 'writeCsv', csv }) : Promise.resolve());

  return {
    engine: config.engine,
    dialect: config.engine === 'duckdb' ? duckdbDialect : clickhouseDialect,
    write(rows: HourlyRows) {
      // a ClickHouse thread takes the counters' flushes only (withFlushThread)
      if (config.engine !== 'duckdb')
        return Promise.reject(new Error('the ClickHouse stats thread takes flushes only'));
      let csv: string;
      try {
        csv = batchCsv(rows);
      } catch (error) {
        return Promise.reject(error);
      }
      return writeCsv(csv);
    },
    writeCsv,
    writeTable(table: CounterTable) {
      if (table.rows === 0) return Promise.resolve();
      if (table.text !== textList.list) textList = { list: table.text, id: textList.id + 1, sent: 0 };
      const from = textList.sent;
      const texts = table.text.slice(from);
      textList.sent = table.text.length;
      // copies of the rows in use (the counters keep theirs until the write is answered), moved to the thread
      const keys = table.keys.slice(0, table.rows * KEY_WIDTH);
      const sums = table.sums.slice(0, table.rows * METRICS);
      const sent = call<void>(
        { op: 'writeTable', rows: table.rows, keys, sums, list: textList.id, textFrom: from, texts },
        [keys.buffer as ArrayBuffer, sums.buffer as ArrayBuffer],
      );
      // a refused write may have left the thread's list short of what was counted as sent: start it again
      return sent.catch((error: unknown) => {
        if (textList.list === table.text) textList = { list: [], id: textList.id, sent: 0 };
        throw error;
      });
    },
    select: (sql) => call<Record<string, unknown>[]>({ op: 'select', sql }),
    async *selectChunks(sql) {
      const stream = nextStream++;
      await call({ op: 'chunksOpen', stream, sql });
      let done = false;
      try {
        for (;;) {
          const rows = await call<Record<string, unknown>[] | null>({ op: 'chunksNext', stream });
          if (rows === null) {
            done = true;
            return;
          }
          yield rows;
        }
      } finally {
        // a caller that stopped early: the thread ends the query
        if (!done && !closed && !host.ended) await call({ op: 'chunksEnd', stream });
      }
    },
    exportRows: (sql, path) => call<void>({ op: 'exportRows', sql, path }),
    exec: (sql) => call<void>({ op: 'exec', sql }),
    migrations: () => call<string[]>({ op: 'migrations' }),
    async close() {
      if (closed) return;
      closed = true;
      try {
        if (!host.ended) await host.call(store, { op: 'close' });
      } finally {
        host.closed();
      }
    },
  };
}

/**
 * A ClickHouse store whose counters' flushes are written by a stats thread (started with the first
 * flush, with a client of its own): the rows of a flush are made and encoded as JSON there. Reads and
 * other writes stay on `store` (the rows they carry are encoded by ClickHouse's client here).
 */
export function withFlushThread(store: StatsStore, config: ThreadConfig): StatsStore {
  let thread: Promise<StatsStore> | null = null;
  let closed = false;
  return {
    engine: store.engine,
    dialect: store.dialect,
    write: (rows) => store.write(rows),
    async writeTable(table) {
      if (closed) throw new Error('the stats store is closed');
      // a thread that could not start is tried again at the next flush
      thread ??= openStatsThread(config).catch((error: unknown) => {
        thread = null;
        throw error;
      });
      await (await thread).writeTable!(table);
    },
    select: (sql) => store.select(sql),
    ...(store.selectChunks ? { selectChunks: (sql: string) => store.selectChunks!(sql) } : {}),
    exec: (sql) => store.exec(sql),
    migrations: () => store.migrations(),
    async close() {
      if (closed) return;
      closed = true;
      await (await thread?.catch(() => null))?.close();
      await store.close();
    },
  };
}
