import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../src/store/db.js';
import { callProgram, type ProgramAnswer, type RunningAdplane, startAdplane } from './adplaneCommand.js';
import { programArgs } from './program.js';
import { seedDemoStore } from './demoStore.js';
import { DEMO_PASSWORD, onPgServer } from './helpers.js';

/**
 * Seller ids across OS processes (docs/supply-chain.md, "Seller ids"): `adplane --workers 2` (a
 * primary and two real worker processes, each with its own connection to the one config store) gets
 * two saves asking for the same new seller id at once, one in each worker: one save gets the id, the
 * other gets the 400, and one row holds the id. sellerIds.test.ts covers saves in one process.
 *
 * So that both saves are in flight together however fast the machine is, this process holds the
 * store's write lock while they arrive, as a long write of a third process would, and lets go after
 * HOLD_MS. SQLite: `BEGIN IMMEDIATE` on the file. Each worker's save then waits for the lock and, once
 * the first has committed, the other reads its id. (Before transactions began IMMEDIATE, each read
 * the accounts and then failed at its first write with SQLITE_BUSY, a 500, while the lock was held;
 * without the hold the second of two racing saves did so too.) PostgreSQL: `LOCK TABLE users IN
 * EXCLUSIVE MODE` (reads pass, writes wait), let go once two saves wait on a lock: one holds the
 * seller-id (advisory) lock and waits for the table, the other waits for the seller-id lock. Without
 * that lock both would read, wait for the table, and both write the id.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Well past a save's way to its transaction (argon2 hashes the new password first); well below the 5 s a transaction waits for SQLite's lock. */
const HOLD_MS = 2_000;
const SELLER_ID = 'race-procs';
const ENGINES = ['sqlite', ...(process.env.DATABASE_URL ? ['postgres' as const] : [])] as const;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The store's write lock, held by this process until `release`, and a count of the rows holding SELLER_ID. */
interface Barrier {
  /** Resolves once the saves in flight wait on the lock (SQLite cannot tell: HOLD_MS). */
  waiters(): Promise<void>;
  release(): Promise<void>;
  holders(): Promise<number>;
  close(): Promise<void>;
}

const HOLDERS_SQL = `SELECT count(*) AS n FROM users WHERE sellers_json LIKE '%"${SELLER_ID}"%'`;

function sqliteBarrier(dataDir: string): Barrier {
  const file = new SqliteDatabase(join(dataDir, SQLITE_FILE_NAME));
  file.pragma('busy_timeout = 5000');
  file.exec('BEGIN IMMEDIATE');
  return {
    waiters: () => sleep(HOLD_MS),
    release: async () => void file.exec('ROLLBACK'),
    holders: async () => Number((file.prepare(HOLDERS_SQL).get() as { n: number }).n),
    close: async () => void file.close(),
  };
}

async function pgBarrier(url: string): Promise<Barrier> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  await lock.query('BEGIN');
  await lock.query('LOCK TABLE users IN EXCLUSIVE MODE');
  const waiting = async () =>
    Number(
      (
        await lock.query<{ n: string }>(
          'SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
        )
      ).rows[0]!.n,
    );
  return {
    async waiters() {
      const until = Date.now() + 4 * HOLD_MS;
      while ((await waiting()) < 2 && Date.now() < until) await sleep(20);
    },
    release: async () => void (await lock.query('ROLLBACK')),
    holders: async () => Number((await lock.query<{ n: string }>(HOLDERS_SQL)).rows[0]!.n),
    close: () => lock.end(),
  };
}

describe.each(ENGINES)('seller ids: two saves of one id at once in two worker processes (%s)', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-seller-procs-'));
  const pgDatabase = `adplane_sellers_${process.pid}_${randomBytes(4).toString('hex')}`;
  let databaseUrl = '';
  let cluster: RunningAdplane | undefined;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    if (engine === 'postgres') {
      await onPgServer(process.env.DATABASE_URL ?? '', `CREATE DATABASE "${pgDatabase}"`);
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${pgDatabase}`;
      databaseUrl = url.toString();
    }
    // the demo accounts (two tenants), without the demo history
    await seedDemoStore(dataDir, { DATABASE_URL: databaseUrl });
    cluster = await startAdplane(
      programArgs('--workers', '2'),
      { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ADPLANE_DEMO: '0', ADPLANE_WEB_DIST: join(dataDir, 'none') },
      { cwd: ROOT, workers: 2 },
    );
    for (const username of ['demand', 'acme']) {
      const login = await callProgram(cluster.port, '/api/auth/login', {
        method: 'POST',
        body: { username, password: DEMO_PASSWORD },
      });
      expect(login.status, login.body).toBe(200);
      cookies[username] = login.cookie!;
    }
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    if (databaseUrl)
      await onPgServer(process.env.DATABASE_URL ?? '', `DROP DATABASE IF EXISTS "${pgDatabase}" WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives the id to one save; the other, in the other process, gets the 400 on sellersJson.id', {
    timeout: 30_000,
  }, async () => {
    const { port } = cluster!;
    const save = (tenant: string, username: string): Promise<ProgramAnswer> =>
      callProgram(port, '/api/demand/subs', {
        method: 'POST',
        cookie: cookies[tenant],
        body: {
          name: `Sub ${username}`,
          username,
          password: 'Seller-ids-pass-2026',
          domain: `${username}.test`,
          sellersJson: { type: 'PUBLISHER', name: `Sub ${username} LLC`, id: SELLER_ID, status: 1, confidential: 0 },
        },
      });

    const barrier = engine === 'sqlite' ? sqliteBarrier(dataDir) : await pgBarrier(databaseUrl);
    try {
      // each on a connection of its own: node's cluster hands them to the two workers in turn
      const answers: ProgramAnswer[] = [];
      const saves = [save('demand', 'procs-a'), save('acme', 'procs-b')].map((p) =>
        p.then((a) => (answers.push(a), a)),
      );
      await barrier.waiters();
      const answeredWhileHeld = answers.map((a) => `${a.status} ${a.body}`);
      await barrier.release();
      const done = await Promise.all(saves);

      const report = done.map((a) => `worker ${a.worker}: ${a.status} ${a.body}`).join('\n');
      expect(new Set(done.map((a) => a.worker)).size, report).toBe(2);
      // nothing may write while another process holds the lock: a save answered by then failed
      expect(answeredWhileHeld, report).toEqual([]);
      expect(done.map((a) => a.status).sort(), report).toEqual([201, 400]);
      const refused = JSON.parse(done.find((a) => a.status === 400)!.body) as { field: string };
      expect(refused.field, report).toBe('sellersJson.id');
      expect(await barrier.holders()).toBe(1);
    } finally {
      await barrier.close();
    }
  });
});
