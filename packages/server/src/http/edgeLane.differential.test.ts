import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnswers } from '../../test/rawHttp.js';
import { type EdgeRequest, type EdgeResponse } from './edgeHttp.js';
import { answerClientError } from './clientError.js';
import { installEdgeLane } from './edgeLane.js';

/**
 * The lane against node:http, byte for byte: each row's bytes go over a raw socket to a plain
 * node:http server and to one with the lane in front, both answering with the same handler (an echo
 * of what was read: method, target, headers, body). What each server sends back (status lines,
 * bodies, the connection's headers) and whether it closes the connection must be the same. Add a
 * case by adding a row.
 *
 * After a row's bytes a probe request follows (unless the row leaves a request unfinished), so that
 * a connection kept open is seen open by its answer, without waiting for a time; a row whose
 * connection closes is seen closing. The servers' timeouts are small here (the headers timeout, the
 * request timeout, node's check of them), so that a head or body sent too slowly is answered soon.
 */
const TIMEOUTS = { headersTimeout: 1000, requestTimeout: 2000, connectionsCheckingInterval: 50 };
const KEEP_ALIVE_MS = 10_000;
/** How long a row may take to be answered and closed: its servers' timeouts, many times over. */
const ROW_DEADLINE_MS = 8000;
const PROBE = 'GET /probe HTTP/1.1\r\nHost: probe\r\n\r\n';

interface Row {
  name: string;
  /** The bytes, each element its own write (the next one after the previous is written). */
  send: (string | Buffer)[];
  /**
   * No probe after the bytes: they leave a request unfinished (a probe would become part of it), or
   * they end the connection (node:http refuses bytes after a request that closes it, when they come
   * before it has closed: a probe would race the close).
   */
  noProbe?: true;
  /** The client ends its side after the bytes (no probe). */
  end?: true;
  /** Which answers are to HEAD requests (no body). */
  head?: boolean[];
  /** How many requests the lane itself serves (not node:http): the lane's fast path stays in use. */
  inLane?: number;
  /**
   * Bytes node:http refuses in the read of a request answered at once. Without a clientError listener,
   * node:http writes no 400 then (the answer in flight has sent its head: it only closes); the lane,
   * which answered that request itself, has handed the bytes to node:http after it, which writes its
   * 400 before closing. With a listener (adplane's server has one: http/clientError.ts) both write
   * the listener's answer.
   */
  extra400WithoutListener?: true;
}

