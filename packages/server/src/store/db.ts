import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Settings } from '../settings.js';
import { type Database } from './schema.js';
import { ImmediateSqliteDialect, SQLITE_BUSY_TIMEOUT_MS } from './sqliteDialect.js';

export type Dialect = 'sqlite' | 'postgres';

/** The config store: one Kysely handle over SQLite (embedded default) or PostgreSQL. */
export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the tables live in ('public' unless a test asked for its own); null on SQLite. */
  pgSchema: string | null;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL only: put every table in this schema (created if missing). Test stores use one of their own. */
  pgSchema?: string;
}

export const SQLITE_FILE_NAME = 'adplane.sqlite';

/**
 * Run `work` in a transaction of its own, or inside the caller's when `db` already is one: a service
 * called from a seed step then writes in the seed's transaction (Kysely refuses nested transactions).
 */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openStore(
  settings: Pick<Settings, 'dataDir' | 'databaseUrl'>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  return settings.databaseUrl
    ? openPostgres(settings.databaseUrl, options.pgSchema ?? 'public')
    : openSqlite(settings.dataDir);
}

function openSqlite(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = new SqliteDatabase(join(dataDir, SQLITE_FILE_NAME));
  file.pragma('journal_mode = WAL');
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  // processes sharing the file (`--workers N`) wait up to 5 s for each other's writes; transactions begin IMMEDIATE
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(file, SQLITE_BUSY_TIMEOUT_MS) });
  return { db, dialect: 'sqlite', pgSchema: null, close: () => db.destroy() };
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_TIMESTAMPTZ = 1184;

/**
 * bigint (micro-dollars, counts) and numeric come back as JS numbers, timestamptz as ISO strings, so
 * repositories see the same values as on SQLite. Micro-dollar sums stay below 2^53 ($9 billion).
 */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return (value: string) => Number(value);
    if (oid === PG_TIMESTAMPTZ) {
      const parseDate = pg.types.getTypeParser(PG_TIMESTAMPTZ, 'text') as (value: string) => Date;
      return (value: string) => parseDate(value).toISOString();
    }
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as typeof pg.types.getTypeParser,
};

async function openPostgres(url: string, schema: string): Promise<Store> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid PostgreSQL schema name '${schema}'`);
  if (schema !== 'public') await createPgSchema(url, schema);
  const pool = new pg.Pool({
    connectionString: url,
    types: pgTypes,
    max: 10,
    ...(schema !== 'public' ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => process.emitWarning(`PostgreSQL pool: ${error.message}`));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // Fail at start, with the driver's message, when the database cannot be reached.
  const client = await pool.connect().catch(async (error: Error) => {
    await db.destroy();
    throw new Error(`Cannot connect to PostgreSQL (${redactUrl(url)}): ${error.message}`);
  });
  client.release();
  return { db, dialect: 'postgres', pgSchema: schema, close: () => db.destroy() };
}

async function withPgClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function createPgSchema(url: string, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid PostgreSQL schema name '${schema}'`);
  await withPgClient(url, (c) => c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`));
}

/** Drops a schema made for a run of its own (the lists bench's store). */
export async function dropPgSchema(url: string, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema) || schema === 'public')
    throw new Error(`Refusing to drop PostgreSQL schema '${schema}'`);
  await withPgClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** postgres://user:secret@host/db -> postgres://user:***@host/db, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
