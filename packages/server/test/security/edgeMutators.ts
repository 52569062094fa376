import { gzipSync } from 'node:zlib';
import { FNV1A_OFFSET, fnv1a, type SeededRandom } from '@adplane/shared';

/**
 * The edge fuzzer's mutations (edgeFuzzer.test.ts): a seeded random source, and structure-aware
 * changes to what a player, an exchange or Prebid.js sends (a JSON body, a query string, headers).
 * Everything here is deterministic for a seed, so a failing case can be sent again as it was.
 */

/** A case's own seed from the run's seed, the entry's name and the case's index (FNV-1a): replayable one by one. */
export function caseSeed(runSeed: number, entry: string, index: number): number {
  return fnv1a(`${entry}#${index}`, FNV1A_OFFSET ^ runSeed) >>> 0;
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

/** Strings that break naive readers: empty, blanks, numbers as text, unicode, control characters, markup, macros. */
const ODD_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1e308',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  'undefined',
  'ʼ𝕏 ünïcödé ✓',
  '\u0000nul',
  '\u0007\u001b[31m\r\n',
  '\ud800',
  '\u202eRTL',
  '\ufeffbom',
  '<script>alert(1)</script>',
  ']]><VAST>',
  '"\'&<>',
  '${AUCTION_PRICE}',
  '[TIMESTAMP]',
  '{{ip}}',
  '%s%n%x',
  '../../etc/passwd',
  'javascript:alert(1)',
  'https://evil.test/x?y=1',
  ...PROTOTYPE_KEYS,
];
const ODD_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  -1.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 53 + 1,
  -(2 ** 31),
  2 ** 32,
  1e21,
  0.1 + 0.2,
  99999999999,
];

/** A value of another JSON type, or an odd one of the same. */
export function oddValue(r: SeededRandom): unknown {
  switch (r.int(10)) {
    case 0:
      return null;
    case 1:
      return r.pick(ODD_NUMBERS);
    case 2:
      return r.pick(ODD_STRINGS);
    case 3:
      return r.chance(0.5);
    case 4:
      return r.pick([[], [null], [1, 'a', {}], ['x'], [[]], [-1]]);
    case 5:
      return r.pick([{}, { a: 1 }, { id: null }, JSON.parse('{"__proto__":{"polluted":1}}'), { length: 2, 0: 'x' }]);
    case 6:
      return longString(r);
    case 7:
      return `${r.pick(ODD_STRINGS)}${r.pick(ODD_STRINGS)}`;
    case 8:
      return String(r.pick(ODD_NUMBERS));
    default:
      return r.int(1000) - 500;
  }
}

export function longString(r: SeededRandom): string {
  const length = r.pick([300, 2_000, 20_000, 70_000]);
  const unit = r.pick(['x', 'é', '𝕏', '%', '<', '"', '\\', 'ab ']);
  return unit.repeat(Math.ceil(length / unit.length));
}

