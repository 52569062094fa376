import { METHODS } from 'node:http';
import { createRequire } from 'node:module';
import { SeededRandom } from '@adplane/shared';
import { DEFAULT_LIMITS, type Head, type ReadLimits } from './edgeLaneHead.js';
import { LaneReader, SERVED, TO_NODE } from './edgeLaneReader.js';

/**
 * The edge lane's reading (http/edgeLaneReader.ts) held to llhttp's, node:http's parser, on
 * generated requests: what the lane takes itself must be what node:http reads from the same bytes
 * (method, target, version, headers as `IncomingMessage.headers` joins them, body, keep-alive), and
 * from the first byte it does not take, node:http must get every byte, in order. Used by
 * edgeLane.fuzz.test.ts and bench/edgeLaneFuzz.ts (a million inputs).
 *
 * llhttp runs in this process through node's own parser binding and node's own callbacks
 * (`_http_common`: the parser's header and method handling, `IncomingMessage`'s joining of
 * repeated headers), set up as node:http's server sets up a connection's parser: strict (no
 * leniency), the same header size limit and header count.
 */

// ---------------------------------------------------------------------------------------------
// seeded randomness

/** The seed of the `index`-th input of a run seeded `runSeed`. */
export function inputSeed(runSeed: number, index: number): number {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// the generator

/** The kinds of input the generator makes; every one of them may also be mutated. */
export const CASE_CLASSES = [
  'plain',
  'method',
  'target',
  'prototypeName',
  'duplicate',
  'contentLength',
  'transferEncoding',
  'obsFold',
  'lineEnd',
  'control',
  'oversized',
  'connection',
  'declined',
] as const;
export type CaseClass = (typeof CASE_CLASSES)[number];

export interface FuzzInput {
  seed: number;
  kind: CaseClass;
  mutated: boolean;
  bytes: Buffer;
  limits: ReadLimits;
}

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** Names node:http treats apart (first wins, joined with '; ', an array) and common ones. */
const KNOWN_NAMES = [
  'host',
  'user-agent',
  'referer',
  'authorization',
  'content-type',
  'content-length',
  'age',
  'etag',
  'from',
  'expires',
  'location',
  'max-forwards',
  'retry-after',
  'server',
  'last-modified',
  'if-modified-since',
  'if-unmodified-since',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-forwarded-for',
  'accept',
  'accept-encoding',
  'accept-language',
  'connection',
  'date',
  'vary',
  'origin',
  'cache-control',
  'if-none-match',
  'if-match',
  'x-forwarded-proto',
  'x-forwarded-host',
  'content-encoding',
  'keep-alive',
  'transfer-encoding',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'x-adplane-hop',
  'dnt',
];
const LANE_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST'];
const OTHER_METHODS = [
  ...METHODS,
  'get',
  'Get',
  'POS',
  'POSTT',
  'GETT',
  'G',
  'DESCRIBE',
  'ANNOUNCE',
  'SETUP',
  'PLAY',
  'PAUSE',
  'TEARDOWN',
  'RECORD',
  'FLUSH',
  'PRI',
  'QUERY',
  'FOO',
  'GET/',
  '',
];
const VISIBLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
const INTERESTING = [
  0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x23, 0x25, 0x2c, 0x3a, 0x3b, 0x3f, 0x5c, 0x7b, 0x7f, 0x80, 0xa0, 0xff, 0x0b,
  0x0c, 0x1f, 0x2f, 0x40,
];

function casing(rng: SeededRandom, name: string): string {
  const r = rng.int(4);
  if (r === 0) return name;
  if (r === 1) return name.toUpperCase();
  if (r === 2) return name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
  return [...name].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c)).join('');
}

function plainValue(rng: SeededRandom): string {
  const r = rng.int(8);
  if (r === 0) return '';
  if (r === 1) return ' spaced  value ';
  if (r === 2) return `\t${rng.int(1000)}\t`;
  if (r === 3) return 'caf\xe9 \x80\xff';
  if (r === 4) return `a=${rng.int(99)}; b=${rng.int(99)}`;
  if (r === 5) return 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36';
  if (r === 6) return `${rng.int(256)}.${rng.int(256)}.${rng.int(256)}.${rng.int(256)}`;
  return Array.from({ length: 1 + rng.int(12) }, () => rng.pick([...VISIBLE, ' '])).join('');
}

