import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { type Settings } from '../src/settings.js';
import { type Dialect, openStore, SQLITE_FILE_NAME, type Store } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { type SeededUser, seedIfEmpty } from '../src/store/seed.js';

/**
 * Test stores copied from a template instead of migrated and seeded one by one. In each test worker
 * process, the first store of a kind (engine, with or without the demo workspace) is migrated and
 * seeded into a template; every store of that kind after it is a copy: on SQLite a copy of the
 * template's file, on PostgreSQL a database made with `CREATE DATABASE ... TEMPLATE`. A copy takes a
 * few ms on SQLite and about 0.15 s on PostgreSQL, where migrating and seeding took 0.1-0.25 s and
 * 0.75-0.95 s (and the PostgreSQL server's work beside it). What a test sees is the same: the same
 * migrations, the same demo workspace, a store of its own.
 *
 * The demo workspace holds dates counted from the day it is seeded (flights, deals), so a template is
 * made per UTC day: a worker that runs past midnight seeds a new one, as a block opened then would.
 *
 * PostgreSQL databases are named `adplane_t_<runner pid>_...` (a store) and `adplane_tpl_<runner pid>_...`
 * (a template), the runner being vitest's main process (each worker's parent). A store's database is
 * dropped when its block ends; the templates when the run ends (`dropTestDatabases`, the server
 * projects' global set-up), with those of runs that ended without that (a killed runner).
 */

/** The PostgreSQL schema of every test store's tables, in a database of its own. */
const TEST_PG_SCHEMA = 'adplane_test';

const STORE_PREFIX = 'adplane_t_';
const TEMPLATE_PREFIX = 'adplane_tpl_';

export interface TemplateStore {
  store: Store;
  settings: Settings;
  users: SeededUser[];
  /** Removes what the store left on its server (its PostgreSQL database); its data folder is the caller's. */
  drop(): Promise<void>;
}

interface Template {
  /** The SQLite file, or the PostgreSQL database, that stores are copied from. */
  source: string;
  users: SeededUser[];
}

const templates = new Map<string, Promise<Template>>();
const templateDirs: string[] = [];
process.once('exit', () => {
  for (const dir of templateDirs) rmSync(dir, { recursive: true, force: true });
});

/** DATABASE_URL with its database replaced by `database`. */
function urlOfDatabase(database: string): string {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `/${database}`;
  return url.toString();
}

async function onServer<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const hex = () => randomBytes(4).toString('hex');

async function makeTemplate(
  dialect: Dialect,
  seed: boolean,
  settingsOf: (env: Record<string, string>) => Settings,
): Promise<Template> {
  const database = `${TEMPLATE_PREFIX}${process.ppid}_${process.pid}_${hex()}`;
  if (dialect === 'postgres') await onServer((c) => c.query(`CREATE DATABASE "${database}"`));
  const settings = settingsOf({ DATABASE_URL: dialect === 'postgres' ? urlOfDatabase(database) : '' });
  templateDirs.push(settings.dataDir);
  const store = await openStore(settings, dialect === 'postgres' ? { pgSchema: TEST_PG_SCHEMA } : {});
  let users: SeededUser[] = [];
  try {
    await migrateToLatest(store);
    if (seed) users = (await seedIfEmpty(store, settings)).users;
    // the whole file, with nothing left in the write-ahead log, is what a copy takes
    if (dialect === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
  } finally {
    await store.close();
  }
  return { source: dialect === 'postgres' ? database : join(settings.dataDir, SQLITE_FILE_NAME), users };
}

/** SQLSTATE 55006: the template is still being accessed (its last connection closing on the server). */
const OBJECT_IN_USE = '55006';

async function copyDatabase(database: string, template: string): Promise<void> {
  const deadline = systemClock.now() + 10_000;
  for (;;) {
    try {
      await onServer((c) => c.query(`CREATE DATABASE "${database}" TEMPLATE "${template}"`));
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || systemClock.now() > deadline) throw error;
      // the template's connections end on the server shortly after the client closed them
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * A migrated (and, with `seed`, seeded) store of `dialect`, copied from this worker's template;
 * `settingsOf` makes its settings (a data folder of its own) from the DATABASE_URL it is given.
 */
export async function openTemplateStore(
  dialect: Dialect,
  seed: boolean,
  settingsOf: (env: Record<string, string>) => Settings,
): Promise<TemplateStore> {
  const key = `${dialect}:${seed}:${new Date(systemClock.now()).toISOString().slice(0, 10)}`;
  let made = templates.get(key);
  if (!made) {
    made = makeTemplate(dialect, seed, settingsOf);
    templates.set(key, made);
    // a template that failed is made again by the next block, which then fails with its own error
    made.catch(() => templates.delete(key));
  }
  const template = await made;
  if (dialect === 'sqlite') {
    const settings = settingsOf({ DATABASE_URL: '' });
    mkdirSync(settings.dataDir, { recursive: true });
    copyFileSync(template.source, join(settings.dataDir, SQLITE_FILE_NAME));
    return { store: await openStore(settings), settings, users: template.users, drop: async () => {} };
  }
  const database = `${STORE_PREFIX}${process.ppid}_${process.pid}_${hex()}`;
  await copyDatabase(database, template.source);
  const settings = settingsOf({ DATABASE_URL: urlOfDatabase(database) });
  const store = await openStore(settings, { pgSchema: TEST_PG_SCHEMA });
  return {
    store,
    settings,
    users: template.users,
    drop: () => onServer((c) => c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).then(() => {}),
  };
}

function runnerOf(database: string): number | null {
  const rest = database.startsWith(TEMPLATE_PREFIX)
    ? database.slice(TEMPLATE_PREFIX.length)
    : database.startsWith(STORE_PREFIX)
      ? database.slice(STORE_PREFIX.length)
      : null;
  const pid = rest === null ? Number.NaN : Number(rest.split('_')[0]);
  return Number.isInteger(pid) ? pid : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the test databases of the runner `pid` (this run's, when it ends) and of runners no longer
 * running (a run that was killed). Without DATABASE_URL there are none.
 */
export async function dropTestDatabases(pid: number): Promise<void> {
  if (!process.env.DATABASE_URL) return;
  await onServer(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'adplane\\_t\\_%' OR datname LIKE 'adplane\\_tpl\\_%'`,
    );
    for (const { datname } of rows) {
      const runner = runnerOf(datname);
      if (runner !== null && (runner === pid || !alive(runner)))
        await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  });
}