type Json = unknown;
type Path = (string | number)[];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Every node's path, the root's children first (a node's path is the keys from the root to it). */
function pathsOf(value: Json, limit = 2_000): Path[] {
  const out: Path[] = [];
  const walk = (v: Json, path: Path) => {
    if (out.length >= limit) return;
    if (Array.isArray(v))
      v.forEach((x, i) => {
        out.push([...path, i]);
        walk(x, [...path, i]);
      });
    else if (isObject(v))
      for (const k of Object.keys(v)) {
        out.push([...path, k]);
        walk(v[k], [...path, k]);
      }
  };
  walk(value, []);
  return out;
}

function parentOf(root: Json, path: Path): Record<string | number, unknown> | null {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return null;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node && typeof node === 'object' ? (node as Record<string | number, unknown>) : null;
}

function nested(r: SeededRandom): unknown {
  const depth = r.pick([64, 500, 3_000]);
  let v: unknown = r.chance(0.5) ? 1 : 'deep';
  for (let i = 0; i < depth; i++) v = r.chance(0.5) ? [v] : { a: v };
  return v;
}

/** One structural change to a copy of `value` (the root may be replaced); `what` says which, for the report. */
export function mutateJson(r: SeededRandom, value: Json): { value: Json; what: string } {
  const root = structuredClone(value) as Json;
  const paths = pathsOf(root);
  if (!paths.length || r.chance(0.03)) {
    const v = oddValue(r);
    return { value: v, what: `root = ${preview(v)}` };
  }
  // fields near the root are where readers check first: weigh them as much as the deep ones
  const path = r.chance(0.4)
    ? r.pick(paths.filter((p) => p.length <= 2).length ? paths.filter((p) => p.length <= 2) : paths)
    : r.pick(paths);
  const parent = parentOf(root, path);
  if (!parent) return { value: root, what: 'nothing' };
  const key = path[path.length - 1]!;
  const at = path.join('.');
  switch (r.int(12)) {
    case 9:
    case 10:
    case 11: {
      // the same JSON type with an extreme value: past the readers' type checks, into what reads the value
      const v = sameType(r, parent[key]);
      parent[key] = v;
      return { value: root, what: `${at} = ${preview(v)} (same type)` };
    }
    case 0:
    case 1:
    case 2: {
      const v = oddValue(r);
      parent[key] = v;
      return { value: root, what: `${at} = ${preview(v)}` };
    }
    case 3:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return { value: root, what: `delete ${at}` };
    case 4: {
      // the same element again (duplicate imp ids, deals, formats), or many copies
      const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : Array.isArray(parent) ? parent : null;
      if (!list || !list.length) break;
      const copies = r.pick([1, 1, 2, 150]);
      const item = list[r.int(list.length)];
      for (let i = 0; i < copies; i++) list.push(structuredClone(item));
      return { value: root, what: `duplicate an element of ${at} x${copies}` };
    }
    case 5:
      parent[key] = nested(r);
      return { value: root, what: `${at} = deeply nested` };
    case 6: {
      const target = isObject(parent[key])
        ? (parent[key] as Record<string, unknown>)
        : isObject(parent)
          ? parent
          : null;
      if (!target) break;
      const name = r.pick(PROTOTYPE_KEYS);
      // an own property named __proto__, as JSON.parse makes it (an assignment would set the prototype)
      Object.defineProperty(target, name, {
        value: r.chance(0.5) ? { polluted: 1, id: 'x', imp: [] } : oddValue(r),
        enumerable: true,
        configurable: true,
        writable: true,
      });
      return { value: root, what: `${at}.${name} added` };
    }
    case 7: {
      const v = parent[key];
      const swapped =
        typeof v === 'number'
          ? String(v)
          : typeof v === 'string' && v !== '' && !Number.isNaN(Number(v))
            ? Number(v)
            : typeof v === 'string'
              ? [v]
              : Array.isArray(v) && v.length
                ? v[0]
                : v;
      parent[key] = swapped;
      return { value: root, what: `${at} re-typed to ${preview(swapped)}` };
    }
    default: {
      const target = isObject(parent[key]) ? (parent[key] as Record<string, unknown>) : null;
      if (!target) break;
      const name = r.pick(['', ' ', 'ünï', 'x'.repeat(5_000), 'ext', 'id', 'imp', '0']);
      target[name] = oddValue(r);
      return { value: root, what: `${at}[${preview(name)}] added` };
    }
  }
  const v = oddValue(r);
  parent[key] = v;
  return { value: root, what: `${at} = ${preview(v)}` };
}

function sameType(r: SeededRandom, v: unknown): unknown {
  if (typeof v === 'number') return r.chance(0.3) ? v * r.pick([-1, 1000, 0.001, 1e6]) : r.pick(ODD_NUMBERS);
  if (typeof v === 'string')
    return r.chance(0.2) ? longString(r) : r.chance(0.5) ? r.pick(ODD_STRINGS) : `${v}${r.pick(ODD_STRINGS)}`;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v))
    return r.chance(0.5)
      ? []
      : Array.from({ length: r.pick([2, 30, 1_000]) }, (_, i) => (v.length ? structuredClone(v[i % v.length]) : i));
  if (isObject(v)) return r.chance(0.5) ? {} : Object.fromEntries(Object.keys(v).map((k) => [k, sameType(r, v[k])]));
  return oddValue(r);
}