function plainTarget(rng: SeededRandom): string {
  const paths = ['/', '/vast/ch-1', '/ev', '/rtb/bid/s-1', '/openrtb2/auction', '/pb/key', '/e/a', '/a/b/c'];
  let target = rng.pick(paths);
  if (rng.chance(0.5)) target += `?w=${rng.int(2000)}&h=${rng.int(2000)}`;
  if (rng.chance(0.1)) target += '#frag';
  return target;
}

/** A target with bytes of every class: visible ASCII, SP, controls, DEL, beyond ASCII, and forms other than origin-form. */
function oddTarget(rng: SeededRandom): string {
  const r = rng.int(6);
  if (r === 0) return rng.pick(['*', 'http://x/a', 'x:80', '', '//a', '/%', '/%zz', '/a?b=c#d', '/\\', '/"<>{}|^`']);
  const byte =
    r === 1
      ? rng.int(256)
      : r === 2
        ? rng.int(0x21)
        : r === 3
          ? 0x7f + rng.int(0x81)
          : VISIBLE.charCodeAt(rng.int(VISIBLE.length));
  const base = plainTarget(rng);
  const at = 1 + rng.int(base.length);
  return base.slice(0, at) + String.fromCharCode(byte) + base.slice(at);
}

interface RequestParts {
  method: string;
  target: string;
  version: string;
  lines: string[];
  body: string;
}

function plainRequest(rng: SeededRandom): RequestParts {
  const method = rng.pick(LANE_METHODS);
  const lines: string[] = [];
  const version = rng.chance(0.85) ? 'HTTP/1.1' : 'HTTP/1.0';
  if (version === 'HTTP/1.1' || rng.chance(0.5))
    lines.push(`${casing(rng, 'host')}: ${rng.pick(['test', 'ads.example.com', 'a:8080', ''])}`);
  for (let n = rng.int(4); n > 0; n--)
    lines.push(`${casing(rng, rng.pick(KNOWN_NAMES.slice(0, 35)))}: ${plainValue(rng)}`);
  let body = '';
  if (method === 'POST' && rng.chance(0.8)) {
    body = rng.chance(0.2) ? '' : 'x'.repeat(rng.int(40)) + '{"id":"1"}';
    lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
  }
  return { method, target: plainTarget(rng), version, lines, body };
}

function serialize(parts: RequestParts): string {
  return `${parts.method} ${parts.target} ${parts.version}\r\n${parts.lines.map((l) => `${l}\r\n`).join('')}\r\n${parts.body}`;
}

function shuffleIn(rng: SeededRandom, lines: string[], line: string): void {
  lines.splice(rng.int(lines.length + 1), 0, line);
}

