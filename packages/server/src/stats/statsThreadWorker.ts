/**
 * The stats thread (started by statsThread.ts): it opens the stats store and answers the calls sent
 * to it, so that the rows of a counters flush are made, checked and encoded here, not on the thread
 * that serves the edge. On DuckDB it owns the file and answers every call of the process's store
 * (DuckDB's calls and the reads' conversion of results into objects start here): a second DuckDB
 * instance of the same file in the process would not see this one's writes (docs/reports.md). On
 * ClickHouse it only writes the counters' flushes, with a client of its own.
 */
import { parentPort } from 'node:worker_threads';
import { counterTableRows } from './counterTable.js';
import type { StatsStore } from './statsStore.js';
import { type Call, type FromThread, type ThreadConfig, type ToThread } from './statsThreadProtocol.js';

const port = parentPort!;

/** A store the thread opened, with the counters' text list its flushes read and its streamed SELECTs. */
interface Held {
  store: Omit<StatsStore, 'dialect'>;
  /** The serving thread sends each entry of the list once. */
  list: { id: number; text: string[] };
  streams: Map<number, AsyncIterator<Record<string, unknown>[]>>;
}
const stores = new Map<number, Held>();

/** Opens a store; the thread answers no report's SQL: DuckDB's file without the dialect (the serving thread's side has it). */
async function openStore(config: ThreadConfig): Promise<Omit<StatsStore, 'dialect'>> {
  if (config.engine === 'duckdb')
    return (await import('./duckdb/duckdbFile.js')).openDuckDbFile(config.dataDir, config.file, config.threads);
  return (await import('./clickhouse/clickhouseStore.js')).openClickHouseStore(config.url, config.database);
}

async function answer(storeId: number, call: Call): Promise<unknown> {
  if (call.op === 'open') {
    stores.set(storeId, { store: await openStore(call.config), list: { id: -1, text: [] }, streams: new Map() });
    return undefined;
  }
  const held = stores.get(storeId);
  if (!held) throw new Error('the stats store is closed');
  const { store, streams } = held;
  switch (call.op) {
    case 'select':
      return store.select(call.sql);
    case 'exec':
      return store.exec(call.sql);
    case 'migrations':
      return store.migrations();
    case 'exportRows':
      if (!store.exportRows) throw new Error(`the ${store.engine} store exports no rows`);
      return store.exportRows(call.sql, call.path);
    case 'writeCsv':
      if (!store.writeCsv) throw new Error(`the ${store.engine} store takes rows, not CSV`);
      return store.writeCsv(call.csv);
    case 'writeTable': {
      if (call.list !== held.list.id) held.list = { id: call.list, text: [] };
      const text = held.list.text;
      if (call.textFrom !== text.length)
        throw new Error(`stats thread: text from ${call.textFrom} sent, ${text.length} held`);
      for (const t of call.texts) text.push(t);
      return store.write(counterTableRows({ rows: call.rows, keys: call.keys, sums: call.sums, text }));
    }
    case 'chunksOpen':
      if (!store.selectChunks) throw new Error(`the ${store.engine} store streams no rows`);
      streams.set(call.stream, store.selectChunks(call.sql)[Symbol.asyncIterator]());
      return undefined;
    case 'chunksNext': {
      const stream = streams.get(call.stream);
      if (!stream) return null;
      try {
        const next = await stream.next();
        if (next.done) streams.delete(call.stream);
        return next.done ? null : next.value;
      } catch (error) {
        // a stream that failed is over
        streams.delete(call.stream);
        throw error;
      }
    }
    case 'chunksEnd': {
      const stream = streams.get(call.stream);
      streams.delete(call.stream);
      await stream?.return?.();
      return undefined;
    }
    case 'close':
      stores.delete(storeId);
      return store.close();
  }
}

port.on('message', ({ id, store, call }: ToThread) => {
  // calls start in the order sent; a store keeps its writes in turn (duckdbFile.ts serial)
  answer(store, call).then(
    (value) => port.postMessage({ id, ok: true, value } satisfies FromThread),
    (error: unknown) =>
      port.postMessage({
        id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies FromThread),
  );
});