export function preview(v: unknown): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}... (${s.length} chars)` : s;
}

/** What goes on the wire: the body's bytes and the headers that describe them. */
export interface WireBody {
  body: Buffer;
  headers: Record<string, string>;
  /** What changed about the body as sent, '' for plain JSON. */
  what: string;
  /** Query parameters to add (Prebid.js's `gzip=1`). */
  query?: string;
}

/**
 * The body as sent: usually plain JSON, sometimes a wrong content type, truncated, gzipped (right or
 * wrong), an unsupported encoding, JSON with bytes it may not hold, empty or over the size limit.
 */
export function wireBody(r: SeededRandom, value: unknown, options: { gzipQuery?: boolean; mutate: boolean }): WireBody {
  const text = value === undefined ? '' : JSON.stringify(value);
  const plain = (what = ''): WireBody => ({
    body: Buffer.from(text),
    headers: { 'content-type': 'application/json' },
    what,
  });
  if (!options.mutate || r.chance(0.7)) return plain();
  switch (r.int(12)) {
    case 0:
      return {
        ...plain(),
        headers: {
          'content-type': r.pick([
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'image/gif',
            '',
          ]),
        },
        what: 'content type',
      };
    case 1: {
      const cut = r.int(Math.max(1, text.length));
      return {
        body: Buffer.from(text.slice(0, cut)),
        headers: { 'content-type': 'application/json' },
        what: `truncated at ${cut}`,
      };
    }
    case 2:
      return {
        body: gzipSync(text),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        what: 'gzip',
      };
    case 3: {
      const gz = gzipSync(text);
      return {
        body: gz.subarray(0, Math.max(1, r.int(gz.length))),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        what: 'truncated gzip',
      };
    }
    case 4:
      return {
        ...plain(),
        headers: {
          'content-type': 'application/json',
          'content-encoding': r.pick(['br', 'deflate', 'gzip, gzip', 'identity', 'GZIP', 'x-gzip', 'compress']),
        },
        what: 'content encoding',
      };
    case 5:
      return { body: Buffer.from(''), headers: { 'content-type': 'application/json' }, what: 'empty body' };
    case 6: {
      const garbage = r.pick(['\ufeff', '\u0000', 'NaN', ']', ',', '/*x*/']);
      const at = r.chance(0.5) ? 0 : text.length;
      const sent = at ? `${text}${garbage}` : `${garbage}${text}`;
      return {
        body: Buffer.from(sent),
        headers: { 'content-type': 'application/json' },
        what: `bytes ${preview(garbage)} around it`,
      };
    }
    case 7:
      // latin1 bytes, not UTF-8
      return {
        body: Buffer.concat([
          Buffer.from(text.slice(0, -1)),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(text.slice(-1)),
        ]),
        headers: { 'content-type': 'application/json' },
        what: 'invalid UTF-8',
      };
    case 8:
      if (options.gzipQuery)
        return {
          body: gzipSync(text),
          headers: { 'content-type': 'text/plain' },
          what: 'gzip=1 in the query',
          query: 'gzip=1',
        };
      return { body: Buffer.from(text), headers: { 'content-type': 'text/plain' }, what: 'text/plain' };
    case 9:
      if (r.chance(0.3)) {
        // over 256 KB, plain or as a gzip bomb
        const big = `{"id":"big","pad":"${'x'.repeat(300 * 1024)}"}`;
        return r.chance(0.5)
          ? { body: Buffer.from(big), headers: { 'content-type': 'application/json' }, what: 'over the size limit' }
          : {
              body: gzipSync(big),
              headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
              what: 'gzip that inflates past the size limit',
            };
      }
      return plain();
    case 10: {
      // the same key twice: the last one wins for JSON.parse, as on the server
      const sent = text.startsWith('{') && text.length > 2 ? `{"id":"first",${text.slice(1)}` : text;
      return { body: Buffer.from(sent), headers: { 'content-type': 'application/json' }, what: 'a key twice' };
    }
    default:
      return { body: Buffer.from(text), headers: {}, what: 'no content type' };
  }
}

/** A query as pairs, some of them raw (sent as written, not percent-encoded). */
export type QueryPair = [name: string, value: string, raw?: boolean];

const PERCENT_GARBAGE = [
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%C0%AF',
  '%FF%FE',
  '+',
  '%2',
  '%u0041',
  '%25%32%35',
  '&&',
  '=',
  '==x',
  '%0d%0aX-Injected:%201',
  '%ED%A0%80',
];

/** One change to a query: an odd value, a name removed, a name repeated, prototype names, percent garbage, a huge query. */
export function mutateQuery(r: SeededRandom, pairs: QueryPair[]): { pairs: QueryPair[]; what: string } {
  const out = pairs.map((p) => [...p] as QueryPair);
  const i = out.length ? r.int(out.length) : -1;
  switch (r.int(8)) {
    case 0:
    case 1: {
      if (i < 0) break;
      const v = r.chance(0.2) ? longString(r).slice(0, 6_000) : String(oddValue(r) ?? '');
      out[i] = [out[i]![0], v];
      return { pairs: out, what: `${out[i]![0]}=${preview(out[i]![1])}` };
    }
    case 2:
      if (i < 0) break;
      out.splice(i, 1);
      return { pairs: out, what: `without ${pairs[i]![0]}` };
    case 3:
      if (i < 0) break;
      out.splice(r.int(out.length + 1), 0, [out[i]![0], String(oddValue(r) ?? '')]);
      return { pairs: out, what: `${out[i]![0]} repeated` };
    case 4: {
      const name = r.pick(PROTOTYPE_KEYS);
      out.push([r.chance(0.5) ? name : `${name}[x]`, r.pick(['1', '', name, '{}'])]);
      return { pairs: out, what: `${name} as a parameter` };
    }
    case 5: {
      const garbage = r.pick(PERCENT_GARBAGE);
      if (i >= 0 && r.chance(0.7)) {
        out[i] = [out[i]![0], garbage, true];
        return { pairs: out, what: `${out[i]![0]}=${garbage} (raw)` };
      }
      out.push([garbage, garbage, true]);
      return { pairs: out, what: `${garbage}=${garbage} (raw)` };
    }
    case 6: {
      const size = r.pick([4_000, 8_000, 12_000, 20_000]);
      out.push(['pad', 'p'.repeat(size)]);
      return { pairs: out, what: `a ${size}-character parameter` };
    }
    default: {
      const many = r.pick([50, 500]);
      for (let k = 0; k < many; k++) out.push([`k${k}`, String(k)]);
      return { pairs: out, what: `${many} more parameters` };
    }
  }
  out.push(['x', String(oddValue(r) ?? '')]);
  return { pairs: out, what: 'x added' };
}

/** encodeURIComponent that takes a lone surrogate (as U+FFFD, as a browser sends it). */
export const encode = (s: string): string =>
  encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

export function queryString(pairs: QueryPair[]): string {
  return pairs.map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encode(k)}=${encode(v)}`)).join('&');
}