/** One request of the class `kind` (its line ends may be broken by the class itself). */
function requestOf(rng: SeededRandom, kind: CaseClass, limits: ReadLimits): string {
  const parts = plainRequest(rng);
  switch (kind) {
    case 'plain':
      break;
    case 'method':
      parts.method = rng.pick(OTHER_METHODS);
      break;
    case 'target':
      parts.target = oddTarget(rng);
      if (rng.chance(0.2))
        parts.version = rng.pick([
          'HTTP/1.2',
          'HTTP/2.0',
          'HTTP/0.9',
          'http/1.1',
          'HTTP/1',
          'HTTP/1.1 ',
          'HTTP/11',
          'HTTP/1.10',
          'ICE/1.0',
          'RTSP/1.0',
        ]);
      break;
    case 'prototypeName':
      for (let n = 1 + rng.int(3); n > 0; n--)
        shuffleIn(
          rng,
          parts.lines,
          `${casing(rng, rng.pick(PROTOTYPE_NAMES))}: ${rng.chance(0.5) ? 'evil' : plainValue(rng)}`,
        );
      break;
    case 'duplicate': {
      const name = rng.pick(KNOWN_NAMES.filter((n) => n !== 'content-length' && n !== 'transfer-encoding'));
      for (let n = 2 + rng.int(3); n > 0; n--) shuffleIn(rng, parts.lines, `${casing(rng, name)}: ${plainValue(rng)}`);
      break;
    }
    case 'contentLength': {
      parts.lines = parts.lines.filter((l) => !/^content-length:/i.test(l));
      if (rng.chance(0.5)) parts.method = rng.pick(LANE_METHODS);
      const n = parts.body.length;
      const values = [
        `${n}`,
        ` ${n} `,
        `0${n}`,
        `+${n}`,
        `-${n}`,
        `${n},${n}`,
        `${n}, ${n}`,
        '',
        ' ',
        `0x${n.toString(16)}`,
        `${n}.0`,
        '99999999999999999999',
        '1000000000',
        `${n + 1}`,
        `${Math.max(0, n - 1)}`,
        `${n}\xa0`,
        '0',
      ];
      for (let k = 1 + (rng.chance(0.4) ? 1 + rng.int(2) : 0); k > 0; k--)
        shuffleIn(rng, parts.lines, `${casing(rng, 'content-length')}: ${rng.pick(values)}`);
      if (rng.chance(0.2)) shuffleIn(rng, parts.lines, `Transfer-Encoding: chunked`);
      break;
    }
    case 'transferEncoding': {
      const te = rng.pick([
        'chunked',
        'gzip, chunked',
        'chunked, gzip',
        'identity',
        'chunked ',
        'Chunked',
        'gzip',
        '',
        'chunked\tx',
      ]);
      shuffleIn(rng, parts.lines, `${casing(rng, 'transfer-encoding')}: ${te}`);
      if (rng.chance(0.3)) shuffleIn(rng, parts.lines, `Transfer-Encoding: ${te}`);
      if (te.includes('chunked') && rng.chance(0.7))
        parts.body = rng.pick([
          '0\r\n\r\n',
          '3\r\nabc\r\n0\r\n\r\n',
          '3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n',
          '3\r\nab',
          'z\r\n',
        ]);
      break;
    }
    case 'obsFold':
      shuffleIn(rng, parts.lines, `${rng.pick([' ', '\t', '  '])}${rng.chance(0.5) ? 'folded' : ''}`);
      if (parts.lines.length < 2) parts.lines.unshift('X-A: a');
      break;
    case 'lineEnd': {
      const r = rng.int(6);
      const text = serialize(parts);
      const ends = [...text.matchAll(/\r\n/g)].map((m) => m.index);
      const at = ends.length ? rng.pick(ends) : 0;
      if (r === 0) return text.slice(0, at) + '\n' + text.slice(at + 2);
      if (r === 1) return text.slice(0, at) + '\r' + text.slice(at + 2);
      if (r === 2) return text.slice(0, at) + '\r\r\n' + text.slice(at + 2);
      if (r === 3) return rng.pick(['\r\n', '\n', '\r\n\r\n', '\r']) + text;
      if (r === 4) return text + rng.pick(['\r\n', '\n', '\r\n\r\n', '\r', ' ']);
      const line = rng.int(Math.max(1, parts.lines.length));
      parts.lines[line] = `${parts.lines[line] ?? 'X-A: a'}${rng.pick(['\rb', '\nb', '\r', ' \n'])}`;
      break;
    }
    case 'control': {
      const ctl = String.fromCharCode(rng.pick([0, 1, 8, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x09]));
      const line = rng.int(parts.lines.length + 1);
      const text = line === parts.lines.length ? 'X-Ctl: a' : parts.lines[line]!;
      const at = rng.int(text.length + 1);
      if (line === parts.lines.length) parts.lines.push(text.slice(0, at) + ctl + text.slice(at));
      else parts.lines[line] = text.slice(0, at) + ctl + text.slice(at);
      break;
    }
    case 'oversized': {
      const r = rng.int(3);
      const fixed = serialize({ ...parts, body: '' }).length;
      if (r < 2) {
        // one long value, its head within a few bytes of the limit either way
        const want = limits.maxHeadBytes - fixed - 'X-Big: \r\n'.length + rng.int(40) - 20 + 4;
        parts.lines.push(`X-Big: ${'v'.repeat(Math.max(0, want))}${r === 1 ? '   ' : ''}`);
      } else {
        // many short lines, around the header count kept
        const count = (limits.maxHeaders || 50) - parts.lines.length + rng.int(5) - 2;
        for (let k = 0; k < count; k++)
          parts.lines.push(
            `${casing(rng, rng.pick(['x-a', 'x-b', 'cookie', 'set-cookie', 'user-agent', 'constructor']))}: ${k}`,
          );
      }
      break;
    }
    case 'connection': {
      const value = rng.pick([
        'close',
        'keep-alive',
        'Keep-Alive',
        'CLOSE',
        'keep-alive, close',
        'close, keep-alive',
        'upgrade',
        'te, close',
        'closed',
        'keep-alive , close',
        ' close ',
        'x,close',
        'close,x',
        '',
        '\xa0close',
        'close\xa0',
        '\tkeep-alive',
        'keep-alive\x80',
        'close;q=1',
        ',close',
      ]);
      shuffleIn(rng, parts.lines, `${casing(rng, 'connection')}: ${value}`);
      if (rng.chance(0.3)) shuffleIn(rng, parts.lines, `Connection: ${rng.pick(['close', 'keep-alive'])}`);
      if (rng.chance(0.15))
        shuffleIn(
          rng,
          parts.lines,
          `${rng.pick(['Upgrade: websocket', 'Expect: 100-continue', 'Expect: x', 'Proxy-Connection: close', 'Keep-Alive: 5'])}`,
        );
      if (rng.chance(0.4)) parts.version = rng.pick(['HTTP/1.0', 'HTTP/1.1']);
      if (rng.chance(0.05)) parts.method = 'CONNECT';
      break;
    }
    case 'declined':
      // a request the lane reads and its handler leaves to node:http
      parts.target = `/node${parts.target}`;
      break;
  }
  return serialize(parts);
}

