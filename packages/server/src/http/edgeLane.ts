import { type OutgoingHttpHeaders, type Server, STATUS_CODES } from 'node:http';
import { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../clock.js';
import { type EdgeRequest, type EdgeResponse } from './edgeHttp.js';
import { FIELD_VALUE, fieldName, type Head, headLimits, type ReadLimits } from './edgeLaneHead.js';
import { LaneReader, type LaneReaderHost, SERVED, STOPPED, TO_NODE } from './edgeLaneReader.js';

export { MAX_HEAD_BYTES, readHead } from './edgeLaneHead.js';

/**
 * The edge's lane of the HTTP server: the connections' bytes are read here first, and the requests
 * the edge answers (an ad request, a tracking beacon, a bid request: `serve` says) are answered here,
 * without node:http's per-request machinery (an IncomingMessage and a ServerResponse stream, their
 * events and header bookkeeping: most of what node:http spends on a small request; see
 * docs/performance.md). Everything else is node:http's: at the first request that is not plainly
 * the edge's, the connection, with the bytes read so far, is handed to node:http's own connection
 * listener for the rest of its life, once the answers already due on it have gone out.
 *
 * "Plainly": the lane reads only a strict subset of HTTP/1.1 (RFC 9112): a request line of a
 * method it serves, an origin-form target of visible ASCII, HTTP/1.1 or 1.0; header lines of a
 * token, a colon and a value of visible characters; a Host for 1.1; a body only as a
 * Content-Length. A request with anything else (Transfer-Encoding, Expect, Upgrade, a folded or
 * malformed line, a header block over node:http's limit (the server's `maxHeaderSize`, else
 * `--max-http-header-size`), more header lines than node:http keeps, a bare CR or LF) goes to node:http, whose llhttp
 * parser answers it as it answers every other request (400, 431, chunked bodies, 100-continue); it
 * goes as soon as such a byte arrives, not when the head ends (`HeadScan`, http/edgeLaneHead.ts).
 * So the lane never has to be lenient, and a request is never read two ways. What node:http's
 * parser refuses by its state rather than by the bytes, the lane refuses as node:http does (its
 * server's 'clientError' listeners, or node's own answer): a head not all come `headersTimeoutMs`
 * after its first byte, or a request `requestTimeoutMs` after (408); bytes after a request that
 * closes its connection, an end of the client's side in the middle of a request (400).
 * edgeLane.differential.test.ts sends the same bytes to node:http alone and holds the answers equal;
 * edgeLane.fuzz.test.ts holds the reading (http/edgeLaneReader.ts) to llhttp's on generated requests.
 *
 * Answers on a connection go out in the order of its requests (pipelining), an answer finished
 * early waiting for those before it; answers finished while a read is processed go out in one
 * write. Keep-alive as node:http does it: HTTP/1.1 unless `Connection: close`, 1.0 only with
 * `Connection: keep-alive`; a connection idle between requests closes after `keepAliveMs`. Closing
 * the server (`closeIdleConnections`, `closeAllConnections`, `close`) reaches the lane's
 * connections too.
 */
export interface EdgeLaneOptions {
  /** Answers a request of the edge's and returns true; false: not the edge's (node:http gets the connection). */
  serve(req: EdgeRequest, res: EdgeResponse): boolean;
  keepAliveMs: number;
  /** A request's head must have come this long after its first byte (default: the server's `headersTimeout`; 0: no limit). */
  headersTimeoutMs?: number;
  /** A whole request must have come this long after its first byte (default: the server's `requestTimeout`; 0: no limit). */
  requestTimeoutMs?: number;
  /** The largest body read in the lane (larger ones go to node:http, which streams them). */
  maxBodyBytes?: number;
  /** Headers on every answer of the lane (the server's own: a cluster worker's id). */
  headers?: Record<string, string>;
}

const ASCII_VALUE = /^[\t\x20-\x7e]*$/;
/** node:http's answers of its own when its server has no 'clientError' listener (`_http_server.js`). */
const NODE_ANSWERS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: `HTTP/1.1 408 ${STATUS_CODES[408]}\r\nConnection: close\r\n\r\n`,
  default: `HTTP/1.1 400 ${STATUS_CODES[400]}\r\nConnection: close\r\n\r\n`,
};

