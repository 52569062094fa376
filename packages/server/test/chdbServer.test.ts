import { randomBytes } from 'node:crypto';
import { type ClickHouseClient, ClickHouseError, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbServer } from './chdbServer.js';

/**
 * The test ClickHouse behind the stats tests' `clickhouse (current, chdb)` blocks: a current
 * ClickHouse engine, reached by @clickhouse/client as a clickhouse-server is, its answers and
 * errors the engine's own.
 */
describe('chdb ClickHouse over HTTP', () => {
  const database = `adplane_chdb_${randomBytes(4).toString('hex')}`;
  let admin: ClickHouseClient;
  let client: ClickHouseClient;
  let other: ClickHouseClient;
  const rows = async (query: string, settings: Record<string, number> = {}) =>
    (await client.query({ query, format: 'JSONEachRow', clickhouse_settings: settings })).json();

  beforeAll(async () => {
    const { url } = await chdbServer();
    // the client logs each failed request; the failures here are the point
    const options = { url, compression: { request: false, response: false }, log: { level: ClickHouseLogLevel.OFF } };
    admin = createClient(options);
    client = createClient({ ...options, database });
    other = createClient({ ...options, database: 'adplane_no_such_db' });
    await admin.command({ query: `CREATE DATABASE ${database}` });
  });
  afterAll(async () => {
    await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await Promise.all([admin?.close(), client?.close(), other?.close()]);
  });

  it('is a current ClickHouse, one per worker', async () => {
    const { url, version } = await chdbServer();
    expect(Number(version.split('.')[0])).toBeGreaterThanOrEqual(25);
    expect((await chdbServer()).url).toBe(url);
    expect(await rows('SELECT version() AS v')).toEqual([{ v: version }]);
    expect((await admin.ping()).success).toBe(true);
  });

  it('runs statements in the database the client names, inserts its rows, answers in the format it asks', async () => {
    await client.command({ query: 'CREATE TABLE t (id UInt32, name String, n Int64) ENGINE = MergeTree ORDER BY id' });
    const names = ['plain', "O'Brien", 'a,b\n"c"\\d', ''];
    await client.insert({
      table: 't',
      values: names.map((name, i) => ({ id: i + 1, name, n: 2 ** 40 + i })),
      format: 'JSONEachRow',
    });
    expect(await rows('SELECT currentDatabase() AS db')).toEqual([{ db: database }]);
    expect(await rows('SELECT name FROM t ORDER BY id')).toEqual(names.map((name) => ({ name })));
    const csv = await (await client.query({ query: 'SELECT id, name FROM t WHERE id = 2', format: 'CSV' })).text();
    expect(csv).toBe('2,"O\'Brien"\n');
    const bound = client.query({
      query: 'SELECT count() AS c FROM t WHERE name = {name:String}',
      query_params: { name: "O'Brien" },
      format: 'JSONEachRow',
    });
    await expect(bound).rejects.toMatchObject({ code: '48', type: 'NOT_IMPLEMENTED' });
  });

  it('applies a setting to its own statement only', async () => {
    const big = 'SELECT toInt64(9007199254740993) AS n';
    expect(await rows(big, { output_format_json_quote_64bit_integers: 1 })).toEqual([{ n: '9007199254740993' }]);
    expect(await rows(big, { output_format_json_quote_64bit_integers: 0 })).toEqual([{ n: 9007199254740992 }]);
    await rows(big, { output_format_json_quote_64bit_integers: 1 });
    // the next statement, asking for none, has the default again
    expect(
      await rows(
        "SELECT value = default AS as_default FROM system.settings WHERE name = 'output_format_json_quote_64bit_integers'",
      ),
    ).toEqual([{ as_default: 1 }]);
  });

  it("answers the engine's exception as clickhouse-server does: its code, its type, its words", async () => {
    const error = await client.query({ query: 'SELECT nope FROM t', format: 'JSONEachRow' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClickHouseError);
    expect(error).toMatchObject({ code: '47', type: 'UNKNOWN_IDENTIFIER' });
    expect((error as Error).message).toContain('nope');
    await expect(other.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toMatchObject({
      code: '81',
      type: 'UNKNOWN_DATABASE',
    });
    // and the next statement is served as before
    expect(await rows('SELECT count() AS c FROM t')).toEqual([{ c: 4 }]);
  });
});
