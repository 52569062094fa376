import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../src/store/db.js';
import { isStoreBusy } from '../src/store/storeBusy.js';
import { as, buildTestApp, createAs, freshAddress, login, onSqliteStore } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * A save that finds the config store held by another writer past the wait (another process's
 * transaction on the one SQLite file: --workers N) answers 503 with Retry-After, nothing written,
 * instead of a 500; the same save once the other is done goes through. The other process is a second
 * connection to the file, which locks as another process does.
 */
onSqliteStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  let other: SqliteDatabase.Database;

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand', undefined, freshAddress());
    other = new SqliteDatabase(join(t.settings.dataDir, SQLITE_FILE_NAME));
  });
  afterAll(async () => {
    if (other.inTransaction) other.exec('rollback');
    other.close();
    await app.close();
  });

  it('answers 503 with Retry-After while another process holds the write lock past the wait, and writes nothing', {
    timeout: 30_000,
  }, async () => {
    const name = `Busy store ${Date.now()}`;
    other.exec('begin immediate');
    let res;
    try {
      res = await as(app, cookie, {
        method: 'POST',
        url: '/api/demand/tags',
        payload: { ...sampleBody('tags', 1), name },
      });
    } finally {
      other.exec('rollback');
    }
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json<{ message: string }>().message).toMatch(/busy.*nothing was saved/i);
    const listed = async () =>
      JSON.stringify(
        (await as(app, cookie, { method: 'GET', url: `/api/demand/tags?search=${encodeURIComponent(name)}` })).json(),
      );
    expect(await listed()).not.toContain(name);
    // the same save, the other writer gone
    expect((await createAs(app, cookie, 'tags', { ...sampleBody('tags', 1), name })).id).toBeGreaterThan(0);
    expect(await listed()).toContain(name);
  });
});

describe('isStoreBusy', () => {
  it("knows both engines' codes for a writer held up by another, and nothing else", () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', '55P03', '40001', '40P01'])
      expect(isStoreBusy({ code }), code).toBe(true);
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', '23505', 'ECONNREFUSED', 42])
      expect(isStoreBusy({ code }), String(code)).toBe(false);
    expect(isStoreBusy(null)).toBe(false);
    expect(isStoreBusy(new Error('busy'))).toBe(false);
  });
});