const get = (path: string, extra = '', version = 'HTTP/1.1') => `GET ${path} ${version}\r\nHost: test\r\n${extra}\r\n`;
const post = (body: string, extra = '') =>
  `POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const inPieces = (bytes: string, size: number) => {
  const parts = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.slice(i, i + size));
  return parts;
};
const body2k = 'b'.repeat(2000);

const ROWS: Row[] = [
  { name: 'a GET', send: [get('/e/a')], inLane: 2 },
  { name: 'a HEAD', send: ['HEAD /e/h HTTP/1.1\r\nHost: test\r\n\r\n'], head: [true, false], inLane: 2 },
  { name: 'an OPTIONS', send: ['OPTIONS /e/o HTTP/1.1\r\nHost: test\r\n\r\n'], inLane: 2 },
  { name: 'pipelined GETs in one write', send: [get('/e/1') + get('/e/2') + get('/e/3')], inLane: 4 },
  { name: 'a request a few bytes at a time', send: inPieces(get('/e/split', 'User-Agent: UA\r\n'), 5), inLane: 2 },
  { name: 'a POST with a body', send: [post('{"id":"1"}')], inLane: 2 },
  {
    name: 'a POST, its body after its head',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 6\r\n\r\nabc', 'def'],
    inLane: 2,
  },
  { name: 'a body trickled in 100-byte writes', send: inPieces(post(body2k), 100), inLane: 2 },
  { name: 'pipelined POSTs and GETs', send: [post('one') + get('/e/x') + post('two')], inLane: 4 },
  { name: 'a POST of zero bytes', send: [post('')], inLane: 2 },
  {
    name: 'repeated headers (first wins, joined, cookies)',
    send: [
      get(
        '/e/h',
        'User-Agent: first\r\nuser-agent: second\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\nCookie: a=1\r\nCookie: b=2\r\nX-Empty:\r\n',
      ),
    ],
    inLane: 2,
  },
  { name: 'whitespace around a header value', send: [get('/e/w', 'X-A:   spaced \t \r\nX-B:\tx\r\n')], inLane: 2 },
  { name: 'a header value beyond ASCII', send: [Buffer.from(get('/e/l', 'X-Latin: caf\xe9\r\n'), 'latin1')] },
  { name: 'a duplicated Host', send: [get('/e/host', 'Host: other\r\n')] },
  { name: 'Connection: close', send: [get('/e/c', 'Connection: close\r\n')], noProbe: true },
  { name: 'Connection: keep-alive, close', send: [get('/e/c', 'Connection: keep-alive, close\r\n')], noProbe: true },
  { name: 'requests after Connection: close', send: [get('/e/c', 'Connection: close\r\n') + get('/e/after')] },
  { name: 'HTTP/1.0', send: [get('/e/old', '', 'HTTP/1.0')], noProbe: true },
  { name: 'HTTP/1.0 without Host', send: ['GET /e/old HTTP/1.0\r\n\r\n'], noProbe: true },
  { name: 'HTTP/1.0 keep-alive', send: [get('/e/old', 'Connection: keep-alive\r\n', 'HTTP/1.0')], inLane: 2 },
  { name: 'HTTP/1.1 without Host', send: ['GET /e/nohost HTTP/1.1\r\n\r\n'] },
  { name: "a request node:http serves, then the edge's", send: [get('/node/x') + get('/e/after')] },
  { name: "the edge's, then one node:http serves", send: [get('/e/a') + get('/node/x') + get('/e/b')] },
  { name: 'bare LF line ends', send: ['GET /e/lf HTTP/1.1\nHost: test\n\n'] },
  { name: 'bare LF after the request line', send: ['GET /e/lf HTTP/1.1\r\nHost: test\n\r\n'] },
  {
    name: 'bare LF, after a served request',
    send: [get('/e/a') + 'GET /e/lf HTTP/1.1\nHost: test\n\n'],
    extra400WithoutListener: true,
  },
  { name: 'bare LF, unfinished', send: ['GET /e/lf HTTP/1.1\nHost: test\n'], noProbe: true },
  { name: 'bare CR', send: ['GET /e/cr HTTP/1.1\rHost: test\r\r\n\r\n'] },
  { name: 'bare CR in a value', send: [get('/e/cr', 'X-A: a\rb\r\n')] },
  { name: 'bare CR, unfinished', send: ['GET /e/cr HTTP/1.1\r\nX: a\rb'], noProbe: true },
  { name: 'LF then CRLF at the end of the head', send: ['GET /e/x HTTP/1.1\r\nHost: test\r\n\n\r\n'] },
  { name: 'a NUL in a value', send: [get('/e/nul', 'X-A: a\0b\r\n')] },
  { name: 'a NUL in the target', send: ['GET /e/\0 HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'a NUL in the target, unfinished', send: ['GET /e/\0'], noProbe: true },
  { name: 'a control character in a value', send: [get('/e/ctl', 'X-A: a\x01b\r\n')] },
  { name: 'DEL in a value', send: [get('/e/del', 'X-A: a\x7fb\r\n')] },
  { name: 'a space in a header name', send: [get('/e/n', 'Bad Header: 1\r\n')] },
  {
    name: 'a space in a header name, unfinished',
    send: ['GET /e/n HTTP/1.1\r\nHost: test\r\nBad Header'],
    noProbe: true,
  },
  { name: 'a space before the colon', send: [get('/e/n', 'X-A : 1\r\n')] },
  { name: 'a line without a colon', send: [get('/e/n', 'NoColon\r\n')] },
  { name: 'an empty header name', send: [get('/e/n', ': 1\r\n')] },
  { name: 'obs-fold', send: [get('/e/f', 'X-A: a\r\n b\r\n')] },
  {
    name: 'a duplicated identical Content-Length',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc'],
  },
  {
    name: 'conflicting Content-Lengths',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd'],
  },
  {
    name: 'a duplicated Content-Length, unfinished',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n'],
    noProbe: true,
  },
  {
    name: 'Content-Length with a sign',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: +3\r\n\r\nabc'],
  },
  {
    name: 'Content-Length not a number',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3a\r\n\r\nabc'],
  },
  { name: 'Content-Length empty', send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length:\r\n\r\n'] },
  {
    name: 'Content-Length of a list',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3, 3\r\n\r\nabc'],
  },
  {
    name: 'Content-Length with leading zeros',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 003\r\n\r\nabc'],
    inLane: 2,
  },
  {
    name: 'Transfer-Encoding and Content-Length',
    send: [
      'POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    ],
  },
  {
    name: 'a chunked body',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
  },
  { name: 'a GET with a body', send: ['GET /e/g HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc'] },
  {
    name: 'Expect: 100-continue',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc'],
  },
  { name: 'a header block over 16 KB', send: [get('/e/big', `X-Big: ${'b'.repeat(17 * 1024)}\r\n`)] },
  {
    name: 'a header block over 16 KB, unfinished',
    send: [`GET /e/big HTTP/1.1\r\nHost: test\r\nX-Big: ${'b'.repeat(17 * 1024)}`],
    noProbe: true,
  },
  { name: 'a header block just under 16 KB', send: [get('/e/big', `X-Big: ${'b'.repeat(16 * 1024 - 100)}\r\n`)] },
  { name: 'a lower-case method', send: ['get /e/m HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'an unknown method', send: ['FOO /e/m HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'an unknown method, unfinished', send: ['FOO /e/m'], noProbe: true },
  { name: 'a method the lane leaves to node:http', send: ['DELETE /e/m HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'an absolute target', send: ['GET http://test/e/a HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'an asterisk target', send: ['OPTIONS * HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'a target with a space', send: ['GET /e/a b HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'two spaces after the method', send: ['GET  /e/a HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'a target with odd characters', send: ['GET /e/a?b="c"&d={e}|^`\\<>#f HTTP/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'a target beyond ASCII', send: [Buffer.from('GET /e/caf\xe9 HTTP/1.1\r\nHost: test\r\n\r\n', 'latin1')] },
  { name: 'HTTP/2.0 in the request line', send: ['GET /e/v HTTP/2.0\r\nHost: test\r\n\r\n'] },
  { name: 'HTTP/1.2 in the request line', send: ['GET /e/v HTTP/1.2\r\nHost: test\r\n\r\n'] },
  { name: 'a lower-case version', send: ['GET /e/v http/1.1\r\nHost: test\r\n\r\n'] },
  { name: 'no version', send: ['GET /e/v\r\nHost: test\r\n\r\n'] },
  { name: 'an empty line before the request', send: ['\r\n' + get('/e/a')] },
  { name: 'garbage', send: ['\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'] },
  { name: 'the client ends its side after a request', send: [get('/e/a')], end: true },
  { name: 'the client ends its side in a head', send: ['GET /e/a HTTP/1.1\r\nHost: te'], end: true },
  {
    name: 'the client ends its side in a body',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nabc'],
    end: true,
  },
  { name: 'line ends after a request', send: [get('/e/a') + '\r\n\r\n'] },
  { name: 'a request after one that closes, a POST', send: [post('x', 'Connection: close\r\n') + get('/e/after')] },
  {
    name: 'a request after one that closes, in a later write',
    send: [post('xy', 'Connection: close\r\n').slice(0, -1), 'y' + get('/e/after')],
  },
  {
    name: 'line ends after a request that closes',
    send: [get('/e/c', 'Connection: close\r\n') + '\r\n'],
    noProbe: true,
  },
  { name: 'a slow head (the headers timeout)', send: ['GET /e/slow HTTP/1.1\r\nHost: test\r\n'], noProbe: true },
  { name: 'a slow head after a served request', send: [get('/e/a') + 'GET /e/slow HTTP/1.1\r\nHo'], noProbe: true },
  { name: 'a slow request line', send: ['GET /e/sl'], noProbe: true },
  {
    name: 'a slow body (the request timeout)',
    send: ['POST /e/body HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nabc'],
    noProbe: true,
  },
];