/** A mutation: a byte changed, inserted or deleted, the input cut short, or a slice repeated. */
function mutate(rng: SeededRandom, bytes: Buffer): Buffer {
  let out = Buffer.from(bytes);
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const at = rng.int(out.length + 1);
    const r = rng.int(6);
    const byte = rng.chance(0.6) ? rng.pick(INTERESTING) : rng.int(256);
    if (r === 0 && at < out.length) out[at] = rng.chance(0.5) ? byte : out[at]! ^ (1 << rng.int(8));
    else if (r === 1) out = Buffer.concat([out.subarray(0, at), Buffer.from([byte]), out.subarray(at)]);
    else if (r === 2 && at < out.length) out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + rng.int(3))]);
    else if (r === 3) out = out.subarray(0, at);
    else if (r === 4) {
      const from = rng.int(out.length + 1);
      const to = Math.min(out.length, from + 1 + rng.int(24));
      out = Buffer.concat([out.subarray(0, at), out.subarray(from, to), out.subarray(at)]);
    } else if (at < out.length) out[at] = rng.pick([...'\r\n :\t'].map((c) => c.charCodeAt(0)));
  }
  return out;
}

/** The input of `seed`: a pipeline of 1-4 requests, each of the input's class or plain, sometimes mutated. */
export function generate(seed: number): FuzzInput {
  const rng = new SeededRandom(seed);
  const kind = rng.pick(CASE_CLASSES);
  const limits: ReadLimits = { ...DEFAULT_LIMITS };
  if (kind === 'oversized' || rng.chance(0.05)) {
    // (node's default limit rarely: a head near it is 16 KB to read at every cut)
    limits.maxHeadBytes = rng.chance(0.05) ? DEFAULT_LIMITS.maxHeadBytes : rng.pick([64, 100, 256, 600, 1024, 4096]);
    limits.maxHeaders = rng.pick([0, 1, 3, 8, 40, DEFAULT_LIMITS.maxHeaders]);
  }
  if (rng.chance(0.05)) limits.maxBodyBytes = rng.int(64);
  const count = 1 + (rng.chance(0.5) ? rng.int(4) : 0);
  const texts: string[] = [];
  for (let i = 0; i < count; i++)
    texts.push(i === 0 || rng.chance(0.6) ? requestOf(rng, kind, limits) : requestOf(rng, 'plain', limits));
  // the pipeline in another order, or followed by a stray byte or an unfinished request
  if (count > 1 && rng.chance(0.3)) {
    if (rng.chance(0.5)) texts.reverse();
    else texts.push(rng.pick(['\r\n', 'X', 'GET / HTTP/1.1\r\n', '\0']));
  }
  let bytes: Buffer = Buffer.from(texts.join(''), 'latin1');
  const mutated = rng.chance(0.35);
  if (mutated) bytes = mutate(rng, bytes);
  return { seed, kind, mutated, bytes, limits };
}

// ---------------------------------------------------------------------------------------------
// the two readings

