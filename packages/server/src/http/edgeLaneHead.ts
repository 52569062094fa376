/**
 * The edge lane's reading of a request's head (http/edgeLane.ts): the strict subset of HTTP/1.1
 * (RFC 9112) it reads itself, everything else being node:http's. `readHead` reads a whole head;
 * `HeadScan` follows a head that comes in pieces, byte by byte, so that bytes no head of the lane's
 * can start with go to node:http at once (whose parser answers them as soon as it sees them, a 400
 * for a bare LF or a NUL), not after the head's end or the headers timeout; it reads each byte once,
 * however small the pieces.
 */

/** node:http's default limit of a request's header block. */
export const MAX_HEAD_BYTES = 16 * 1024;
export const DEFAULT_MAX_BODY = 512 * 1024;
const LANE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST']);
const METHOD_PREFIXES = new Set([...LANE_METHODS].flatMap((m) => [...m].map((_, i) => m.slice(0, i + 1))));
// RFC 9110 section 5.6.2 (token) and 5.5 (field values: visible characters, SP and HTAB, obs-text)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TARGET = /^\/[\x21-\x7e]*$/;
const LENGTH = /^\d{1,9}$/;
// node:http keeps the first of these when a request repeats them (IncomingMessage's rules)
const FIRST_WINS = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent']);
// handed to node:http: what the lane does not implement
const NOT_IN_LANE = new Set(['transfer-encoding', 'expect', 'upgrade', '__proto__']);

export interface Head {
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
      // node:http refuses a repeated Content-Length, even one of the same value (400)
      if (contentLength !== null) return null;
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
    if (!LENGTH.test(contentLength)) return null;
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
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TOKEN_BYTE[c.charCodeAt(0)] = 1;

/** `HeadScan.feed`: the head goes on past the bytes given. */
export const HEAD_GOES_ON = -1;
/** `HeadScan.feed`: the bytes are not the start of a head the lane reads (node:http's to answer). */
export const NOT_LANE = -2;

/**
 * A head that comes in pieces, read as it comes: the request line and each header line are held to
 * `readHead`'s rules byte by byte (a method of the lane's, an origin-form target of visible ASCII,
 * the version; a token name, a colon, a value of field characters; CR only before LF), a repeated
 * Content-Length or one that is not a number, and the names the lane leaves to node:http, are
 * refused as soon as their line ends. `readHead` still reads the whole head once it has come.
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
  /** A Content-Length's value, while its line is read. */
  private length: string | null = null;
  private sawLength = false;

  /** Reads `buf` from `from` to `to`: the index just past the head's blank line, HEAD_GOES_ON or NOT_LANE. */
  feed(buf: Buffer, from: number, to: number): number {
    for (let i = from; i < to; i++) {
      const b = buf[i]!;
      if (this.cr) {
        if (b !== LF) return NOT_LANE;
        this.cr = false;
        if (this.at === 0 && this.line > 0) return i + 1;
        if (!this.lineEnds()) return NOT_LANE;
        continue;
      }
      if (b === CR) {
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
          this.length = '';
        }
        return this.nextPart(true);
      }
      if (!TOKEN_BYTE[b]) return false;
      this.name += String.fromCharCode(b).toLowerCase();
      return true;
    }
    if (this.length !== null) this.length += String.fromCharCode(b);
    return b === HTAB || (b >= SP && b !== 0x7f);
  }

  private nextPart(ok: boolean): boolean {
    this.part++;
    this.partAt = 0;
    return ok;
  }

  private lineEnds(): boolean {
    const complete = this.line === 0 ? this.part === 2 && this.partAt === VERSION.length + 1 : this.part === 1 && (this.length === null || LENGTH.test(this.length.trim()));
    this.line++;
    this.at = 0;
    this.part = 0;
    this.partAt = 0;
    this.name = '';
    this.length = null;
    return complete;
  }
}