let dateSecond = -1;
let dateLine = '';
/** The Date header's line, made once a second. */
function dateHeader(): string {
  const now = systemClock.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = `date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
}

class LaneRequest implements EdgeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[]>;
  body: Buffer | null = null;
  private onData: ((chunk: Buffer) => void) | null = null;
  private onEnd: (() => void) | null = null;
  private delivery: 'waiting' | 'scheduled' | 'done' = 'waiting';

  constructor(
    head: Head,
    readonly socket: Socket,
  ) {
    this.method = head.method;
    this.url = head.url;
    this.headers = head.headers;
  }

  on(event: 'data' | 'end' | 'error' | 'aborted', listener: ((chunk: Buffer) => void) | (() => void)): this {
    // the whole body is in hand before the request is served: it is given once the reader listens
    if (event === 'data') this.onData = listener as (chunk: Buffer) => void;
    else if (event === 'end') this.onEnd = listener as () => void;
    else return this;
    this.schedule();
    return this;
  }

  resume(): this {
    this.schedule();
    return this;
  }

  private schedule(): void {
    if (this.delivery !== 'waiting') return;
    this.delivery = 'scheduled';
    process.nextTick(() => {
      this.delivery = 'done';
      if (this.body?.length) this.onData?.(this.body);
      this.body = null;
      this.onEnd?.();
    });
  }
}

class LaneResponse implements EdgeResponse {
  statusCode = 200;
  headersSent = false;
  /** The answer's bytes once it ended: the head (and a string body, when the head is ASCII), then a Buffer body. */
  out: string | null = null;
  outBody: Buffer | null = null;
  /** The head holds characters beyond ASCII: it goes out on its own, as latin1 (as node:http writes headers). */
  latin1 = false;
  private headers: OutgoingHttpHeaders | undefined;

  constructor(
    private readonly connection: LaneConnection,
    private readonly head: boolean,
    readonly keepAlive: boolean,
  ) {}

  get destroyed(): boolean {
    return this.connection.socket.destroyed;
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw new Error('writeHead: the answer has started');
    this.statusCode = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }

  end(body?: string | Buffer): this {
    if (this.out !== null) return this;
    this.headersSent = true;
    try {
      this.serialize(body);
    } catch (error) {
      // an answer that cannot be written (a header that would split it) never goes out: the
      // connection closes, rather than wait behind it until its keep-alive time
      this.connection.socket.destroy();
      throw error;
    }
    this.connection.ended(this);
    return this;
  }

  private serialize(body: string | Buffer | undefined): void {
    const status = this.statusCode;
    if (!Number.isInteger(status) || status < 200 || status > 999)
      throw new RangeError(`Invalid status code: ${status}`);
    const bodyless = this.head || status === 204 || status === 304;
    let text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
    let hasLength = false;
    let hasDate = false;
    let latin1 = false;
    const headers = this.headers;
    if (headers) {
      for (const name in headers) {
        const value = headers[name];
        if (value === undefined) continue;
        const lower = fieldName(name);
        if (lower === null) throw new TypeError(`Header name must be a valid HTTP token ["${name}"]`);
        if (lower === 'content-length') hasLength = true;
        else if (lower === 'date') hasDate = true;
        else if (lower === 'connection' || lower === 'keep-alive' || lower === 'transfer-encoding') continue; // the lane's to say
        for (const one of Array.isArray(value) ? value : [value]) {
          const v = typeof one === 'string' ? one : String(one);
          if (!ASCII_VALUE.test(v)) {
            if (!FIELD_VALUE.test(v)) throw new TypeError(`Invalid character in header content ["${name}"]`);
            latin1 = true;
          }
          text += `${name}: ${v}\r\n`;
        }
      }
    }
    if (!hasDate) text += dateHeader();
    // (an answer before a request that asked to close still keeps the connection: that one closes it)
    text +=
      this.keepAlive && !this.connection.serverClosing
        ? this.connection.lane.keepAliveLines
        : this.connection.lane.closeLines;
    const payload = bodyless || body === undefined ? null : body;
    // a HEAD states the length a GET would have only when the handler said it
    if (!hasLength && !bodyless)
      text += `content-length: ${payload === null ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length}\r\n`;
    text += '\r\n';
    // (the lines the lane adds are ASCII: the server's own headers are the operator's names and values)
    this.latin1 = latin1;
    if (typeof payload === 'string' && !this.latin1) this.out = text + payload;
    else {
      this.out = text;
      this.outBody = typeof payload === 'string' ? Buffer.from(payload) : payload;
    }
  }
}

/** A connection read by the lane (its reading: http/edgeLaneReader.ts). */
class LaneConnection implements LaneReaderHost {
  private readonly queue: LaneResponse[] = [];
  private readonly reader: LaneReader;
  /** The head of the request being read has come (its body has not all come). */
  private headRead = false;
  /** When the request being read began (its first byte came), 0 when none is being read. */
  private requestSince = 0;
  private requestTimer: NodeJS.Timeout | null = null;
  /** The bytes from the first request node:http answers, waiting for the lane's answers before it. */
  private handover: Buffer[] | null = null;
  private reading = false;
  /** No request after the current ones: one asked for it (Connection: close, HTTP/1.0), or the server is closing. */
  private closeAfter = false;
  private done = false;

  constructor(
    readonly socket: Socket,
    readonly lane: EdgeLane,
  ) {
    this.reader = new LaneReader(this, lane.limits, lane);
  }

  get closing(): boolean {
    return this.closeAfter || this.lane.closing;
  }

  get serverClosing(): boolean {
    return this.lane.closing;
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.requestSince === 0 && this.handover === null;
  }

  readonly onData = (chunk: Buffer): void => {
    if (this.done) return;
    if (this.handover) {
      this.handover.push(chunk);
      return;
    }
    this.reading = true;
    try {
      this.reader.read(chunk);
    } finally {
      this.reading = false;
    }
    this.flush();
  };

  /** Serves a request whose body has come. */
  serve(head: Head, body: Buffer | null): number {
    const req = new LaneRequest(head, this.socket);
    if (body) req.body = body;
    const res = new LaneResponse(this, head.method === 'HEAD', head.keepAlive);
    this.queue.push(res);
    let served: boolean;
    try {
      served = this.lane.serve(req, res);
    } catch (error) {
      // a handler's throw closes its connection and is logged; the process serves on
      this.queue.splice(this.queue.indexOf(res), 1);
      this.lane.onError(error);
      this.socket.destroy();
      return STOPPED;
    }
    if (!served) {
      this.queue.splice(this.queue.indexOf(res), 1);
      return TO_NODE;
    }
    if (!head.keepAlive) this.closeAfter = true;
    this.requestDone();
    return SERVED;
  }

  /** A request has begun to come and is not whole: its time runs from its first byte (`arm`). */
  waiting(body: boolean): void {
    this.headRead = body;
    if (this.requestSince === 0) this.began();
    else this.arm();
  }

  afterClose(buf: Buffer): void {
    if (!this.closeAfter || this.lane.closing) return;
    // the answers ended so far go out, then node:http's refusal
    this.write();
    this.clientError(
      'HPE_CLOSED_CONNECTION',
      'Parse Error: Data after `Connection: close`',
      buf,
      this.queue.length === 0,
    );
  }

  /** A request has begun to come (its first bytes), and is not whole yet. */
  private began(): void {
    if (this.requestSince !== 0) return;
    // elapsed time, as node:http's own timers count it: monotonic, never the wall clock
    this.requestSince = performance.now();
    this.arm();
  }

  /**
   * The time the request being read has, counted from its first byte as node:http counts it: the
   * headers timeout (and the request timeout, when shorter) until its head has come, then the request
   * timeout; either, or both, 0 for none.
   */
  private arm(): void {
    if (this.requestTimer) clearTimeout(this.requestTimer);
    this.requestTimer = null;
    const { headersTimeoutMs, requestTimeoutMs } = this.lane;
    let limit = requestTimeoutMs > 0 ? requestTimeoutMs : Infinity;
    if (!this.headRead && headersTimeoutMs > 0) limit = Math.min(limit, headersTimeoutMs);
    if (limit === Infinity) return;
    this.requestTimer = setTimeout(this.onRequestTimeout, Math.max(0, this.requestSince + limit - performance.now()));
    this.requestTimer.unref();
  }

  private requestDone(): void {
    this.requestSince = 0;
    this.headRead = false;
    if (this.requestTimer) {
      clearTimeout(this.requestTimer);
      this.requestTimer = null;
    }
  }

  private readonly onRequestTimeout = (): void => {
    this.requestTimer = null;
    if (this.done) return;
    // (an answer still being decided has not started: node:http's in-flight answer has not sent its head)
    this.clientError('ERR_HTTP_REQUEST_TIMEOUT', 'Request timeout', undefined, false);
  };

  /**
   * A request node:http's parser would refuse (data after a close, an end in the middle of a
   * request) or whose time ran out: answered as node:http answers it. Its server's 'clientError'
   * listeners get it (adplane's answers a JSON 4xx: http/clientError.ts), or, when there are none,
   * node:http's own answer goes out unless an answer had already started (`answerStarted`); the
   * connection closes, the answers still being decided with it.
   */
  private clientError(code: string, message: string, rawPacket: Buffer | undefined, answerStarted: boolean): void {
    const socket = this.socket;
    this.finish();
    const error = Object.assign(new Error(message), { code, ...(rawPacket ? { rawPacket } : {}) });
    if (this.lane.server.emit('clientError', error, socket)) return;
    if (socket.writable && !answerStarted) socket.write(NODE_ANSWERS[code] ?? NODE_ANSWERS.default!);
    socket.destroy(error);
  }

  /** From the bytes `rest` on, node:http serves the connection (once the lane's answers due before it are out). */
  toNode(rest: Buffer[]): void {
    this.handover = rest;
    this.requestDone();
    this.socket.pause();
  }

  /**
   * An answer is ready. Answered while its read is processed, it goes out with the read's others;
   * answered later (a decision continues after an await), it goes out at the end of the turn, with
   * the answers finished in the same turn (the other requests of the read, decided one microtask
   * after another): one write for them, not one each.
   */
  ended(res: LaneResponse): void {
    if (this.queue[0] !== res || this.reading || this.flushQueued) return;
    this.flushQueued = true;
    process.nextTick(this.flushQueuedAnswers);
  }

  private flushQueued = false;
  private readonly flushQueuedAnswers = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  flush(): void {
    if (this.done) return;
    this.write();
    if (this.queue.length) return;
    if (this.closing) {
      this.finish();
      this.socket.end();
    } else if (this.handover) this.giveToNode();
  }

  /** The answers ready at the head of the queue go out, in one write when they can. */
  private write(): void {
    const socket = this.socket;
    if (!this.queue.length || this.queue[0]!.out === null || socket.destroyed) return;
    socket.cork();
    let text = '';
    while (this.queue.length && this.queue[0]!.out !== null) {
      const res = this.queue.shift()!;
      if (res.latin1) {
        if (text) socket.write(text);
        text = '';
        socket.write(res.out!, 'latin1');
      } else text += res.out!;
      if (res.outBody) {
        if (text) socket.write(text);
        text = '';
        socket.write(res.outBody);
      }
    }
    if (text) socket.write(text);
    socket.uncork();
    if (socket.writableNeedDrain && !socket.isPaused()) {
      socket.pause();
      socket.once('drain', () => {
        if (!this.done && this.handover === null) socket.resume();
      });
    }
  }

  private giveToNode(): void {
    const parts = this.handover!;
    const rest = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.finish(true);
    if (rest.length) this.socket.unshift(rest);
    this.lane.toNode(this.socket);
    this.socket.resume();
  }

  /**
   * The lane is done with this connection: it reads no more. Handed to node:http, node's listeners
   * take over; otherwise the error and timeout listeners stay, so that a late reset or a client
   * that never closes its side cannot outlive the connection (or throw an unhandled 'error').
   */
  finish(handover = false): void {
    if (this.done) return;
    this.done = true;
    this.requestDone();
    const socket = this.socket;
    socket.removeListener('data', this.onData);
    socket.removeListener('close', this.onClose);
    socket.removeListener('end', this.onEnd);
    if (handover) {
      socket.removeListener('timeout', this.onTimeout);
      socket.removeListener('error', this.onSocketError);
      socket.setTimeout(0);
    }
    this.lane.connections.delete(this);
  }

  /**
   * The connection was idle for `keepAliveMs`. A request being read has its own time (above), and an
   * answer being decided none, as with node:http, whose keep-alive time runs only between requests.
   */
  readonly onTimeout = (): void => {
    if (this.requestSince !== 0 || this.queue.length) return;
    this.socket.destroy();
  };

  /**
   * The client ended its side: as node:http does (its servers do not allow half-open connections),
   * the requests waiting are given up and the connection ends; a decision still running sees the
   * socket gone and gives back what it reserved. Ended in the middle of a request, it is refused as
   * node:http's parser refuses it.
   */
  readonly onEnd = (): void => {
    if (this.requestSince !== 0 && !this.done)
      return this.clientError('HPE_INVALID_EOF_STATE', 'Parse Error: Invalid EOF state', undefined, false);
    this.finish();
    if (this.socket.writable) this.socket.end();
  };

  readonly onClose = (): void => {
    this.finish();
  };

  readonly onSocketError = (): void => {
    this.socket.destroy();
  };
}

class EdgeLane {
  readonly connections = new Set<LaneConnection>();
  /** The lines every answer ends its head with: the connection's fate, then the server's own headers. */
  readonly keepAliveLines: string;
  readonly closeLines: string;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly limits: ReadLimits;
  closing = false;
  /** Bytes the lane has searched, scanned or copied, for tests: linear in the bytes read. */
  examined = 0;

  constructor(
    readonly server: Server,
    readonly serve: (req: EdgeRequest, res: EdgeResponse) => boolean,
    readonly toNode: (socket: Socket) => void,
    readonly onError: (error: unknown) => void,
    readonly keepAliveMs: number,
    options: EdgeLaneOptions,
  ) {
    const fixed = Object.entries(options.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    this.keepAliveLines = `connection: keep-alive\r\nkeep-alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n${fixed}`;
    this.closeLines = `connection: close\r\n${fixed}`;
    this.headersTimeoutMs = options.headersTimeoutMs ?? server.headersTimeout;
    this.requestTimeoutMs = options.requestTimeoutMs ?? server.requestTimeout;
    this.limits = headLimits(server, options.maxBodyBytes);
  }

  accept(socket: Socket): void {
    if (this.closing) {
      this.toNode(socket);
      return;
    }
    const connection = new LaneConnection(socket, this);
    this.connections.add(connection);
    socket.setNoDelay(true);
    socket.setTimeout(this.keepAliveMs);
    socket.on('timeout', connection.onTimeout);
    socket.on('close', connection.onClose);
    socket.on('end', connection.onEnd);
    socket.on('error', connection.onSocketError);
    socket.on('data', connection.onData);
  }

  closeIdle(): void {
    for (const connection of this.connections) {
      if (connection.idle) {
        connection.finish();
        connection.socket.destroy();
      }
    }
  }

  closeAll(): void {
    for (const connection of this.connections) {
      connection.finish();
      connection.socket.destroy();
    }
  }
}

/**
 * Puts the edge lane in front of `server`'s connections (see the top of this file). Returns the
 * number of connections the lane holds now, for tests and metrics, and the bytes it has examined
 * (searched, scanned or copied), for tests.
 */
export function installEdgeLane(
  server: Server,
  options: EdgeLaneOptions & { onError?: (error: unknown) => void },
): { connections(): number; examined(): number } {
  const [nodeListener] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (!nodeListener) throw new Error('installEdgeLane: the server has no connection listener');
  server.removeListener('connection', nodeListener);
  const lane = new EdgeLane(
    server,
    options.serve,
    (socket) => nodeListener.call(server, socket),
    options.onError ?? (() => undefined),
    options.keepAliveMs,
    options,
  );
  server.on('connection', (socket: Socket) => lane.accept(socket));
  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    lane.closing = true;
    lane.closeIdle();
    closeIdle();
  };
  server.closeAllConnections = () => {
    lane.closing = true;
    lane.closeAll();
    closeAll();
  };
  // node's close() closes its idle connections through closeIdleConnections (above); the lane's
  // busy ones close after their answers (closing: `connection: close`)
  return { connections: () => lane.connections.size, examined: () => lane.examined };
}