/** A request as read: by the lane, or by llhttp and IncomingMessage. */
export interface Reading {
  method: string;
  url: string;
  version: string;
  /** The headers' entries, in node:http's order (`Object.entries(req.headers)`). */
  headers: [string, string | string[]][];
  body: string;
  keepAlive: boolean;
}

/** What the lane does with an input cut into reads. */
export interface LaneOutcome {
  requests: Reading[];
  /** handover: node:http reads from `consumed` on; refused: bytes after a request that closed (node's 400); waiting: a request not all come; idle. */
  end: 'handover' | 'refused' | 'waiting' | 'idle';
  /** The bytes of the requests the lane took (at a hand-over: where node:http starts). */
  consumed: number;
  /** At a hand-over: the bytes node:http gets, as the lane gives them (what it held, then the later reads). */
  rest: Buffer | null;
}

function laneReading(head: Head, body: Buffer | null): Reading {
  return {
    method: head.method,
    url: head.url,
    version: head.version,
    headers: Object.entries(head.headers),
    body: body ? body.toString('latin1') : '',
    keepAlive: head.keepAlive,
  };
}

/**
 * The lane's reading of `chunks` (one read each) under `limits`, as a connection of the lane reads
 * them: every request served, except those the handler leaves to node:http (a target under `/node`).
 */
export function laneReads(chunks: Buffer[], limits: ReadLimits): LaneOutcome {
  const requests: Reading[] = [];
  let rest: Buffer[] | null = null;
  let refused = false;
  let waiting = false;
  let closeAfter = false;
  const host = {
    serve(head: Head, body: Buffer | null): number {
      waiting = false;
      if (head.url.startsWith('/node')) return TO_NODE;
      requests.push(laneReading(head, body));
      if (!head.keepAlive) closeAfter = true;
      return SERVED;
    },
    toNode(parts: Buffer[]): void {
      rest = parts.map((p) => Buffer.from(p));
    },
    waiting(): void {
      waiting = true;
    },
    get closing(): boolean {
      return closeAfter;
    },
    afterClose(): void {
      refused = true;
    },
  };
  const reader = new LaneReader(host, limits, { examined: 0 });
  for (const chunk of chunks) {
    if (refused) break;
    if (rest) (rest as Buffer[]).push(chunk);
    else reader.read(chunk);
  }
  const total = chunks.reduce((n, c) => n + c.length, 0);
  if (rest) {
    const joined = Buffer.concat(rest);
    return { requests, end: 'handover', consumed: total - joined.length, rest: joined };
  }
  return { requests, end: refused ? 'refused' : waiting ? 'waiting' : 'idle', consumed: -1, rest: null };
}

interface NodeParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error;
  [key: number]: unknown;
  _headers: string[];
  _url: string;
  maxHeaderPairs: number;
  socket: null;
  incoming: unknown;
  onIncoming: (incoming: NodeIncoming, keepAlive: boolean) => number;
}
interface NodeIncoming {
  method: string;
  url: string;
  httpVersion: string;
  upgrade: boolean;
  headers: Record<string, string | string[]>;
}
interface HttpCommon {
  HTTPParser: {
    new (): NodeParser;
    REQUEST: number;
    kOnMessageBegin: number;
    kOnHeaders: number;
    kOnHeadersComplete: number;
    kOnBody: number;
    kOnMessageComplete: number;
    kOnExecute: number;
  };
  parsers: { alloc(): NodeParser; free(parser: NodeParser): void };
}

/** node's parser binding and its callbacks (`_http_common`, which node:http's server uses; no deprecation warning, unlike `process.binding`). */
const { HTTPParser, parsers } = createRequire(import.meta.url)('_http_common') as HttpCommon;
const nodeCallbacks = (() => {
  const parser = parsers.alloc();
  const callbacks = {
    onHeaders: parser[HTTPParser.kOnHeaders],
    onHeadersComplete: parser[HTTPParser.kOnHeadersComplete],
  };
  parsers.free(parser);
  return callbacks;
})();

/** What llhttp reads of an input: the requests whole, how many it began, and its refusal (an error code), if any. */
export interface LlhttpOutcome {
  requests: Reading[];
  begun: number;
  /** The request of `requests` that stopped the parser (an upgrade, CONNECT), if any. */
  upgraded: boolean;
  error: string | null;
}

