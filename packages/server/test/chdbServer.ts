import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';

/**
 * A current ClickHouse for the stats tests: chdb (ClickHouse's engine as a library, in this process)
 * behind a loopback HTTP server that speaks the part of ClickHouse's HTTP interface that
 * @clickhouse/client uses, so the ClickHouse store runs unchanged against it (its URL is the
 * store's clickhouseUrl). The server carries the statements and answers as text and interprets
 * neither: the engine parses and runs every SQL string as a clickhouse-server would.
 *
 * - The SQL is the `query` parameter followed by the body (an INSERT's rows), or the body alone.
 * - `database` is the statement's current database; every other parameter but the client's
 *   bookkeeping (query_id, session_id, role, user, password) is a setting of that statement.
 *   Query parameters (`param_<name>`, which the store does not use) are refused, not half-decoded.
 * - The answer is the engine's bytes in the FORMAT the SQL names (TabSeparated otherwise), with
 *   X-ClickHouse-Summary; an exception answers 500 with its text and X-ClickHouse-Exception-Code.
 *
 * libchdb holds one data folder per process, so the server is started once per test worker and
 * kept on globalThis (a test file that imports this module afresh finds it there); its statements
 * run one at a time on the one session, as each sets the session's database and settings. The
 * folder is named after the worker's pid: vitest ends its workers without an 'exit' event, so each
 * start removes the folders of workers that are gone.
 */
const CLIENT_PARAMS = new Set(['query', 'database', 'query_id', 'session_id', 'role', 'user', 'password']);
const SETTING_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const EXCEPTION_CODE = /Code: (\d+)\./;

interface ChdbServer {
  readonly url: string;
  readonly version: string;
}

const KEY = Symbol.for('adplane.test.chdbServer');
type Holder = { [KEY]?: Promise<ChdbServer> };

/** A name as a ClickHouse identifier: in backticks, a backtick or backslash in it escaped. */
const identifier = (name: string) => `\`${name.replace(/[`\\]/g, (c) => `\\${c}`)}\``;
/** A setting's value as a SQL literal: numbers stay numbers, anything else is a quoted string. */
const settingValue = (value: string) =>
  /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

const FOLDER = /^adplane-chdb-(\d+)-/;

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function dataFolder(): string {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(FOLDER.exec(name)?.[1] ?? 0);
    if (pid && pid !== process.pid && !running(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  return mkdtempSync(join(tmpdir(), `adplane-chdb-${process.pid}-`));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function start(): Promise<ChdbServer> {
  const folder = dataFolder();
  const session = new Session(folder);
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));

  /** Each statement waits for the one before: the session's database and settings are its own meanwhile. */
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  /** The session's current database and the settings a statement set, changed only when the next asks otherwise. */
  let database = 'default';
  const changed = new Map<string, string>();

  const run = async (params: URLSearchParams, body: string) => {
    const sql = [params.get('query'), body].filter((s) => s).join('\n');
    if (!sql.trim()) throw new Error('Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)');
    if ([...params.keys()].some((k) => k.startsWith('param_')))
      throw new Error('Code: 48. DB::Exception: The test server does not carry query parameters. (NOT_IMPLEMENTED)');
    const settings = new Map([...params].filter(([k]) => !CLIENT_PARAMS.has(k)));
    for (const name of settings.keys())
      if (!SETTING_NAME.test(name))
        throw new Error(`Code: 115. DB::Exception: Unknown setting ${name}. (UNKNOWN_SETTING)`);
    return serially(async () => {
      const wanted = params.get('database') ?? 'default';
      if (wanted !== database) {
        await session.queryAsync(`USE ${identifier(wanted)}`);
        database = wanted;
      }
      for (const name of changed.keys())
        if (!settings.has(name)) {
          await session.queryAsync(`SET ${name} = DEFAULT`);
          changed.delete(name);
        }
      for (const [name, value] of settings)
        if (changed.get(name) !== value) {
          await session.queryAsync(`SET ${name} = ${settingValue(value)}`);
          changed.set(name, value);
        }
      return session.queryAsync(sql, { format: 'TabSeparated' });
    });
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    try {
      const result = await run(url.searchParams, req.method === 'POST' ? await bodyOf(req) : '');
      const bytes = result.bytes();
      res
        .writeHead(200, {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Query-Id': url.searchParams.get('query_id') ?? '',
          'X-ClickHouse-Summary': JSON.stringify({
            read_rows: String(result.rowsRead),
            read_bytes: String(result.bytesRead),
            elapsed_ns: String(Math.round(result.elapsed * 1e9)),
          }),
        })
        .end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (error) {
      // chdb's synchronous calls prefix the engine's text with "Query failed: "; the HTTP interface does not
      const text = (error as Error).message.replace(/^Query failed: /, '');
      res
        .writeHead(500, {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Exception-Code': EXCEPTION_CODE.exec(text)?.[1] ?? '1001',
        })
        .end(`${text}\n`);
    }
  };

  const server = createServer((req, res) => void answer(req, res));
  // tests that set the clock make the client's idle-socket check unreliable: a kept socket must still answer
  server.keepAliveTimeout = 600_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      // the test worker exits when its files are done: an idle listener must not keep it alive
      server.unref();
      const version = session.query('SELECT version()', 'TabSeparated').trim();
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, version });
    });
  });
}

/** The worker's chdb ClickHouse, started at the first call. */
export function chdbServer(): Promise<ChdbServer> {
  const holder = globalThis as Holder;
  holder[KEY] ??= start();
  return holder[KEY];
}
