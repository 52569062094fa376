import { type OutgoingHttpHeaders, type Server, STATUS_CODES } from 'node:http';
import { type Socket } from 'node:net';
import { type EdgeRequest, type EdgeResponse } from '../edge/edgeHttp.js';

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
 * malformed line, a header block over 16 KB, a bare CR or LF) goes to node:http, whose llhttp
 * parser answers it as it answers every other request (400, 431, chunked bodies, 100-continue).
 * So the lane never has to be lenient, and a request is never read two ways.
 *
 * Answers on a connection go out in the order of its requests (pipelining), an answer finished
 * early waiting for those before it; answers finished while a read is processed go out in one
 * write. Keep-alive as node:http does it: HTTP/1.1 unless `Connection: close`, 1.0 only with
 * `Connection: keep-alive`; an idle connection closes after `keepAliveMs`, a request whose header
 * block is not complete after `headersTimeoutMs` closes its connection. Closing the server
 * (`closeIdleConnections`, `closeAllConnections`, `close`) reaches the lane's connections too.
 */
export interface EdgeLaneOptions {
  /** Answers a request of the edge's and returns true; false: not the edge's (node:http gets the connection). */
  serve(req: EdgeRequest, res: EdgeResponse): boolean;
  keepAliveMs: number;
  headersTimeoutMs?: number;
  /** The largest body read in the lane (larger ones go to node:http, which streams them). */
  maxBodyBytes?: number;
  /** Headers on every answer of the lane (the server's own: a cluster worker's id). */
  headers?: Record<string, string>;
}

/** node:http's default limit of a request's header block. */
export const MAX_HEAD_BYTES = 16 * 1024;
const DEFAULT_MAX_BODY = 512 * 1024;
const LANE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST']);
const HEAD_END = Buffer.from('\r\n\r\n');
// RFC 9110 section 5.6.2 (token) and 5.5 (field values: visible characters, SP and HTAB, obs-text)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TARGET = /^\/[\x21-\x7e]*$/;
const ASCII_VALUE = /^[\t\x20-\x7e]*$/;
// node:http keeps the first of these when a request repeats them (IncomingMessage's rules)
const FIRST_WINS = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent']);
// handed to node:http: what the lane does not implement
const NOT_IN_LANE = new Set(['transfer-encoding', 'expect', 'upgrade', '__proto__']);

interface Head {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  keepAlive: boolean;
  bodyBytes: number;
}