let parser: NodeParser | null = null;
let current: { out: LlhttpOutcome; body: Buffer[]; pending: Omit<Reading, 'body'> | null } | null = null;

function nodeParser(): NodeParser {
  if (parser) return parser;
  const p = new HTTPParser();
  p[HTTPParser.kOnHeaders] = nodeCallbacks.onHeaders;
  p[HTTPParser.kOnHeadersComplete] = nodeCallbacks.onHeadersComplete;
  p[HTTPParser.kOnMessageBegin] = () => {
    current!.out.begun++;
  };
  p[HTTPParser.kOnBody] = (b: Buffer) => {
    current!.body.push(Buffer.from(b));
  };
  p[HTTPParser.kOnMessageComplete] = () => {
    const c = current!;
    const p = c.pending;
    if (p)
      c.out.requests.push({
        method: p.method,
        url: p.url,
        version: p.version,
        headers: p.headers,
        body: Buffer.concat(c.body).toString('latin1'),
        keepAlive: p.keepAlive,
      });
    c.pending = null;
    c.body = [];
  };
  p[HTTPParser.kOnExecute] = () => undefined;
  p.socket = null;
  p.onIncoming = (incoming, keepAlive) => {
    const c = current!;
    c.pending = {
      method: incoming.method,
      url: incoming.url,
      version: incoming.httpVersion,
      headers: Object.entries(incoming.headers),
      keepAlive,
    };
    // node:http's server: an upgrade only with 'upgrade' listeners (adplane has none) or CONNECT, which stops the parser
    if (incoming.upgrade && incoming.method === 'CONNECT') {
      c.out.upgraded = true;
      return 2;
    }
    return 0;
  };
  parser = p;
  return p;
}

