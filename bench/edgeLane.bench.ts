/**
 * The edge lane's reading alone (packages/server/src/http/edgeLane.ts), over loopback TCP:
 *
 *   npx tsx bench/edgeLane.bench.ts        (BENCH_SECONDS for the rate cases, default 3)
 *
 * A child process serves (the lane in front of a node:http server, or node:http alone for R); the
 * parent is the client. Cases: the rate of small pipelined GETs (16 connections, 32 in flight each)
 * through the lane and through bare node:http, with the server's CPU per request; a 500 KB POST body
 * sent whole, and the same body trickled in 100-byte writes (one a timer's turn after the other, so
 * that the server reads each alone), with the server's CPU per request and the reads it took. Results go to
 * bench/results/edgeLane.json. The numbers compare a change with the code before it on the same
 * machine, minutes apart.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { installEdgeLane } from '../packages/server/src/http/edgeLane.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const BODY_BYTES = 500 * 1024;
const PIECE = 100;

interface ServerStats {
  cpuMs: number;
  reads: number;
}

/** The child: a server on a port it reports, answering its CPU time and reads so far when asked. */
function serve(withLane: boolean): void {
  let reads = 0;
  const answer = (url: string, bodyBytes: number) => (url.startsWith('/e/') ? 'okokokok' : `got ${bodyBytes}`);
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const body = answer(req.url ?? '', bytes);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (socket: Socket) => socket.on('data', () => reads++));
  if (withLane) {
    installEdgeLane(server, {
      keepAliveMs: 10_000,
      maxBodyBytes: 1024 * 1024,
      serve: (req, res) => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 8 });
          res.end('okokokok');
          return true;
        }
        let bytes = 0;
        req.on('data', (c) => (bytes += (c as Buffer).length));
        req.on('end', () => {
          const body = answer(req.url ?? '', bytes);
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
          res.end(body);
        });
        return true;
      },
    });
  }
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMs: (user + system) / 1000, reads } satisfies ServerStats);
  });
}

async function startServer(withLane: boolean): Promise<{ port: number; stats(): Promise<ServerStats>; stop(): void }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, LANE_BENCH_SERVER: withLane ? 'lane' : 'node' },
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return {
    port,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m: ServerStats) => resolve(m));
        child.send('stats');
      }),
    stop: () => child.kill(),
  };
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((r) => socket.once('connect', r));
  return socket;
}

/** Counts the answers coming on a socket (each starts with the status line), calling `onAnswers` with how many came in a read. */
function countAnswers(socket: Socket, onAnswers: (n: number) => void): void {
  const mark = 'HTTP/1.1 200';
  let tail = '';
  socket.on('data', (chunk: Buffer) => {
    const text = tail + chunk.toString('latin1');
    let n = 0;
    for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + mark.length)) n++;
    tail = text.slice(-(mark.length - 1));
    if (n) onAnswers(n);
  });
}

/** Small GETs, pipelined, for SECONDS: requests a second and the server's CPU per request. */
async function rate(
  port: number,
  stats: () => Promise<ServerStats>,
): Promise<{ reqPerS: number; serverCpuUsPerReq: number }> {
  const request = 'GET /e/floor HTTP/1.1\r\nHost: bench\r\nUser-Agent: edgeLane.bench\r\n\r\n';
  const sockets = await Promise.all(Array.from({ length: 16 }, () => open(port)));
  let answered = 0;
  let running = true;
  for (const socket of sockets) {
    countAnswers(socket, (n) => {
      answered += n;
      if (running) socket.write(request.repeat(n));
    });
  }
  const cpuBefore = (await stats()).cpuMs;
  const t0 = performance.now();
  const answeredBefore = answered;
  for (const socket of sockets) socket.write(request.repeat(32));
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  running = false;
  const requests = answered - answeredBefore;
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = (await stats()).cpuMs - cpuBefore;
  for (const socket of sockets) socket.destroy();
  return { reqPerS: Math.round(requests / seconds), serverCpuUsPerReq: Number(((cpuMs * 1000) / requests).toFixed(2)) };
}

/** POSTs of BODY_BYTES, whole or in PIECE-byte writes: the server's CPU and reads per request. */
async function bodies(
  port: number,
  stats: () => Promise<ServerStats>,
  count: number,
  piece: number,
): Promise<{ serverCpuMsPerReq: number; readsPerReq: number }> {
  const socket = await open(port);
  let answered = 0;
  countAnswers(socket, (n) => (answered += n));
  const bytes = Buffer.from(
    `POST /body HTTP/1.1\r\nHost: bench\r\nContent-Length: ${BODY_BYTES}\r\n\r\n${'b'.repeat(BODY_BYTES)}`,
  );
  const before = await stats();
  for (let i = 0; i < count; i++) {
    for (let at = 0; at < bytes.length; at += piece) {
      await new Promise((r) => socket.write(bytes.subarray(at, at + piece), r));
      // a timer's turn between pieces, so that the server reads each on its own (as from a slow client)
      if (piece < bytes.length) await new Promise((r) => setTimeout(r, 0));
    }
    while (answered <= i) await new Promise((r) => setImmediate(r));
  }
  const after = await stats();
  socket.destroy();
  return {
    serverCpuMsPerReq: Number(((after.cpuMs - before.cpuMs) / count).toFixed(2)),
    readsPerReq: Math.round((after.reads - before.reads) / count),
  };
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg().map((l) => Number(l.toFixed(2))),
  };
  for (const withLane of [true, false]) {
    const server = await startServer(withLane);
    const name = withLane ? 'lane' : 'node:http';
    const floor = await rate(server.port, server.stats);
    const whole = await bodies(server.port, server.stats, 20, BODY_BYTES + 1024);
    const trickled = await bodies(server.port, server.stats, 1, PIECE);
    results[name] = { smallGets: floor, body500kWhole: whole, body500kIn100ByteWrites: trickled };
    process.stdout.write(`${name.padEnd(10)} ${JSON.stringify(results[name])}\n`);
    server.stop();
  }
  writeFileSync(new URL('./results/edgeLane.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
}

if (process.env.LANE_BENCH_SERVER) serve(process.env.LANE_BENCH_SERVER === 'lane');
else await main();