/** The request's head, or null when the lane leaves it to node:http. `head` excludes the blank line. */
export function readHead(head: string, maxBodyBytes = DEFAULT_MAX_BODY): Head | null {
  let lineEnd = head.indexOf('\r\n');
  const line = lineEnd < 0 ? head : head.slice(0, lineEnd);
  const sp1 = line.indexOf(' ');
  const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
  if (sp2 < 0) return null;
  const method = line.slice(0, sp1);
  const url = line.slice(sp1 + 1, sp2);
  const version = line.slice(sp2 + 1);
  if (!LANE_METHODS.has(method) || !TARGET.test(url) || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) return null;
  const headers: Record<string, string | string[]> = {};
  let connection = '';
  let contentLength: string | null = null;
  while (lineEnd >= 0) {
    const start = lineEnd + 2;
    lineEnd = head.indexOf('\r\n', start);
    const field = lineEnd < 0 ? head.slice(start) : head.slice(start, lineEnd);
    const colon = field.indexOf(':');
    if (colon <= 0) return null;
    const name = fieldName(field.slice(0, colon));
    if (name === null) return null;
    const value = trimmed(field, colon + 1);
    // a bare CR or LF fails here (they are not field characters), so does a NUL
    if (!FIELD_VALUE.test(value)) return null;
    if (NOT_IN_LANE.has(name)) return null;
    if (name === 'content-length') {
      if (contentLength !== null && contentLength !== value) return null;
      contentLength = value;
    } else if (name === 'connection') connection = connection ? `${connection},${value}` : value;
    const had = headers[name];
    if (had === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (had as string[]).push(value);
    else if (!FIRST_WINS.has(name)) headers[name] = `${had as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  const http10 = version === 'HTTP/1.0';
  if (!http10 && headers.host === undefined) return null;
  let bodyBytes = 0;
  if (contentLength !== null) {
    if (!/^\d{1,9}$/.test(contentLength)) return null;
    bodyBytes = Number(contentLength);
    if (bodyBytes > maxBodyBytes) return null;
  }
  if (method !== 'POST' && bodyBytes > 0) return null;
  const tokens = connection.toLowerCase();
  const keepAlive = http10 ? /(^|,)\s*keep-alive\s*(,|$)/.test(tokens) : !/(^|,)\s*close\s*(,|$)/.test(tokens);
  return { method, url, headers, keepAlive, bodyBytes };
}

/**
 * Names seen as they are spelt (a client spells its headers the same way on every request) and
 * their lower case: found here, a name skips its check. At most NAMES_KEPT: a client sending
 * names of its own invention only ever gets them checked.
 */
const NAMES_KEPT = 512;
const knownNames = new Map<string, string>();

/** The header name in lower case, or null when it is not a token. */
function fieldName(raw: string): string | null {
  const known = knownNames.get(raw);
  if (known !== undefined) return known;
  if (!TOKEN.test(raw)) return null;
  const lower = raw.toLowerCase();
  if (knownNames.size < NAMES_KEPT) knownNames.set(raw, lower);
  return lower;
}

/** The field's value from `from` on without the optional whitespace around it (SP and HTAB only: RFC 9110 section 5.5). */
function trimmed(field: string, from: number): string {
  let start = from;
  let end = field.length;
  while (start < end && (field.charCodeAt(start) === 32 || field.charCodeAt(start) === 9)) start++;
  while (end > start && (field.charCodeAt(end - 1) === 32 || field.charCodeAt(end - 1) === 9)) end--;
  return field.slice(start, end);
}

let dateSecond = -1;
let dateLine = '';
/** The Date header's line, made once a second. */
function dateHeader(): string {
  const now = Date.now();
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

  constructor(head: Head, readonly socket: Socket) {
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
    if (!Number.isInteger(status) || status < 200 || status > 999) throw new RangeError(`Invalid status code: ${status}`);
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
    text += this.keepAlive && !this.connection.serverClosing ? this.connection.lane.keepAliveLines : this.connection.lane.closeLines;
    const payload = bodyless || body === undefined ? null : body;
    // a HEAD states the length a GET would have only when the handler said it
    if (!hasLength && !bodyless) text += `content-length: ${payload === null ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length}\r\n`;
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

class LaneConnection {
  private readonly queue: LaneResponse[] = [];
  private pending: Buffer | null = null;
  private pendingSince = 0;
  /** The bytes from the first request node:http answers, waiting for the lane's answers before it. */
  private handover: Buffer | null = null;
  private reading = false;
  /** No request after the current ones: one asked for it (Connection: close, HTTP/1.0), or the server is closing. */
  private closeAfter = false;
  private done = false;

  constructor(
    readonly socket: Socket,
    readonly lane: EdgeLane,
  ) {}

  get closing(): boolean {
    return this.closeAfter || this.lane.closing;
  }

  get serverClosing(): boolean {
    return this.lane.closing;
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.pending === null && this.handover === null;
  }

  readonly onData = (chunk: Buffer): void => {
    if (this.done) return;
    if (this.handover) {
      this.handover = Buffer.concat([this.handover, chunk]);
      return;
    }
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    this.reading = true;
    let start = 0;
    try {
      while (start < buf.length && !this.closing) {
        const end = buf.indexOf(HEAD_END, start);
        if (end < 0 || end - start > MAX_HEAD_BYTES) {
          if (buf.length - start > MAX_HEAD_BYTES) return this.toNode(buf.subarray(start));
          this.keep(buf.subarray(start));
          break;
        }
        const head = readHead(buf.toString('latin1', start, end), this.lane.maxBodyBytes);
        if (!head) return this.toNode(buf.subarray(start));
        const bodyStart = end + 4;
        if (buf.length - bodyStart < head.bodyBytes) {
          this.keep(buf.subarray(start));
          break;
        }
        const req = new LaneRequest(head, this.socket);
        if (head.bodyBytes) req.body = buf.subarray(bodyStart, bodyStart + head.bodyBytes);
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
          return;
        }
        if (!served) {
          this.queue.splice(this.queue.indexOf(res), 1);
          return this.toNode(buf.subarray(start));
        }
        if (!head.keepAlive) this.closeAfter = true;
        this.pendingSince = 0;
        start = bodyStart + head.bodyBytes;
      }
    } finally {
      this.reading = false;
    }
    this.flush();
  };

  private keep(rest: Buffer): void {
    // a copy: the chunk it is part of may be large, and is otherwise garbage
    this.pending = Buffer.from(rest);
    const now = Date.now();
    if (this.pendingSince === 0) this.pendingSince = now;
    else if (now - this.pendingSince > this.lane.headersTimeoutMs) this.socket.destroy();
  }

  /** From `rest` on, node:http serves the connection (once the lane's answers due before it are out). */
  private toNode(rest: Buffer): void {
    this.handover = Buffer.from(rest);
    this.pending = null;
    this.socket.pause();
    this.flush();
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
    const socket = this.socket;
    if (this.queue.length && this.queue[0]!.out !== null && !socket.destroyed) {
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
    if (this.queue.length) return;
    if (this.closing) {
      this.finish();
      socket.end();
    } else if (this.handover) this.giveToNode();
  }

  private giveToNode(): void {
    const rest = this.handover!;
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

  readonly onTimeout = (): void => {
    this.socket.destroy();
  };

  /**
   * The client ended its side: as node:http does (its servers do not allow half-open connections),
   * the requests waiting are given up and the connection ends; a decision still running sees the
   * socket gone and gives back what it reserved.
   */
  readonly onEnd = (): void => {
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
  readonly maxBodyBytes: number;
  closing = false;

  constructor(
    readonly serve: (req: EdgeRequest, res: EdgeResponse) => boolean,
    readonly toNode: (socket: Socket) => void,
    readonly onError: (error: unknown) => void,
    readonly keepAliveMs: number,
    options: EdgeLaneOptions,
  ) {
    const fixed = Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    this.keepAliveLines = `connection: keep-alive\r\nkeep-alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n${fixed}`;
    this.closeLines = `connection: close\r\n${fixed}`;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 60_000;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
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
 * number of connections the lane holds now, for tests and metrics.
 */
export function installEdgeLane(server: Server, options: EdgeLaneOptions & { onError?: (error: unknown) => void }): { connections(): number } {
  const [nodeListener] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (!nodeListener) throw new Error('installEdgeLane: the server has no connection listener');
  server.removeListener('connection', nodeListener);
  const lane = new EdgeLane(options.serve, (socket) => nodeListener.call(server, socket), options.onError ?? (() => undefined), options.keepAliveMs, options);
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
  return { connections: () => lane.connections.size };
}
