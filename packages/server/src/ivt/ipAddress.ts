/**
 * IPv4 and IPv6 text read into numbers without allocating, for a check that runs on every ad
 * request. `parseIp` writes into one module-level scratch (`ip`) and answers the family; callers
 * read the scratch before the next parse (the edge is single-threaded per process, so that is safe).
 * IPv6 is matched by its top 64 bits (`hi`, `lo`: two unsigned 32-bit halves): hosting ranges are
 * allocated in /64 or larger blocks, and this keeps lookups free of BigInt.
 */
export const INVALID = 0;
export const IPV4 = 4;
export const IPV6 = 6;
export type IpFamily = typeof INVALID | typeof IPV4 | typeof IPV6;

export interface ParsedIp {
  /** IPv4 (also an IPv4-mapped IPv6 address) as an unsigned 32-bit number. */
  v4: number;
  /** IPv6: the eight 16-bit groups; `hi`/`lo` are groups 0-1 and 2-3 as unsigned 32-bit numbers. */
  words: Uint16Array;
  hi: number;
  lo: number;
}

export const ip: ParsedIp = { v4: 0, words: new Uint16Array(8), hi: 0, lo: 0 };

/** Strict dotted quad between `from` and `to`: four decimal parts 0..255 without leading zeros. */
function parseV4(s: string, from: number, to: number): boolean {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return false; // leading zero ("01"): octal in some parsers
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return false;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return false;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else return false;
  }
  if (dots !== 3 || digits === 0) return false;
  ip.v4 = (value * 256 + part) >>> 0;
  return true;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** IPv6 text between `from` and `to` (a zone id after `%` ignored). */
function parseV6(s: string, from: number, n: number): IpFamily {
  const w = ip.words;
  let g = 0;
  let gap = -1;
  let i = from;
  if (s.charCodeAt(from) === 58) {
    if (s.charCodeAt(from + 1) !== 58) return INVALID;
    gap = 0;
    i = from + 2;
  }
  // (a zone id may follow '::' directly: fe80::%eth0)
  while (i < n && s.charCodeAt(i) !== 37) {
    const start = i;
    let value = 0;
    let h = 0;
    while (i < n && (h = hexValue(s.charCodeAt(i))) >= 0) {
      value = value * 16 + h;
      i++;
    }
    if (i < n && s.charCodeAt(i) === 46) {
      // an embedded IPv4 tail (::ffff:1.2.3.4) takes the last two groups
      let end = s.indexOf('%', start);
      if (end < 0 || end > n) end = n;
      if (g > 6 || !parseV4(s, start, end)) return INVALID;
      w[g++] = ip.v4 >>> 16;
      w[g++] = ip.v4 & 0xffff;
      i = n;
      break;
    }
    if (i === start || i - start > 4 || g >= 8) return INVALID;
    w[g++] = value;
    if (i === n) break;
    const c = s.charCodeAt(i);
    if (c === 37) break; // %zone: the address is what came before
    if (c !== 58) return INVALID;
    i++;
    if (i < n && s.charCodeAt(i) === 58) {
      if (gap >= 0) return INVALID;
      gap = g;
      i++;
    } else if (i === n || s.charCodeAt(i) === 37) return INVALID;
  }
  if (gap < 0) {
    if (g !== 8) return INVALID;
  } else {
    if (g > 7) return INVALID;
    const tail = g - gap;
    for (let k = 0; k < tail; k++) w[7 - k] = w[g - 1 - k]!;
    for (let k = gap; k < 8 - tail; k++) w[k] = 0;
  }
  // IPv4-mapped (::ffff:a.b.c.d): the viewer is an IPv4 address
  if (w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0xffff) {
    ip.v4 = ((w[6]! << 16) | w[7]!) >>> 0;
    return IPV4;
  }
  ip.hi = ((w[0]! << 16) | w[1]!) >>> 0;
  ip.lo = ((w[2]! << 16) | w[3]!) >>> 0;
  return IPV6;
}

/** The family of `s` (IPV4, IPV6 or INVALID), its value left in `ip`. */
export function parseIp(s: string): IpFamily {
  const n = s.length;
  if (n < 2 || n > 64) return INVALID;
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) === 58) return parseV6(s, 0, n);
  return parseV4(s, 0, n) ? IPV4 : INVALID;
}

/** `:` and a port number (1-5 digits, at most 65535) from `at` to the end of `s`. */
function isPortAt(s: string, at: number, n: number): boolean {
  if (s.charCodeAt(at) !== 58 || n - at < 2 || n - at > 6) return false;
  let port = 0;
  for (let i = at + 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    port = port * 10 + (c - 48);
  }
  return port <= 65535;
}

/** A stated address longer than this is not read (a list of a few addresses fits). */
const MAX_STATED = 256;