/** Header values a client can send (latin1, no CR/LF): odd cookies, origins, device addresses, agents. */
export function oddHeaders(r: SeededRandom): { headers: Record<string, string>; what: string } {
  const latin1 = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
  switch (r.int(7)) {
    case 0: {
      const uids = r.pick([
        'uids=',
        'uids=%%%',
        `uids=${Buffer.from('{"tempUIDs":{"adplane":{"uid":null}}}').toString('base64url')}`,
        `uids=${Buffer.from('{"tempUIDs":[],"optout":"yes"}').toString('base64url')}`,
        `uids=${Buffer.from('{"__proto__":{"optout":true}}').toString('base64url')}`,
        `uids=${'A'.repeat(8_000)}`,
        `uids=${Buffer.from('{"tempUIDs":{"adplane":{"uid":"x","expires":"garbage"}}}').toString('base64url')}`,
        'uids=1; uids=2',
      ]);
      return { headers: { cookie: uids }, what: `cookie ${preview(uids)}` };
    }
    case 1: {
      const origin = r.pick([
        'null',
        'https://news.example.com',
        'https://é.test',
        '*',
        'https://a.test, https://b.test',
        'x'.repeat(3_000),
      ]);
      return { headers: { origin: latin1(origin) }, what: `origin ${preview(origin)}` };
    }
    case 2: {
      const ip = r.pick([
        '999.1.1.1',
        '::ffff:8.8.8.8',
        'fe80::1%eth0',
        '8.8.8.8, 1.1.1.1',
        '',
        'localhost',
        '2001:db8::1',
        '1.2.3',
      ]);
      return { headers: { 'x-device-ip': ip, 'x-forwarded-for': ip }, what: `device ip ${preview(ip)}` };
    }
    case 3: {
      const ua = r.pick([
        '',
        'Googlebot/2.1',
        'x'.repeat(10_000),
        'Mozilla/5.0 (Linux; Android 99; ÿ) Roku/DVP-99',
        '\t',
      ]);
      return { headers: { 'user-agent': ua, 'x-device-user-agent': ua }, what: `user agent ${preview(ua)}` };
    }
    case 4:
      return {
        headers: { 'accept-encoding': r.pick(['gzip', 'gzip;q=0', 'br, gzip, deflate', '*', 'identity']) },
        what: 'accept-encoding',
      };
    case 5:
      return {
        headers: {
          referer: latin1(
            r.pick(['https://news.example.com/a?b=c', 'not a url', `https://x.test/${'p'.repeat(4_000)}`]),
          ),
        },
        what: 'referer',
      };
    default:
      return {
        headers: {
          'sec-fetch-site': r.pick(['cross-site', 'same-origin', 'none', '']),
          'access-control-request-headers': r.pick(['x-a, x-b', '', 'x-\u00e9', 'content-type']),
        },
        what: 'fetch metadata',
      };
  }
}
