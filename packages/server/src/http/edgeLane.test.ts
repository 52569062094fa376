import { type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { type LocalServer, localServer } from '../../test/localServer.js';
import { exchange } from '../../test/rawHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type EdgeRequest, type EdgeResponse } from './edgeHttp.js';
import { installEdgeLane, MAX_HEAD_BYTES, readHead } from './edgeLane.js';

/**
 * The lane in front of a real node:http server, driven over raw sockets (pipelining needs them).
 * The edge's part here: `/e/...` answers at once, `/slow/<ms>` after ms, `/headers` echoes the
 * request's headers, `/body` echoes a POST's body; each answer says whether the lane or node:http
 * carried it. Everything else is node:http's (`node <method> <url>`).
 */
const servers: LocalServer[] = [];
const hungUp: string[] = [];
/** The slow requests the handler began. */
const began: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function viaOf(req: EdgeRequest): string {
  return (req as object).constructor.name === 'IncomingMessage' ? 'node' : 'lane';
}

function serve(req: EdgeRequest, res: EdgeResponse): boolean {
  const url = req.url ?? '';
  const via = viaOf(req);
  if (url.startsWith('/e/')) {
    const body = `${via} ${req.method} ${url}`;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }
  if (url.startsWith('/slow/')) {
    began.push(url);
    setTimeout(
      () => {
        if (req.socket.destroyed) hungUp.push(url);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`${via} slow ${url}`);
      },
      Number(url.slice(6)),
    );
    return true;
  }
  if (url === '/headers') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.headers));
    return true;
  }
  if (url === '/body' && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${via} got ${Buffer.concat(chunks).toString()}`);
    });
    return true;
  }
  if (url === '/throws') throw new Error('a handler bug');
  if (url === '/late-bad-header') {
    setTimeout(() => {
      try {
        res.writeHead(200, { 'x-injected': 'a\r\nb' });
        res.end('x');
      } catch {
        // refused, as node:http's writeHead refuses it
      }
    }, 10);
    return true;
  }
  if (url === '/latin1') {
    res.writeHead(200, { 'x-name': 'caf\xe9' });
    res.end('ok');
    return true;
  }
  if (url === '/bad-header') {
    res.writeHead(200, { 'x-injected': 'a\r\nset-cookie: evil=1' });
    res.end('x');
    return true;
  }
  return false;
}

async function start(
  keepAliveMs = 5000,
  headers?: Record<string, string>,
): Promise<{ port: number; server: Server; lane: ReturnType<typeof installEdgeLane> }> {
  const local = await localServer((req: IncomingMessage, res) => {
    if (serve(req, res)) return;
    const body = `node ${req.method} ${req.url}`;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  });
  servers.push(local);
  // (no client knows the port yet: the lane is in front of every connection)
  local.server.keepAliveTimeout = keepAliveMs;
  const lane = installEdgeLane(local.server, { serve, keepAliveMs, ...(headers ? { headers } : {}) });
  return { port: local.port, server: local.server, lane };
}

/** A connection whose reads the test makes, one 'data' event each (a real socket may join them). */
class PieceSocket extends Duplex {
  readonly written: Buffer[] = [];
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.written.push(chunk);
    done();
  }
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: test\r\n${extra}\r\n`;

describe('readHead', () => {
  it('reads a plain GET', () => {
    expect(
      readHead('GET /vast/abc?w=640 HTTP/1.1\r\nHost: x\r\nUser-Agent: UA 1\r\nX-Forwarded-For:  1.2.3.4 \t'),
    ).toEqual({
      method: 'GET',
      url: '/vast/abc?w=640',
      version: '1.1',
      headers: { host: 'x', 'user-agent': 'UA 1', 'x-forwarded-for': '1.2.3.4' },
      keepAlive: true,
      bodyBytes: 0,
    });
  });

  it('leaves to node:http what it does not plainly read', () => {
    const cases = [
      'GET /a HTTP/1.1', // no Host
      'GET /a HTTP/2.0\r\nHost: x',
      'PUT /a HTTP/1.1\r\nHost: x',
      'GET http://x/a HTTP/1.1\r\nHost: x',
      'GET /a b HTTP/1.1\r\nHost: x',
      'GET /a HTTP/1.1\r\nHost: x\r\n folded',
      'GET /a HTTP/1.1\r\nHost: x\r\nBad Header: 1',
      'GET /a HTTP/1.1\r\nHost: x\r\nNoColon',
      'GET /a HTTP/1.1\r\nHost: x\r\nX: a\nb',
      'GET /a HTTP/1.1\r\nHost: x\r\nX: a\rb',
      'GET /a HTTP/1.1\r\nHost: x\r\nX: a\0b',
      'POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked',
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6',
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: -1',
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999',
      'GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3',
      'GET /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue',
      'GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: websocket',
      'GET /a HTTP/1.1\r\nHost: x\r\n__proto__: x',
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\t', // llhttp: only SP after the digits
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\xa0',
      'GET /a HTTP/1.1\r\nHost: x\r\nProxy-Connection: close', // llhttp reads it as Connection
      'GET /a HTTP/1.1\r\nHost: x\r\nConnection: \xa0close', // not llhttp's close: no token of the lane's
    ];
    for (const head of cases) expect(readHead(head), head).toBeNull();
  });

  it('keeps a connection alive as HTTP/1.1 and 1.0 say', () => {
    expect(readHead('GET /a HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, Close')!.keepAlive).toBe(false);
    expect(readHead('GET /a HTTP/1.0')!.keepAlive).toBe(false);
    expect(readHead('GET /a HTTP/1.0\r\nConnection: keep-alive')!.keepAlive).toBe(true);
  });
});

describe('the edge lane', () => {
  it("answers the edge's requests itself, with the headers node:http would add", async () => {
    const { port } = await start();
    const { answers } = await exchange(port, [get('/e/one')], 1);
    expect(answers[0]).toMatchObject({ status: 200, body: 'lane GET /e/one' });
    expect(answers[0]!.headers).toMatchObject({
      'content-type': 'text/plain',
      'content-length': '15',
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
    });
    expect(new Date(answers[0]!.headers.date!).getTime()).toBeGreaterThan(Date.now() - 5000);
  });

  it('answers pipelined requests in their order, a slow one holding back those after it', async () => {
    const { port } = await start();
    const { answers } = await exchange(port, [get('/slow/60') + get('/e/two') + get('/slow/10') + get('/e/four')], 4);
    expect(answers.map((a) => a.body)).toEqual([
      'lane slow /slow/60',
      'lane GET /e/two',
      'lane slow /slow/10',
      'lane GET /e/four',
    ]);
  });

  it('reads a request that arrives a few bytes at a time', async () => {
    const { port } = await start();
    const bytes = Buffer.from(get('/e/split') + get('/e/next'));
    const parts = [];
    for (let i = 0; i < bytes.length; i += 7) parts.push(bytes.subarray(i, i + 7));
    const { answers } = await exchange(port, parts, 2, { gapMs: 1 });
    expect(answers.map((a) => a.body)).toEqual(['lane GET /e/split', 'lane GET /e/next']);
  });

  it('reads a head and a body that come in small pieces in work linear in their size', async () => {
    const { server, lane } = await start();
    const read = async (bytes: Buffer, piece: (at: number) => number, answer: string) => {
      const socket = new PieceSocket();
      server.emit('connection', socket);
      const before = lane.examined();
      for (let i = 0; i < bytes.length; ) {
        const n = piece(i);
        socket.emit('data', bytes.subarray(i, i + n));
        i += n;
      }
      await expect.poll(() => Buffer.concat(socket.written).toString('latin1')).toContain(answer);
      socket.destroy();
      return lane.examined() - before;
    };
    // a head of 12 KB a byte at a time (each byte looked at again on every piece: 72 MB)
    const head = Buffer.from(get('/e/long', `X-Pad: ${'p'.repeat(12 * 1024)}\r\n`));
    expect(await read(head, () => 1, 'lane GET /e/long')).toBeLessThan(6 * head.length);
    // a body of 400 KB in 100-byte pieces after its head (the same: 800 MB)
    const body = 'b'.repeat(400 * 1024);
    const post = Buffer.from(`POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(await read(post, () => 100, `lane got ${body}`)).toBeLessThan(3 * post.length);
    // the same bytes whole: each looked at once or twice
    expect(await read(post, () => post.length, `lane got ${body}`)).toBeLessThanOrEqual(2 * post.length);
  });

  it("hands the connection to node:http at the first request that is not the edge's, after the answers due before it", async () => {
    const { port } = await start();
    const { answers } = await exchange(port, [get('/slow/40') + get('/e/a') + get('/console') + get('/e/b')], 4);
    expect(answers.map((a) => a.body)).toEqual([
      'lane slow /slow/40',
      'lane GET /e/a',
      'node GET /console',
      'node GET /e/b',
    ]);
  });

  it('hands over in the middle of a read and later writes alike', async () => {
    const { port } = await start();
    const { answers } = await exchange(port, [get('/e/a'), get('/api/x'), get('/e/c')], 3, { gapMs: 20 });
    expect(answers.map((a) => a.body)).toEqual(['lane GET /e/a', 'node GET /api/x', 'node GET /e/c']);
  });

  it('gives node:http a request it does not plainly read, which node answers as it always does', async () => {
    const { port } = await start();
    const bad = await exchange(port, [get('/e/a') + 'GET /e/b HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'], 2, {
      waitEndMs: 300,
    });
    expect(bad.answers.map((a) => a.status)).toEqual([200, 400]);
    const chunked = await exchange(
      port,
      ['POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
      1,
    );
    expect(chunked.answers[0]!.body).toBe('node got abc');
    const large = await exchange(port, [get('/e/a', `X-Big: ${'b'.repeat(MAX_HEAD_BYTES)}\r\n`)], 1, {
      waitEndMs: 300,
    });
    expect(large.answers[0]!.status).toBe(431);
  });

  it('reads a POST body of a stated length', async () => {
    const { port } = await start();
    const post = (body: string) =>
      `POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const { answers } = await exchange(port, [post('{"id":"1"}') + post('é')], 2);
    expect(answers.map((a) => a.body)).toEqual(['lane got {"id":"1"}', 'lane got é']);
    // the body arriving after its head
    const late = await exchange(port, ['POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nabc', 'def'], 1, {
      gapMs: 20,
    });
    expect(late.answers[0]!.body).toBe('lane got abcdef');
  });

  it('reads duplicate and odd headers as node:http does', async () => {
    const { port } = await start();
    const block =
      'User-Agent: first\r\nuser-agent: second\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\nCookie: a=1\r\nCookie: b=2\r\nX-Empty:\r\nX-Latin: caf\xe9\r\n';
    const lane = await exchange(port, [Buffer.from(get('/headers', block), 'latin1')], 1);
    const node = await exchange(port, [Buffer.from(get('/nothing') + get('/headers', block), 'latin1')], 2);
    expect(node.answers[1]!.body).toBe(lane.answers[0]!.body);
    expect(JSON.parse(lane.answers[0]!.body)).toMatchObject({
      'user-agent': 'first',
      'x-forwarded-for': '1.1.1.1, 2.2.2.2',
      cookie: 'a=1; b=2',
      'x-empty': '',
    });
  });

  it('closes after an answer when the request asks, and keeps HTTP/1.0 alive only when asked', async () => {
    const { port } = await start();
    const close = await exchange(port, [get('/e/a', 'Connection: close\r\n') + get('/e/ignored')], 1, {
      waitEndMs: 300,
    });
    expect(close.answers.map((a) => a.body)).toEqual(['lane GET /e/a']);
    expect(close.answers[0]!.headers.connection).toBe('close');
    expect(close.ended).toBe(true);
    const old = await exchange(port, ['GET /e/old HTTP/1.0\r\n\r\n'], 1, { waitEndMs: 300 });
    expect(old.ended).toBe(true);
    expect(old.answers[0]!.headers.connection).toBe('close');
    const kept = await exchange(port, ['GET /e/old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'], 1, { waitEndMs: 200 });
    expect(kept.ended).toBe(false);
    expect(kept.answers[0]!.headers.connection).toBe('keep-alive');
  });

  it('answers HEAD without a body', async () => {
    const { port } = await start();
    const { answers } = await exchange(port, ['HEAD /e/h HTTP/1.1\r\nHost: x\r\n\r\n' + get('/e/after')], 2, {
      head: [true, false],
    });
    expect(answers[0]).toMatchObject({ status: 200, body: '' });
    expect(answers[0]!.headers['content-length']).toBe('14'); // 'lane HEAD /e/h': the length the handler stated
    expect(answers[1]!.body).toBe('lane GET /e/after');
  });

  it("refuses a header value that would split the answer, and a handler's throw closes only its connection", async () => {
    const { port } = await start();
    const split = await exchange(port, [get('/bad-header')], 1, { waitEndMs: 300 });
    expect(split.answers).toEqual([]);
    expect(split.ended).toBe(true);
    // refused after its read: the connection closes at once, the answer before it out
    const late = await exchange(port, [get('/e/a') + get('/late-bad-header')], 2, { waitEndMs: 300 });
    expect(late.answers.map((a) => a.body)).toEqual(['lane GET /e/a']);
    expect(late.ended).toBe(true);
    const thrown = await exchange(port, [get('/throws')], 1, { waitEndMs: 300 });
    expect(thrown.ended).toBe(true);
    expect((await exchange(port, [get('/e/still')], 1)).answers[0]!.body).toBe('lane GET /e/still');
  });

  it("adds the server's own headers, and writes a header beyond ASCII as latin1 as node:http does", async () => {
    const { port } = await start(5000, { 'x-adplane-worker': '2' });
    const { answers } = await exchange(port, [get('/e/a') + get('/latin1')], 2);
    expect(answers.map((a) => a.headers['x-adplane-worker'])).toEqual(['2', '2']);
    expect(answers[1]!.headers['x-name']).toBe('caf\xe9');
    expect(answers[1]!.body).toBe('ok');
  });

  it('gives up the requests waiting when the client ends its side, as node:http does', async () => {
    const { port, lane } = await start();
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const closed = new Promise((r) => socket.on('close', r));
    socket.on('data', () => undefined);
    socket.end(get('/slow/80'));
    await closed;
    // the slow answer, due 80 ms on, finds its socket destroyed
    await expect.poll(() => hungUp, { timeout: 5000 }).toContain('/slow/80');
    await expect.poll(() => lane.connections(), { timeout: 5000 }).toBe(0);
  });

  it('closes an idle connection after the keep-alive time', async () => {
    const { port, lane } = await start(150);
    const { ended, answers } = await exchange(port, [get('/e/a')], 1, { waitEndMs: 600 });
    expect(answers).toHaveLength(1);
    expect(ended).toBe(true);
    await expect.poll(() => lane.connections(), { timeout: 5000 }).toBe(0);
  });

  it('lets the server close: idle connections at once, a busy one after its answer', async () => {
    const { port, server, lane } = await start();
    const idle = connect(port, '127.0.0.1');
    const idleClosed = new Promise((r) => idle.on('close', r));
    idle.write(get('/e/a'));
    await new Promise((r) => idle.once('data', r));
    const busy = exchange(port, [get('/slow/150')], 1, { waitEndMs: 1000 });
    // the slow request is being answered: its connection is busy
    await expect.poll(() => began, { timeout: 5000 }).toContain('/slow/150');
    expect(lane.connections()).toBe(2);
    const closed = new Promise((r) => server.close(r));
    await idleClosed;
    const answer = await busy;
    expect(answer.answers[0]!.body).toBe('lane slow /slow/150');
    expect(answer.answers[0]!.headers.connection).toBe('close');
    expect(answer.ended).toBe(true);
    await closed;
    servers.splice(
      servers.findIndex((s) => s.server === server),
      1,
    );
  });
});