/** llhttp's reading of `chunks` (one `execute` each), as node:http's server sets up its parser with these limits. */
export function llhttpReads(chunks: Buffer[], limits: ReadLimits): LlhttpOutcome {
  const p = nodeParser();
  const out: LlhttpOutcome = { requests: [], begun: 0, upgraded: false, error: null };
  current = { out, body: [], pending: null };
  p.initialize(HTTPParser.REQUEST, {}, limits.maxHeadBytes, 0);
  p._headers = [];
  p._url = '';
  p.incoming = null;
  p.maxHeaderPairs = limits.maxHeaders * 2;
  try {
    for (const chunk of chunks) {
      const r = p.execute(chunk);
      if (r instanceof Error) {
        out.error = (r as Error & { code?: string }).code ?? r.message;
        break;
      }
      if (out.upgraded) break;
    }
  } finally {
    current = null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// the property

/** How an input is cut into reads: in two at every boundary up to `every` bytes, else at `sample` boundaries. */
export interface SplitPolicy {
  every: number;
  sample: number;
}

/**
 * The cuts of an input into reads: in two at every boundary of a short input (at a sample of a
 * long one's), one byte a read (up to 1 KB), and three random cuts into up to seven reads.
 */
export function splitsOf(rng: SeededRandom, length: number, policy: SplitPolicy): number[][] {
  const splits: number[][] = [];
  if (length <= policy.every) for (let k = 1; k < length; k++) splits.push([k]);
  else for (let k = 0; k < policy.sample; k++) splits.push([1 + rng.int(length - 1)]);
  if (length > 1 && length <= 1024) splits.push(Array.from({ length: length - 1 }, (_, i) => i + 1));
  for (let k = 0; k < 3 && length > 2; k++) {
    const cuts = new Set<number>();
    for (let c = 1 + rng.int(6); c > 0; c--) cuts.add(1 + rng.int(length - 1));
    splits.push([...cuts].sort((a, b) => a - b));
  }
  return splits;
}

export function cut(bytes: Buffer, at: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let from = 0;
  for (const k of at) {
    chunks.push(bytes.subarray(from, k));
    from = k;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A disagreement between the lane and llhttp, or between two splits of the lane. */
export interface Disagreement {
  seed: number;
  kind: CaseClass;
  mutated: boolean;
  /** The input, as a JSON string of its latin1 text. */
  bytes: string;
  split: number[];
  reason: string;
}

/** What a run checked: inputs by class, the cuts read, the requests the lane took, how its readings ended. */
export interface FuzzTally {
  inputs: number;
  mutated: number;
  bytes: number;
  cuts: number;
  laneRequests: number;
  llhttpRequests: number;
  byClass: Record<string, number>;
  byEnd: Record<LaneOutcome['end'], number>;
}

export function newTally(): FuzzTally {
  return {
    inputs: 0,
    mutated: 0,
    bytes: 0,
    cuts: 0,
    laneRequests: 0,
    llhttpRequests: 0,
    byClass: Object.fromEntries(CASE_CLASSES.map((k) => [k, 0])),
    byEnd: { handover: 0, refused: 0, waiting: 0, idle: 0 },
  };
}

/**
 * Checks one input: each request the lane takes (read whole) is llhttp's request of the same place,
 * read alike; where the lane stops, llhttp agrees (at a hand-over, the unread rest goes to node:http
 * whole and in order); and read in pieces (`policy`), the lane does exactly what it does whole.
 * Returns the first disagreement, or null.
 */
export function check(input: FuzzInput, policy: SplitPolicy, tally?: FuzzTally): Disagreement | null {
  const { bytes, limits } = input;
  const fail = (split: number[], reason: string): Disagreement => ({
    seed: input.seed,
    kind: input.kind,
    mutated: input.mutated,
    bytes: JSON.stringify(bytes.toString('latin1')),
    split,
    reason,
  });
  const whole = laneReads([bytes], limits);
  const node = llhttpReads([bytes], limits);
  const n = whole.requests.length;
  if (tally) {
    tally.inputs++;
    if (input.mutated) tally.mutated++;
    tally.bytes += bytes.length;
    tally.byClass[input.kind]!++;
    tally.byEnd[whole.end]++;
    tally.laneRequests += n;
    tally.llhttpRequests += node.requests.length;
  }
  for (let i = 0; i < n; i++) {
    const ours = whole.requests[i]!;
    const theirs = node.requests[i];
    if (!theirs)
      return fail(
        [],
        `the lane took request ${i}, llhttp read ${node.requests.length} (error ${node.error}): ${JSON.stringify(ours)}`,
      );
    if (!same(ours, theirs))
      return fail([], `request ${i}: the lane read ${JSON.stringify(ours)}, llhttp ${JSON.stringify(theirs)}`);
  }
  if (whole.end === 'handover') {
    if (!whole.rest!.equals(bytes.subarray(whole.consumed)))
      return fail([], `the hand-over at ${whole.consumed} is not the unread rest`);
    // the lane's requests end where llhttp's do: llhttp reads them from those bytes alone, whole and nothing begun after
    const prefix = llhttpReads([bytes.subarray(0, whole.consumed)], limits);
    if (prefix.error !== null || prefix.requests.length !== n || prefix.begun !== n) {
      return fail(
        [],
        `the lane took ${n} requests in ${whole.consumed} bytes, llhttp read ${prefix.requests.length} whole of ${prefix.begun} begun there (error ${prefix.error})`,
      );
    }
  } else if (whole.end === 'refused') {
    if (node.error !== 'HPE_CLOSED_CONNECTION' || node.requests.length !== n)
      return fail(
        [],
        `the lane refused bytes after a close, llhttp: ${node.error} after ${node.requests.length} requests`,
      );
  } else {
    // idle or waiting: every byte the lane's, so llhttp read every byte alike and refused none
    if (node.error !== null)
      return fail([], `the lane kept every byte (${whole.end}), llhttp refused them (${node.error})`);
    if (node.requests.length !== n || node.begun !== n + (whole.end === 'waiting' ? 1 : 0)) {
      return fail(
        [],
        `the lane took ${n} requests (${whole.end}), llhttp read ${node.requests.length} whole of ${node.begun} begun`,
      );
    }
  }
  const rng = new SeededRandom(input.seed ^ 0x5bd1e995);
  const expected = JSON.stringify({ ...whole, rest: undefined });
  for (const split of splitsOf(rng, bytes.length, policy)) {
    if (tally) tally.cuts++;
    const outcome = laneReads(cut(bytes, split), limits);
    const got = JSON.stringify({ ...outcome, rest: undefined });
    if (got !== expected) return fail(split, `read in pieces, the lane did otherwise: ${got} instead of ${expected}`);
    if (outcome.rest && !outcome.rest.equals(whole.rest!))
      return fail(split, 'read in pieces, the lane handed over other bytes');
  }
  return null;
}
