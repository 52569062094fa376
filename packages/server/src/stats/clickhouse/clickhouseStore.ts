import { systemClock } from '../../clock.js';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { redactUrl } from '../../store/db.js';
import { clickhouseDialect } from '../reportSql.js';
import { coalescedWrites } from '../coalescedWrites.js';
import { type HourlyRow } from '../hourlyRow.js';
import { checkBatch, STATS_TABLE, type StatsStore } from '../statsStore.js';
import { clickHouseMigrations, clickHouseServerOf } from './migrations.js';

const DATABASE_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/;

/** 64-bit integers as JSON numbers (sums of micro-dollars stay below 2^53). */
const READ_SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;
/** Rows a chunk of selectChunks holds, about DuckDB's vector. */
const CHUNK_ROWS = 2048;

function clientOf(url: string, database?: string): ClickHouseClient {
  const u = new URL(url);
  return createClient({
    url: `${u.protocol}//${u.host}`,
    username: decodeURIComponent(u.username) || 'default',
    password: decodeURIComponent(u.password),
    ...(database ? { database } : {}),
    // ClickHouse 18 does not know the settings newer clients send by default.
    compression: { request: false, response: false },
    request_timeout: 60_000,
  });
}

/** A SELECT's rows a chunk (CHUNK_ROWS) at a time, as the JSON lines arrive; stopping early ends the answer. */
async function* selectChunksOf(client: ClickHouseClient, query: string): AsyncGenerator<Record<string, unknown>[]> {
  const result = await client.query({ query, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS });
  try {
    let chunk: Record<string, unknown>[] = [];
    for await (const rows of result.stream<Record<string, unknown>>()) {
      for (const row of rows) chunk.push(row.json());
      if (chunk.length >= CHUNK_ROWS) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length) yield chunk;
  } finally {
    // a caller that stopped early: the rest of the answer is not read
    result.close();
  }
}

/** Tests and operators: create the database when missing. */
export async function createClickHouseDatabase(url: string, database: string): Promise<void> {
  if (!DATABASE_NAME.test(database)) throw new Error(`Invalid ClickHouse database name '${database}'`);
  const admin = clientOf(url);
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } finally {
    await admin.close();
  }
}

export async function dropClickHouseDatabase(url: string, database: string): Promise<void> {
  if (!DATABASE_NAME.test(database) || database === 'default' || database === 'system')
    throw new Error(`Refusing to drop ClickHouse database '${database}'`);
  const admin = clientOf(url);
  try {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  } finally {
    await admin.close();
  }
}

/**
 * The scale-out stats store: ClickHouse over HTTP. A batch is one INSERT (atomic below a million
 * rows on MergeTree); reads run the same report SQL in the ClickHouse dialect.
 */
export async function openClickHouseStore(url: string, database: string): Promise<StatsStore> {
  try {
    await createClickHouseDatabase(url, database);
  } catch (error) {
    throw new Error(`Cannot reach ClickHouse (${redactUrl(url)}): ${(error as Error).message}`, { cause: error });
  }
  const client = clientOf(url, database);
  const select = async (query: string) => {
    const result = await client.query({ query, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS });
    return (await result.json<Record<string, unknown>>()) as Record<string, unknown>[];
  };

  await client.command({
    query: 'CREATE TABLE IF NOT EXISTS stats_migrations (name String, applied_at DateTime) ENGINE = TinyLog',
  });
  const applied = new Set((await select('SELECT name FROM stats_migrations')).map((r) => String(r.name)));
  // the server's version decides the column types and which migrations it can run (migrations.ts)
  const server = clickHouseServerOf(String((await select('SELECT version() AS v'))[0]?.v ?? ''));
  for (const m of clickHouseMigrations(server)) {
    if (applied.has(m.name) || (m.needs && !server[m.needs])) continue;
    try {
      for (const step of m.sql) {
        if (typeof step === 'string') await client.command({ query: step });
        else if ((await select(step.unless)).length === 0)
          await client.command({ query: step.sql, ...(step.settings ? { clickhouse_settings: step.settings } : {}) });
      }
    } catch (error) {
      throw new Error(`Stats migration ${m.name} (ClickHouse) failed: ${(error as Error).message}`, { cause: error });
    }
    await client.insert({
      table: 'stats_migrations',
      values: [{ name: m.name, applied_at: new Date(systemClock.now()).toISOString().slice(0, 19).replace('T', ' ') }],
      format: 'JSONEachRow',
    });
  }

  // batches written while an insert runs wait and go together in the next (coalescedWrites.ts): fewer, larger parts
  const insertRows = coalescedWrites<readonly HourlyRow[]>((parts) =>
    client
      .insert({
        table: STATS_TABLE,
        values: parts.flat() as unknown as Record<string, unknown>[],
        format: 'JSONEachRow',
      })
      .then(() => undefined),
  );

  return {
    engine: 'clickhouse',
    dialect: clickhouseDialect,
    async write(rows) {
      const list = checkBatch(rows);
      if (list.length === 0) return;
      await insertRows(list);
    },
    select,
    selectChunks: (query) => selectChunksOf(client, query),
    async exec(query) {
      await client.command({ query });
    },
    async migrations() {
      return (await select('SELECT name FROM stats_migrations ORDER BY name')).map((r) => String(r.name));
    },
    close: () => client.close(),
  };
}
