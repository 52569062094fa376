import { INVALID, IPV4, ip, parseIp } from './ipAddress.js';

/**
 * A set of address ranges built once from CIDR text and asked on every request: IPv4 as sorted,
 * merged [first, last] pairs of unsigned 32-bit numbers, IPv6 as the same over the top 64 bits of
 * an address (two 32-bit halves compared in order), each found by binary search. No allocation per
 * lookup; a prefix longer than /64 covers its whole /64.
 */
export class IpRangeSet {
  readonly v4First: Uint32Array;
  readonly v4Last: Uint32Array;
  readonly v6FirstHi: Uint32Array;
  readonly v6FirstLo: Uint32Array;
  readonly v6LastHi: Uint32Array;
  readonly v6LastLo: Uint32Array;

  constructor(v4: readonly (readonly [number, number])[], v6: readonly (readonly [number, number, number, number])[]) {
    const m4 = mergeV4(v4);
    this.v4First = Uint32Array.from(m4, (r) => r[0]);
    this.v4Last = Uint32Array.from(m4, (r) => r[1]);
    const m6 = mergeV6(v6);
    this.v6FirstHi = Uint32Array.from(m6, (r) => r[0]);
    this.v6FirstLo = Uint32Array.from(m6, (r) => r[1]);
    this.v6LastHi = Uint32Array.from(m6, (r) => r[2]);
    this.v6LastLo = Uint32Array.from(m6, (r) => r[3]);
  }

  get size(): { v4: number; v6: number } {
    return { v4: this.v4First.length, v6: this.v6FirstHi.length };
  }

  hasV4(v4: number): boolean {
    const first = this.v4First;
    let lo = 0;
    let hi = first.length - 1;
    // the last range starting at or before the address
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (first[mid]! <= v4) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && v4 <= this.v4Last[hi]!;
  }

  hasV6(aHi: number, aLo: number): boolean {
    const fHi = this.v6FirstHi;
    const fLo = this.v6FirstLo;
    let lo = 0;
    let hi = fHi.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const h = fHi[mid]!;
      if (h < aHi || (h === aHi && fLo[mid]! <= aLo)) lo = mid + 1;
      else hi = mid - 1;
    }
    if (hi < 0) return false;
    const lHi = this.v6LastHi[hi]!;
    return aHi < lHi || (aHi === lHi && aLo <= this.v6LastLo[hi]!);
  }

  /** Whether an address given as text is in the set (parses it: for tests and tools; the check uses hasV4/hasV6). */
  has(address: string): boolean {
    const family = parseIp(address);
    if (family === INVALID) return false;
    return family === IPV4 ? this.hasV4(ip.v4) : this.hasV6(ip.hi, ip.lo);
  }
}

function mergeV4(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [first, last] of sorted) {
    const prev = out[out.length - 1];
    if (prev && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last);
    else out.push([first, last]);
  }
  return out;
}

/** Order of two /64 numbers given as [hi, lo] unsigned 32-bit halves. */
const cmp6 = (aHi: number, aLo: number, bHi: number, bLo: number) => (aHi !== bHi ? aHi - bHi : aLo - bLo);

function mergeV6(ranges: readonly (readonly [number, number, number, number])[]): [number, number, number, number][] {
  const sorted = [...ranges].sort((a, b) => cmp6(a[0], a[1], b[0], b[1]));
  const out: [number, number, number, number][] = [];
  for (const r of sorted) {
    const prev = out[out.length - 1];
    // adjacent when prev.last + 1 === r.first
    const nextHi = prev ? (prev[3] === 0xffffffff ? prev[2] + 1 : prev[2]) : 0;
    const nextLo = prev ? (prev[3] === 0xffffffff ? 0 : prev[3] + 1) : 0;
    if (prev && (cmp6(r[0], r[1], nextHi, nextLo) <= 0 || (prev[2] === 0xffffffff && prev[3] === 0xffffffff))) {
      if (cmp6(r[2], r[3], prev[2], prev[3]) > 0) {
        prev[2] = r[2];
        prev[3] = r[3];
      }
    } else out.push([r[0], r[1], r[2], r[3]]);
  }
  return out;
}

interface CidrLineError {
  line: number;
  text: string;
}

/** What a ranges file holds: ranges to add, ranges exempted, and whether it replaces the shipped list. */
export interface RangeList {
  v4: [number, number][];
  v6: [number, number, number, number][];
  exemptV4: [number, number][];
  exemptV6: [number, number, number, number][];
  replace: boolean;
  errors: CidrLineError[];
}

export const emptyRangeList = (): RangeList => ({
  v4: [],
  v6: [],
  exemptV4: [],
  exemptV6: [],
  replace: false,
  errors: [],
});

/**
 * Reads CIDR text: one `address/length` (or a bare address) a line, `#` to the end of a line is a
 * comment, `!CIDR` exempts a range (an SSAI partner's servers, say) even when a listed range covers
 * it, and a line `@replace` drops the shipped list instead of extending it.
 */
export function readRangeList(text: string, into: RangeList = emptyRangeList()): RangeList {
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const hash = lines[n]!.indexOf('#');
    let line = (hash >= 0 ? lines[n]!.slice(0, hash) : lines[n]!).trim();
    if (!line) continue;
    if (line === '@replace') {
      into.replace = true;
      continue;
    }
    const exempt = line.startsWith('!');
    if (exempt) line = line.slice(1).trim();
    if (!addCidr(line, exempt ? into.exemptV4 : into.v4, exempt ? into.exemptV6 : into.v6))
      into.errors.push({ line: n + 1, text: lines[n]!.trim() });
  }
  return into;
}

function addCidr(cidr: string, v4: [number, number][], v6: [number, number, number, number][]): boolean {
  const slash = cidr.indexOf('/');
  const address = slash >= 0 ? cidr.slice(0, slash) : cidr;
  const family = parseIp(address);
  if (family === INVALID) return false;
  const max = family === IPV4 && !address.includes(':') ? 32 : 128;
  let len = max;
  if (slash >= 0) {
    const t = cidr.slice(slash + 1);
    if (!/^\d{1,3}$/.test(t)) return false;
    len = Number(t);
    if (len > max) return false;
  }
  if (family === IPV4) {
    // an IPv4-mapped IPv6 prefix (::ffff:a.b.c.d/104) counts its IPv4 part
    const bits = max === 128 ? len - 96 : len;
    if (bits < 0) return false;
    const size = 2 ** (32 - bits);
    const first = Math.floor(ip.v4 / size) * size;
    v4.push([first, first + size - 1]);
    return true;
  }
  const bits = Math.min(len, 64);
  const [fHi, fLo, lHi, lLo] = prefix64(ip.hi, ip.lo, bits);
  v6.push([fHi, fLo, lHi, lLo]);
  return true;
}

/** First and last /64 of a prefix of `bits` (0..64) over the 64-bit number hi:lo. */
function prefix64(hi: number, lo: number, bits: number): [number, number, number, number] {
  const maskHi = bits >= 32 ? 0xffffffff : bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const maskLo = bits <= 32 ? 0 : bits >= 64 ? 0xffffffff : (0xffffffff << (64 - bits)) >>> 0;
  const fHi = (hi & maskHi) >>> 0;
  const fLo = (lo & maskLo) >>> 0;
  return [fHi, fLo, (fHi | ~maskHi) >>> 0, (fLo | ~maskLo) >>> 0];
}

export function rangeSetOf(list: RangeList): { ranges: IpRangeSet; exempt: IpRangeSet } {
  return { ranges: new IpRangeSet(list.v4, list.v6), exempt: new IpRangeSet(list.exemptV4, list.exemptV6) };
}