/** What a server did with a row's bytes. */
interface Outcome {
  answers: { status: string; body: string; connection?: string; keepAlive?: string; contentLength?: string }[];
  closed: boolean;
  /** The client's port (what the lane's count of requests served is kept by). */
  port?: number;
}

/**
 * The answer a request gets from both servers: what was read of it. Without a body, at once (as the
 * edge answers an ad request or a beacon); with one, once it is read.
 */
function echo(req: EdgeRequest, res: EdgeResponse): void {
  const answer = (body: Buffer) => {
    const text = JSON.stringify({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: body.toString('latin1'),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
    return answer(Buffer.alloc(0));
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c as Buffer));
  req.on('end', () => answer(Buffer.concat(chunks)));
}

interface Pair {
  node: Server;
  lane: Server;
  /** Requests the lane served, by the client's port. */
  inLane: Map<number, number>;
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startPair(
  options: { clientError?: boolean } = {},
): Promise<Pair & { ports: { node: number; lane: number } }> {
  const node = createServer(TIMEOUTS, (req: IncomingMessage, res) => echo(req, res));
  const lane = createServer(TIMEOUTS, (req: IncomingMessage, res) => echo(req, res));
  const pair = { node, lane, inLane: new Map<number, number>() };
  for (const server of [node, lane]) {
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    if (options.clientError) server.on('clientError', answerClientError);
  }
  installEdgeLane(lane, {
    keepAliveMs: KEEP_ALIVE_MS,
    serve: (req, res) => {
      if (req.url?.startsWith('/node/')) return false;
      const port = (req.socket as Socket).remotePort!;
      pair.inLane.set(port, (pair.inLane.get(port) ?? 0) + 1);
      echo(req, res);
      return true;
    },
  });
  return Object.assign(pair, { ports: { node: await listening(node), lane: await listening(lane) } });
}

async function stopPair(pair: Pair): Promise<void> {
  for (const server of [pair.node, pair.lane]) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Sends a row's bytes (and the probe), and reads until the probe is answered or the connection closes. */
async function run(serverPort: number, row: Row): Promise<Outcome> {
  const socket = connect(serverPort, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const port = socket.localPort!;
  const chunks: Buffer[] = [];
  const head = [...(row.head ?? []), false];
  let closed = false;
  const answered = () => parseAnswers(Buffer.concat(chunks), head).some((a) => a.body.includes('/probe'));
  const done = new Promise<void>((resolve) => {
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (answered()) resolve();
    });
    socket.on('close', () => {
      closed = true;
      resolve();
    });
    socket.on('error', () => undefined);
  });
  for (const part of [...row.send, ...(row.noProbe || row.end ? [] : [PROBE])]) {
    if (socket.destroyed) break;
    await new Promise((r) => socket.write(part, r));
    // the next write after this one has been read (or at least had its turn)
    await new Promise((r) => setImmediate(r));
  }
  if (row.end) socket.end();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((r) => (timer = setTimeout(r, ROW_DEADLINE_MS)))]);
  clearTimeout(timer);
  socket.destroy();
  const raw = Buffer.concat(chunks);
  // (the echoed bodies are JSON: no line ends in them)
  const statusLines = [...raw.toString('latin1').matchAll(/HTTP\/1\.[01] \d{3}[^\r\n]*/g)].map((m) => m[0]);
  const answers = parseAnswers(raw, head).map((a, i) => ({
    status: statusLines[i] ?? String(a.status),
    body: a.body,
    ...(a.headers.connection ? { connection: a.headers.connection.toLowerCase() } : {}),
    ...(a.headers['keep-alive'] ? { keepAlive: a.headers['keep-alive'] } : {}),
    ...(a.headers['content-length'] ? { contentLength: a.headers['content-length'] } : {}),
  }));
  return { answers, closed, port };
}

const CONFIGURATIONS = [
  { name: "with node:http's own answers to what it refuses", clientError: false },
  { name: "with adplane's answers to what node:http refuses (its clientError listener)", clientError: true },
];

describe.each(CONFIGURATIONS)('the edge lane answers as node:http does, $name', ({ clientError }) => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  beforeAll(async () => {
    pair = await startPair({ clientError });
  });
  afterAll(async () => {
    await stopPair(pair);
  });

  it.concurrent.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const [{ port: _n, ...node }, { port, ...lane }] = await Promise.all([
      run(pair.ports.node, row),
      run(pair.ports.lane, row),
    ]);
    if (row.extra400WithoutListener && !clientError)
      node.answers.push({ status: 'HTTP/1.1 400 Bad Request', body: '', connection: 'close' });
    expect(lane).toEqual(node);
    // the rows the lane reads are served in the lane, not handed to node:http
    if (row.inLane) expect(pair.inLane.get(port!)).toBe(row.inLane);
  });
});