/**
 * The address a request states, as text: `s` itself when plain; without the transport spellings a
 * server stack or proxy leaves on a real address: a port (`73.162.18.44:51234`, as Azure's
 * Application Gateway writes X-Forwarded-For and Go's `RemoteAddr` reads) and brackets
 * (`[2601:600::1]`, `[2601:600::1]:443`); the first of a list (`73.162.18.44, 10.0.0.1`: an
 * X-Forwarded-For value put in the IP macro as it came, whose leftmost entry is the viewer). ''
 * when it is none of these. Only the spellings other than a plain address allocate.
 */
export function addressText(stated: string): string {
  let s = stated;
  if (s.length > MAX_STATED) return '';
  const comma = s.indexOf(',');
  if (comma >= 0) s = s.slice(0, comma).trim();
  const n = s.length;
  if (n < 2 || n > 64) return '';
  if (s.charCodeAt(0) === 91) {
    // [IPv6] or [IPv6]:port
    const close = s.indexOf(']');
    if (close < 3 || (close !== n - 1 && !isPortAt(s, close + 1, n))) return '';
    const inner = s.slice(1, close);
    return inner.includes(':') ? inner : ''; // brackets hold IPv6 only
  }
  let colons = 0;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (s.charCodeAt(i) === 58) {
      colons++;
      last = i;
    }
  }
  // one colon is never IPv6 (it has two at least): an IPv4 address and its port
  if (colons === 1) return isPortAt(s, last, n) ? s.slice(0, last) : '';
  return s;
}

/** A viewer's address as requests state it (`addressText`), judged as `parseIp` reads it. */
export function parseViewerIp(s: string): IpFamily {
  const address = addressText(s);
  return address === '' ? INVALID : parseIp(address);
}

/**
 * IPv4 space no viewer can have: "this network" 0/8, private 10/8, 172.16/12 and 192.168/16,
 * carrier-grade NAT 100.64/10 (shared, never a public address), loopback 127/8, link-local
 * 169.254/16, IETF 192.0.0/24, documentation 192.0.2/24, 198.51.100/24 and 203.0.113/24,
 * benchmarking 198.18/15, multicast 224/4, reserved 240/4 and broadcast. A switch on the first
 * octet: this runs on every request.
 */
export function isReservedV4(v4: number): boolean {
  const a = v4 >>> 24;
  switch (a) {
    case 0:
    case 10:
    case 127:
      return true;
    case 100:
      return v4 >>> 22 === 0x191; // 100.64/10
    case 169:
      return v4 >>> 16 === 0xa9fe; // 169.254/16
    case 172:
      return v4 >>> 20 === 0xac1; // 172.16/12
    case 192:
      return v4 >>> 8 === 0xc00000 || v4 >>> 8 === 0xc00002 || v4 >>> 16 === 0xc0a8;
    case 198:
      return v4 >>> 17 === 0x6309 || v4 >>> 8 === 0xc63364; // 198.18/15, 198.51.100/24
    case 203:
      return v4 >>> 8 === 0xcb0071; // 203.0.113/24
    default:
      return a >= 224;
  }
}

/** Of the address last parsed as IPv6: unspecified, loopback, unique-local, link-local, multicast, documentation, discard. */
export function isReservedV6(): boolean {
  const w = ip.words;
  const first = w[0]!;
  if (first === 0) {
    // the unspecified address and loopback (IPv4-mapped addresses were read as IPv4 by parseIp)
    return w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0 && w[6] === 0 && w[7]! <= 1;
  }
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (first === 0x2001 && w[1] === 0x0db8) return true; // 2001:db8::/32 documentation
  if (first === 0x0100 && w[1] === 0 && w[2] === 0 && w[3] === 0) return true; // 100::/64 discard
  return false;
}

/**
 * Of the address last parsed as IPv6: no viewer's. What `isReservedV6` says, and also every address
 * outside global unicast 2000::/3 (the rest of IPv6 is reserved by the IETF or has the special uses
 * above: no ISP hands it out) except NAT64's well-known prefix 64:ff9b::/96 (globally reachable),
 * benchmarking 2001:2::/48 (as 198.18/15 is for IPv4) and the second documentation block 3fff::/20
 * (RFC 9637). Kept apart from `isReservedV6`, the reserved space the outbound guard refuses too
 * (http/outboundAddress.ts, on ipaddr.js; ipAddress.test.ts holds the two equal address by address).
 */
export function isNonViewerV6(): boolean {
  if (isReservedV6()) return true;
  const w = ip.words;
  const first = w[0]!;
  if ((first & 0xe000) !== 0x2000)
    return !(first === 0x0064 && w[1] === 0xff9b && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0);
  if (first === 0x2001 && w[1] === 0x0002 && w[2] === 0) return true; // 2001:2::/48 benchmarking
  return first === 0x3fff && (w[1]! & 0xf000) === 0; // 3fff::/20 documentation
}
