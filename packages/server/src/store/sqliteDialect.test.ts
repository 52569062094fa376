import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ImmediateSqliteDialect } from './sqliteDialect.js';

/**
 * Transactions on SQLite begin IMMEDIATE (./sqliteDialect.ts). Two connections to one file lock as two
 * processes do, so this process plays both: `other` holds the write lock as another process's
 * transaction would. Across processes: test/sellerIdsProcesses.test.ts.
 */
interface Tables {
  seller_ids: { id: string };
}

/** How many 10 ms timers ran in `ms`: about ms / 10 when the event loop is free, 0 or 1 when a statement holds it. */
async function timerTicksFor(ms: number): Promise<number> {
  let ticks = 0;
  const started = Date.now();
  while (Date.now() - started < ms) {
    await new Promise((r) => setTimeout(r, 10));
    ticks++;
  }
  return ticks;
}

describe('SQLite transactions begin IMMEDIATE; statements wait without blocking', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adplane-sqlite-dialect-'));
  const path = join(dir, 'store.sqlite');
  let file: SqliteDatabase.Database;
  let db: Kysely<Tables>;
  let other: SqliteDatabase.Database;
  const count = async (id: string) =>
    (
      await db
        .selectFrom('seller_ids')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).n;
  /** Read, check, write: the id is written unless a row has it. */
  const claim = (id: string) =>
    db.transaction().execute(async (trx) => {
      const taken = await trx.selectFrom('seller_ids').select('id').where('id', '=', id).executeTakeFirst();
      if (taken) return false;
      await trx.insertInto('seller_ids').values({ id }).execute();
      return true;
    });

  beforeAll(async () => {
    file = new SqliteDatabase(path);
    file.pragma('journal_mode = WAL');
    db = new Kysely<Tables>({ dialect: new ImmediateSqliteDialect(file, 1_000) });
    await sql`create table seller_ids (id text not null)`.execute(db);
    other = new SqliteDatabase(path);
  });
  afterEach(() => {
    if (other.inTransaction) other.exec('rollback');
  });
  afterAll(async () => {
    other.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("waits for another connection's write transaction, without blocking the event loop, then reads what it wrote", async () => {
    other.exec('begin immediate');
    other.prepare('insert into seller_ids (id) values (?)').run('race-1');
    let settled = false;
    const claimed = claim('race-1').finally(() => (settled = true));
    // a begun DEFERRED transaction read here and failed at its insert with SQLITE_BUSY at once
    const ticks = await timerTicksFor(200);
    expect(settled).toBe(false);
    expect(ticks).toBeGreaterThan(5);
    other.exec('commit');
    expect(await claimed).toBe(false);
    expect(await count('race-1')).toBe(1);
    // SQLite's own busy handler, which sleeps on the event loop's thread, is never used
    expect(file.pragma('busy_timeout', { simple: true })).toBe(0);
  });

  it('gives up with SQLITE_BUSY after the busy timeout, and the store works on', async () => {
    other.exec('begin immediate');
    const started = Date.now();
    await expect(claim('race-2')).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    other.exec('rollback');
    expect(await claim('race-2')).toBe(true);
    expect(await claim('race-2')).toBe(false);
  });

  it("waits for another connection's write transaction on a single write outside a transaction too, without blocking the event loop", async () => {
    other.exec('begin immediate');
    let settled = false;
    const inserted = db
      .insertInto('seller_ids')
      .values({ id: 'single-1' })
      .execute()
      .finally(() => (settled = true));
    // with SQLite's busy handler the insert slept on this thread: no timer could run meanwhile
    const ticks = await timerTicksFor(200);
    expect(settled).toBe(false);
    expect(ticks).toBeGreaterThan(5);
    other.exec('commit');
    await inserted;
    expect(await count('single-1')).toBe(1);
  });

  it('gives up a single write with SQLITE_BUSY after the busy timeout, having written nothing', async () => {
    other.exec('begin immediate');
    await expect(db.insertInto('seller_ids').values({ id: 'single-2' }).execute()).rejects.toMatchObject({
      code: 'SQLITE_BUSY',
    });
    other.exec('rollback');
    expect(await count('single-2')).toBe(0);
  });
});
