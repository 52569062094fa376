import { connect, type Socket } from 'node:net';

/**
 * A small HTTP/1.1 load generator on raw sockets with pipelining, so that one core of client can
 * saturate one core of server (Node's fetch or http.request would be the bottleneck instead).
 * Closed loop (`depth` requests in flight per connection) for throughput; open loop (a fixed rate)
 * for latency at a given load. Responses are framed by Content-Length (every server here sends it).
 */
export interface LoadResult {
  requests: number;
  rps: number;
  errors: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface Conn {
  socket: Socket;
  buffer: Buffer;
  sentAt: number[];
  /** Which of the requests each one in flight is (its index in `paths` or `requests`). */
  sentWhich: number[];
}

/** Percentiles of some latencies, ms. */
export interface Spread {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const spreadOf = (xs: number[]): Spread => {
  const sorted = Float64Array.from(xs).sort();
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: percentile(sorted, 1) };
};

/**
 * What the server added to each request's slowest demand answer: its latency (by request index, as
 * runLoad's `onAnswer` heard it) minus how long the demand end held that request's slowest call
 * (`holds`, by the key `keyOf` gives the request). Requests the demand end never saw are left out.
 */
export function addedOverHolds(
  latency: Map<number, number>,
  holds: Record<string, number>,
  keyOf: (which: number) => string,
): { slowestHold: Spread; added: Spread & { requests: number } } {
  const added: number[] = [];
  const held: number[] = [];
  for (const [which, ms] of latency) {
    const hold = holds[keyOf(which)];
    if (hold === undefined) continue;
    added.push(ms - hold);
    held.push(hold);
  }
  return { slowestHold: spreadOf(held), added: { requests: added.length, ...spreadOf(added) } };
}

/** The `p` quantile (0..1) of sorted latencies, ms to 3 decimals. */
function percentile(sorted: Float64Array, p: number): number {
  if (!sorted.length) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 1000) / 1000;
}

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** A POST with a JSON body as raw bytes (an OpenRTB bid request), for `requests`. */
export function jsonPost(path: string, body: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(body));
  return Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${UA}\r\nContent-Type: application/json\r\nx-openrtb-version: 2.6\r\nContent-Length: ${json.length}\r\n\r\n`,
    ),
    json,
  ]);
}

/**
 * `paths` are sent as GETs; `requests` as the raw bytes given (see jsonPost), in turn. `onAnswer`
 * hears each measured answer: which request it was (its index) and its latency.
 */
export async function runLoad(opts: {
  port: number;
  paths?: string[];
  requests?: Buffer[];
  connections: number;
  depth?: number;
  rate?: number;
  durationMs: number;
  warmupMs?: number;
  onAnswer?: (which: number, ms: number) => void;
}): Promise<LoadResult> {
  const { port, connections, durationMs } = opts;
  const depth = opts.depth ?? 1;
  const reqs =
    opts.requests ??
    (opts.paths ?? []).map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${UA}\r\n\r\n`));
  if (!reqs.length) throw new Error('runLoad: no paths or requests');
  let next = 0;
  let measuring = false;
  let stopped = false;
  let done = 0;
  let errors = 0;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const conns: Conn[] = [];

  const send = (c: Conn) => {
    const which = next++ % reqs.length;
    c.sentAt.push(performance.now());
    c.sentWhich.push(which);
    c.socket.write(reqs[which]!);
  };

  const onData = (c: Conn, chunk: Buffer) => {
    c.buffer = c.buffer.length ? Buffer.concat([c.buffer, chunk]) : chunk;
    for (;;) {
      const headEnd = c.buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = c.buffer.toString('latin1', 0, headEnd);
      const m = /content-length:\s*(\d+)/i.exec(head);
      const len = m ? Number(m[1]) : 0;
      if (c.buffer.length < headEnd + 4 + len) return;
      c.buffer = c.buffer.subarray(headEnd + 4 + len);
      const started = c.sentAt.shift()!;
      const which = c.sentWhich.shift()!;
      if (measuring) {
        const status = head.slice(9, 12);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status[0] === '5') errors++;
        const ms = performance.now() - started;
        latencies.push(ms);
        opts.onAnswer?.(which, ms);
        done++;
      }
      if (!stopped && !opts.rate) send(c);
    }
  };

  for (let i = 0; i < connections; i++) {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    const c: Conn = { socket, buffer: Buffer.alloc(0), sentAt: [], sentWhich: [] };
    socket.on('data', (chunk) => onData(c, chunk));
    socket.on('error', () => errors++);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    conns.push(c);
  }

  let timer: NodeJS.Timeout | undefined;
  if (opts.rate) {
    const start = performance.now();
    let sent = 0;
    let rr = 0;
    timer = setInterval(() => {
      const due = Math.floor(((performance.now() - start) / 1000) * opts.rate!);
      while (sent < due) {
        send(conns[rr++ % conns.length]!);
        sent++;
      }
    }, 1);
  } else {
    for (const c of conns) for (let d = 0; d < depth; d++) send(c);
  }

  await new Promise((r) => setTimeout(r, opts.warmupMs ?? 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const elapsed = performance.now() - t0;
  stopped = true;
  clearInterval(timer);
  await new Promise((r) => setTimeout(r, 200));
  for (const c of conns) c.socket.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: done,
    rps: Math.round((done / elapsed) * 1000),
    errors,
    statuses,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: percentile(sorted, 1),
  };
}
