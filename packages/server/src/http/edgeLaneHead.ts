/**
 * The edge lane's reading of a request's head (http/edgeLane.ts): the strict subset of HTTP/1.1
 * (RFC 9112) it reads itself, everything else being node:http's. `readHead` reads a whole head;
 * `HeadScan` follows a head that comes in pieces, byte by byte, so that bytes no head of the lane's
 * can start with go to node:http at once (whose parser answers them as soon as it sees them, a 400
 * for a bare LF or a NUL), not after the head's end or the headers timeout; it reads each byte once,
 * however small the pieces.
 */

import { maxHeaderSize } from 'node:http';

/**
 * node:http's limit of a request's header block in this process (`--max-http-header-size`, 16 KB by
 * default); a server of its own `maxHeaderSize` has that instead (`headLimits`).
 */
export const MAX_HEAD_BYTES = maxHeaderSize;
export const DEFAULT_MAX_BODY = 512 * 1024;
/** node:http keeps a request's first 1000 header lines and drops the rest (its server's default `maxHeadersCount`). */
const NODE_MAX_HEADERS = 1000;

/** How much of a request the lane reads itself: larger ones are node:http's. */
export interface ReadLimits {
  /** The longest head, without its blank line: within node:http's limit, which counts a part of the same bytes. */
  maxHeadBytes: number;
  /** The most header lines: node:http's, beyond which it drops lines (0: no limit). */
  maxHeaders: number;
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: ReadLimits = {
  maxHeadBytes: MAX_HEAD_BYTES,
  maxHeaders: NODE_MAX_HEADERS,
  maxBodyBytes: DEFAULT_MAX_BODY,
};

/** The limits node:http reads a request of `server` with (its options, else the process's), and the lane's largest body. */
export function headLimits(
  server: { maxHeaderSize?: number | undefined; maxHeadersCount: number | null },
  maxBodyBytes = DEFAULT_MAX_BODY,
): ReadLimits {
  // node:http passes `server.maxHeaderSize || 0` to its parser, 0 being the process's limit
  const maxHeadBytes = server.maxHeaderSize || maxHeaderSize;
  // node:http keeps `maxHeadersCount << 1` names and values (none dropped when that is 0 or less)
  const pairs = typeof server.maxHeadersCount === 'number' ? server.maxHeadersCount << 1 : 2 * NODE_MAX_HEADERS;
  const maxHeaders = pairs > 0 ? Math.ceil(pairs / 2) : 0;
  return { maxHeadBytes, maxHeaders, maxBodyBytes };
}
const LANE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST']);
const METHOD_PREFIXES = new Set([...LANE_METHODS].flatMap((m) => [...m].map((_, i) => m.slice(0, i + 1))));
// RFC 9110 section 5.6.2 (token) and 5.5 (field values: visible characters, SP and HTAB, obs-text)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TARGET = /^\/[\x21-\x7e]*$/;
/**
 * A Content-Length field's value as llhttp reads it, whitespace included: SP or HTAB before the
 * digits, only SP after them (a trailing HTAB, or anything else, is its 400).
 */
const LENGTH_FIELD = /^[ \t]*\d{1,9} *$/;
const CONNECTION_VALUE = /^[0-9A-Za-z!#$%&'*+.^_`|~, \t-]*$/;
// node:http keeps the first of these when a request repeats them (IncomingMessage's rules)
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);
// handed to node:http: what the lane does not implement, `__proto__` (node's headers object drops
// it), and Proxy-Connection, which llhttp reads as a Connection header (its close ends keep-alive)
const NOT_IN_LANE = new Set(['transfer-encoding', 'expect', 'upgrade', '__proto__', 'proxy-connection']);

export interface Head {
  method: string;
  url: string;
  version: '1.0' | '1.1';
  headers: Record<string, string | string[]>;
  keepAlive: boolean;
  bodyBytes: number;
}

/**
 * The request's head, or null when the lane leaves it to node:http. `head` excludes the blank line.
 * The headers are node:http's `IncomingMessage.headers` of the same head, in an object without a
 * prototype, so that a header named like one of Object.prototype's (`constructor`, `toString`) is
 * read as its value alone, as node:http reads it (node's own object drops `__proto__`: the lane
 * leaves that name to node:http).
 */
export function readHead(head: string, limits: ReadLimits = DEFAULT_LIMITS): Head | null {
  let lineEnd = head.indexOf('\r\n');
  const line = lineEnd < 0 ? head : head.slice(0, lineEnd);
  const sp1 = line.indexOf(' ');
  const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
  if (sp2 < 0) return null;
  const method = line.slice(0, sp1);
  const url = line.slice(sp1 + 1, sp2);
  const version = line.slice(sp2 + 1);
  if (!LANE_METHODS.has(method) || !TARGET.test(url) || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) return null;
  const headers = Object.create(null) as Record<string, string | string[]>;
  let lines = 0;
  let connection = '';
  let contentLength: string | null = null;
  while (lineEnd >= 0) {
    const start = lineEnd + 2;
    lineEnd = head.indexOf('\r\n', start);
    const field = lineEnd < 0 ? head.slice(start) : head.slice(start, lineEnd);
    const colon = field.indexOf(':');
    if (colon <= 0) return null;
    if (++lines > limits.maxHeaders && limits.maxHeaders > 0) return null;
    const name = fieldName(field.slice(0, colon));
    if (name === null) return null;
    const value = trimmed(field, colon + 1);
    // a bare CR or LF fails here (they are not field characters), so does a NUL
    if (!FIELD_VALUE.test(value)) return null;
    if (NOT_IN_LANE.has(name)) return null;
    if (name === 'content-length') {
      // node:http refuses a repeated Content-Length, even one of the same value (400)
      if (contentLength !== null || !LENGTH_FIELD.test(field.slice(colon + 1))) return null;
      contentLength = value;
    } else if (name === 'connection') {
      // llhttp finds close and keep-alive among tokens split by commas and SP or HTAB only: a value
      // of other bytes (an NBSP before `close`) is node:http's to read
      if (!CONNECTION_VALUE.test(value)) return null;
      connection = connection ? `${connection},${value}` : value;
    }
    const had = headers[name];
    if (had === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (had as string[]).push(value);
    else if (!FIRST_WINS.has(name)) headers[name] = `${had as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  const http10 = version === 'HTTP/1.0';
  if (!http10 && headers.host === undefined) return null;
  let bodyBytes = 0;
  if (contentLength !== null) {
    bodyBytes = Number(contentLength);
    if (bodyBytes > limits.maxBodyBytes) return null;
  }
  if (method !== 'POST' && bodyBytes > 0) return null;
  const tokens = connection.toLowerCase();
  const keepAlive = http10
    ? /(^|,)[ \t]*keep-alive[ \t]*(,|$)/.test(tokens)
    : !/(^|,)[ \t]*close[ \t]*(,|$)/.test(tokens);
  return { method, url, version: http10 ? '1.0' : '1.1', headers, keepAlive, bodyBytes };
}

/**
 * Names seen as they are spelt (a client spells its headers the same way on every request) and
 * their lower case: found here, a name skips its check. At most NAMES_KEPT: a client sending
 * names of its own invention only ever gets them checked.
 */
const NAMES_KEPT = 512;
const knownNames = new Map<string, string>();

/** The header name in lower case, or null when it is not a token. */
export function fieldName(raw: string): string | null {
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

const CR = 13;
const LF = 10;
const SP = 32;
const HTAB = 9;
const COLON = 58;
const SLASH = 47;
const VERSION = 'HTTP/1.';
const TOKEN_BYTE = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TOKEN_BYTE[c.charCodeAt(0)] = 1;

/** `HeadScan.feed`: the head goes on past the bytes given. */
export const HEAD_GOES_ON = -1;
/** `HeadScan.feed`: the bytes are not the start of a head the lane reads (node:http's to answer). */
export const NOT_LANE = -2;

/**
 * A head that comes in pieces, read as it comes: the request line and each header line are held to
 * `readHead`'s rules byte by byte (a method of the lane's, an origin-form target of visible ASCII,
 * the version; a token name, a colon, a value of field characters, a Content-Length's as llhttp
 * reads it; CR only at the end of a whole line, LF only after CR), a repeated Content-Length and the
 * names the lane leaves to node:http as soon as their colon comes. What llhttp refuses in these
 * bytes the scan hands over at once, never holding bytes node:http would already have answered.
 * `readHead` still reads the whole head once it has come.
 */
export class HeadScan {
  private line = 0;
  /** Bytes of the current line so far. */
  private at = 0;
  /** The part of the line: the request line's method, target or version (0-2); a header's name or value (0-1). */
  private part = 0;
  private partAt = 0;
  private cr = false;
  private method = '';
  private name = '';
  /** A Content-Length's value, while its line is read: -1 none; 0 whitespace before it; 1-9 digits; 10 spaces after them. */
  private length = -1;
  private sawLength = false;

  /** Reads `buf` from `from` to `to`: the index just past the head's blank line, HEAD_GOES_ON or NOT_LANE. */
  feed(buf: Buffer, from: number, to: number): number {
    for (let i = from; i < to; i++) {
      const b = buf[i]!;
      if (this.cr) {
        if (b !== LF) return NOT_LANE;
        this.cr = false;
        if (this.at === 0 && this.line > 0) return i + 1;
        this.nextLine();
        continue;
      }
      if (b === CR) {
        // (a CR before the first request is one node:http skips: handed over)
        if (!(this.at === 0 && this.line > 0) && !this.lineComplete()) return NOT_LANE;
        this.cr = true;
        continue;
      }
      if (!(this.line === 0 ? this.requestLineByte(b) : this.fieldByte(b))) return NOT_LANE;
      this.at++;
    }
    return HEAD_GOES_ON;
  }

  private requestLineByte(b: number): boolean {
    if (this.part === 0) {
      if (b === SP) return this.nextPart(LANE_METHODS.has(this.method));
      this.method += String.fromCharCode(b);
      return METHOD_PREFIXES.has(this.method);
    }
    if (this.part === 1) {
      if (this.partAt === 0 && b !== SLASH) return false;
      if (b === SP) return this.nextPart(true);
      this.partAt++;
      return b > SP && b < 0x7f;
    }
    const at = this.partAt++;
    return at < VERSION.length ? b === VERSION.charCodeAt(at) : at === VERSION.length && (b === 0x30 || b === 0x31);
  }

  private fieldByte(b: number): boolean {
    if (this.part === 0) {
      if (b === COLON) {
        if (this.at === 0 || NOT_IN_LANE.has(this.name)) return false;
        if (this.name === 'content-length') {
          if (this.sawLength) return false;
          this.sawLength = true;
          this.length = 0;
        }
        return this.nextPart(true);
      }
      if (!TOKEN_BYTE[b]) return false;
      this.name += String.fromCharCode(b).toLowerCase();
      return true;
    }
    if (this.length >= 0) return this.lengthByte(b);
    return b === HTAB || (b >= SP && b !== 0x7f);
  }

  private lengthByte(b: number): boolean {
    const digit = b >= 0x30 && b <= 0x39;
    if (this.length === 0) {
      if (digit) this.length = 1;
      return digit || b === SP || b === HTAB;
    }
    if (this.length < 10 && digit) return ++this.length <= 9;
    if (b !== SP) return false;
    this.length = 10;
    return true;
  }

  private nextPart(ok: boolean): boolean {
    this.part++;
    this.partAt = 0;
    return ok;
  }

  private lineComplete(): boolean {
    return this.line === 0
      ? this.part === 2 && this.partAt === VERSION.length + 1
      : this.part === 1 && this.length !== 0;
  }

  private nextLine(): void {
    this.line++;
    this.at = 0;
    this.part = 0;
    this.partAt = 0;
    this.name = '';
    this.length = -1;
  }
}
