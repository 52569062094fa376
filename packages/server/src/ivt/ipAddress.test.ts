import { isIP } from 'node:net';
import { SeededRandom } from '@adplane/shared';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { addressRanges, inRanges, readAddress } from '../http/addressRanges.js';
import { isPublicAddress } from '../http/outboundAddress.js';
import {
  addressText,
  INVALID,
  IPV4,
  IPV6,
  ip,
  isNonViewerV6,
  isReservedV4,
  isReservedV6,
  parseIp,
  parseViewerIp,
} from './ipAddress.js';

const words = () => Array.from(ip.words);

describe('parseIp', () => {
  it('reads dotted quads to unsigned numbers', () => {
    expect(parseIp('0.0.0.0')).toBe(IPV4);
    expect(ip.v4).toBe(0);
    expect(parseIp('255.255.255.255')).toBe(IPV4);
    expect(ip.v4).toBe(0xffffffff);
    expect(parseIp('73.162.18.44')).toBe(IPV4);
    expect(ip.v4).toBe(((73 << 24) >>> 0) + (162 << 16) + (18 << 8) + 44);
  });

  it('reads IPv6 in every spelling, and IPv4-mapped addresses as IPv4', () => {
    expect(parseIp('2601:600:8a80:41::1b')).toBe(IPV6);
    expect(words()).toEqual([0x2601, 0x600, 0x8a80, 0x41, 0, 0, 0, 0x1b]);
    expect(ip.hi).toBe(0x26010600);
    expect(ip.lo).toBe(0x8a800041);
    expect(parseIp('::')).toBe(IPV6);
    expect(words()).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIp('1::')).toBe(IPV6);
    expect(words()).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIp('FE80::1%eth0')).toBe(IPV6);
    expect(words()).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIp('2001:db8:0:0:1:0:0:1')).toBe(IPV6);
    expect(words()).toEqual([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]);
    expect(parseIp('64:ff9b::192.0.2.33')).toBe(IPV6);
    expect(words()).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0xc000, 0x0221]);
    expect(parseIp('::ffff:73.162.18.44')).toBe(IPV4);
    expect(ip.v4).toBe(((73 << 24) >>> 0) + (162 << 16) + (18 << 8) + 44);
    expect(parseIp('::FFFF:4aa2:122c')).toBe(IPV4);
  });

  it('refuses what is not an address, as node:net does', () => {
    const bad = [
      '',
      '1',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.-4',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1..2.3',
      '1.2.3.',
      '01.2.3.4',
      '1.2.3.4:80',
      ':',
      ':::',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '12345::1',
      'g::1',
      ':1::',
      '1:',
      '1:2:3:4:5:6:7:8::',
      '::ffff:1.2.3',
      '::ffff:256.1.1.1',
      '1.2.3.4::',
      'unknown',
      'localhost',
      '{{ip}}',
      '::1::',
    ];
    for (const s of bad) {
      expect(parseIp(s), s).toBe(INVALID);
      expect(isIP(s), s).toBe(0);
    }
  });

  it('agrees with node:net on random addresses written every way', () => {
    const random = new SeededRandom(42);
    const next = () => random.next();
    for (let n = 0; n < 2_000; n++) {
      const w = Array.from({ length: 8 }, () => (next() < 0.3 ? 0 : Math.floor(next() * 0x10000)));
      const full = w.map((x) => x.toString(16)).join(':');
      // the longest run of zero groups compressed, as people and libraries write it
      let best = [-1, 0];
      for (let i = 0; i < 8; i++) {
        let j = i;
        while (j < 8 && w[j] === 0) j++;
        if (j - i > best[1]! && j - i > 1) best = [i, j - i];
        i = j;
      }
      const short =
        best[0]! < 0
          ? full
          : `${w
              .slice(0, best[0])
              .map((x) => x.toString(16))
              .join(':')}::${w
              .slice(best[0]! + best[1]!)
              .map((x) => x.toString(16))
              .join(':')}`;
      for (const s of [full, short, short.toUpperCase()]) {
        expect(isIP(s), s).toBe(6);
        const family = parseIp(s);
        if (w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff) {
          expect(family, s).toBe(IPV4);
          expect(ip.v4).toBe(((w[6]! << 16) | w[7]!) >>> 0);
        } else {
          expect(family, s).toBe(IPV6);
          expect(words(), s).toEqual(w);
        }
      }
      const v4 = Array.from({ length: 4 }, () => Math.floor(next() * 256));
      expect(parseIp(v4.join('.'))).toBe(IPV4);
      expect(ip.v4).toBe(((v4[0]! << 24) | (v4[1]! << 16) | (v4[2]! << 8) | v4[3]!) >>> 0);
    }
  });
});

describe('parseViewerIp', () => {
  it('reads what parseIp reads', () => {
    expect(parseViewerIp('73.162.18.44')).toBe(IPV4);
    expect(ip.v4).toBe(0x49a2122c);
    expect(parseViewerIp('2601:600:8a80:41::1b')).toBe(IPV6);
    expect(words()).toEqual([0x2601, 0x600, 0x8a80, 0x41, 0, 0, 0, 0x1b]);
    expect(parseViewerIp('::ffff:73.162.18.44')).toBe(IPV4);
    expect(parseViewerIp('fe80::1%eth0')).toBe(IPV6);
  });

  it('drops the port and brackets a proxy or server stack leaves on an address', () => {
    expect(parseViewerIp('73.162.18.44:8080')).toBe(IPV4);
    expect(ip.v4).toBe(0x49a2122c);
    expect(parseViewerIp('10.0.0.1:0')).toBe(IPV4);
    expect(ip.v4).toBe(0x0a000001);
    expect(parseViewerIp('[2601:600:8a80:41::1b]')).toBe(IPV6);
    expect(words()).toEqual([0x2601, 0x600, 0x8a80, 0x41, 0, 0, 0, 0x1b]);
    expect(parseViewerIp('[2601:600:8a80:41::1b]:443')).toBe(IPV6);
    expect(words()).toEqual([0x2601, 0x600, 0x8a80, 0x41, 0, 0, 0, 0x1b]);
    expect(parseViewerIp('[::ffff:73.162.18.44]:65535')).toBe(IPV4);
    expect(ip.v4).toBe(0x49a2122c);
    expect(parseViewerIp('[fe80::1%eth0]:80')).toBe(IPV6);
    expect(words()).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('reads the first address of a list (an X-Forwarded-For value put in the IP macro): its leftmost entry is the viewer', () => {
    expect(parseViewerIp('73.162.18.44, 10.0.0.1')).toBe(IPV4);
    expect(ip.v4).toBe(0x49a2122c);
    expect(parseViewerIp('10.0.0.1,73.162.18.44')).toBe(IPV4);
    expect(ip.v4).toBe(0x0a000001);
    expect(parseViewerIp('2601:600:8a80:41::1b, 73.162.18.44')).toBe(IPV6);
    expect(words()).toEqual([0x2601, 0x600, 0x8a80, 0x41, 0, 0, 0, 0x1b]);
    expect(parseViewerIp('73.162.18.44:51234, 10.0.0.1:80')).toBe(IPV4);
    expect(ip.v4).toBe(0x49a2122c);
    expect(addressText('73.162.18.44')).toBe('73.162.18.44');
    expect(addressText(' 73.162.18.44 ,10.0.0.1')).toBe('73.162.18.44');
    expect(addressText('[2601:600::1]:443')).toBe('2601:600::1');
  });

  it('refuses anything else, without throwing', () => {
    const bad = [
      '',
      ':',
      '[',
      '[]',
      '[]:80',
      '[::1',
      '[::1]80',
      '[::1]:',
      '[::1]:65536',
      '[::1]:12345678',
      '[73.162.18.44]',
      '73.162.18.44:',
      '73.162.18.44:99999',
      '73.162.18.44:8o',
      ':8080',
      '73.162.18:80',
      '73.162.18.44%eth0',
      ', 73.162.18.44',
      'unknown',
      'localhost:80',
      '{{ip}}',
      '2601:600::1:',
      '[2601:600::1]:443:1',
      '1.2.3.4:80:90',
      'x'.repeat(65),
      `73.162.18.44,${' '.repeat(256)}`,
    ];
    for (const s of bad) expect(parseViewerIp(s), s).toBe(INVALID);
  });
});

describe('reserved addresses', () => {
  const reserved = (s: string) => {
    const f = parseIp(s);
    if (f === INVALID) throw new Error(s);
    return f === IPV4 ? isReservedV4(ip.v4) : isReservedV6();
  };

  it('knows private, shared, loopback, link-local, documentation, multicast and reserved space', () => {
    for (const s of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '127.0.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '0.1.2.3',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(reserved(s), s).toBe(true);
    }
  });

  it('passes public addresses next to them', () => {
    for (const s of [
      '9.255.255.255',
      '11.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '73.162.18.44',
      '8.8.8.8',
      '223.255.255.255',
      '2601:600::1',
      '2001:4860::8888',
      '2001:db9::1',
      '::2',
      '::ffff:73.162.18.44',
    ]) {
      expect(reserved(s), s).toBe(false);
    }
  });

  it("knows IPv6 no viewer has: reserved, and outside global unicast 2000::/3 but NAT64's prefix", () => {
    const nonViewer = (s: string) => {
      expect(parseIp(s), s).toBe(IPV6);
      return isNonViewerV6();
    };
    for (const s of [
      '::',
      '::1',
      '::2',
      '::1.2.3.4',
      '1::',
      '1:2:3:4:5:6:7:8',
      '100::1',
      '64:ff9b:1::a00:1',
      '4000::1',
      'c000::1',
      'fec0::1',
      'fc00::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      '2001:2::1',
      '2001:2:0:ffff::1',
      '3fff::1',
      '3fff:fff:ffff::1',
    ]) {
      expect(nonViewer(s), s).toBe(true);
    }
    for (const s of [
      '2000::1',
      '2601:600::1',
      '2001:4860::8888',
      '2001:3::1',
      '2001:2:1::1',
      '2a00:1450::1',
      '3ffe:ffff::1',
      '3fff:1000::1',
      '64:ff9b::8.8.8.8',
    ]) {
      expect(nonViewer(s), s).toBe(false);
    }
    // isReservedV6 (the outbound guard's reserved space) is unchanged by it
    expect(reserved('::2')).toBe(false);
    expect(reserved('3fff::1')).toBe(false);
  });
});

/**
 * The fast parser and its range checks, address by address against ipaddr.js as the security
 * decisions read it (http/addressRanges.ts): generated addresses of both families in every spelling,
 * IPv4's odd spellings (which neither reads as an address), and near-misses made by breaking them.
 */
describe('against ipaddr.js', () => {
  const random = new SeededRandom(20261128);
  const hex = (n: number) => n.toString(16);
  const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  const V4_FIRST = [0, 10, 100, 127, 169, 172, 192, 198, 203, 223, 224, 240, 255];
  const V6_FIRST = [
    0, 0x64, 0x100, 0x2000, 0x2001, 0x2002, 0x3fff, 0x4000, 0xfc00, 0xfd00, 0xfe80, 0xfec0, 0xff00, 0xffff,
  ];
  const V6_SECOND = [0, 1, 2, 3, 0xdb8, 0xdb9, 0xec2, 0xff9b, 0xfff, 0x1000, 0xffff];

  /** An IPv4 value, often at the edge of a special range. */
  function v4Value(): number {
    const first = random.chance(0.6) ? random.pick(V4_FIRST) : random.int(256);
    const rest = random.pick([
      0,
      0xffffff,
      random.int(0x1000000),
      (random.int(256) << 16) | random.pick([0, 0xffff, random.int(0x10000)]),
    ]);
    return ((first << 24) | rest) >>> 0;
  }

  /** Eight IPv6 groups, often in or next to a special range, or an IPv4-carrying one. */
  function v6Words(): number[] {
    const w = Array.from({ length: 8 }, () =>
      random.chance(0.4) ? 0 : random.chance(0.2) ? 0xffff : random.int(0x10000),
    );
    if (random.chance(0.7)) w[0] = random.pick(V6_FIRST) | (random.chance(0.3) ? random.int(0x40) : 0);
    if (random.chance(0.5)) w[1] = random.pick(V6_SECOND);
    if (random.chance(0.2)) w.fill(0, 2, 6);
    if (random.chance(0.15)) w.splice(0, 6, 0, 0, 0, 0, 0, random.pick([0, 0xffff]));
    if (random.chance(0.1)) w.splice(0, 6, 0, 0, 0, 0, 0xffff, 0);
    return w;
  }

  /** Ways to write eight groups: full, the longest or another zero run compressed, leading zeros, upper case, a dotted tail, a zone. */
  function v6Text(w: number[]): string {
    let groups = w.map((x) => (random.chance(0.1) ? hex(x).padStart(4, '0') : hex(x)));
    let tail = '';
    if (random.chance(0.25)) {
      tail = dotted(((w[6]! << 16) | w[7]!) >>> 0);
      groups = groups.slice(0, 6);
    }
    const runs: [number, number][] = [];
    for (let i = 0; i < groups.length; i++) {
      let j = i;
      while (j < groups.length && w[j] === 0) j++;
      if (j > i) runs.push([i, j]);
      i = j;
    }
    let text = groups.join(':');
    if (runs.length && random.chance(0.8)) {
      const [from, to] = random.chance(0.7)
        ? runs.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a))
        : random.pick(runs);
      text = `${groups.slice(0, from).join(':')}::${groups.slice(to).join(':')}`;
    }
    if (tail) text += text.endsWith(':') ? tail : `:${tail}`;
    if (random.chance(0.1)) text = text.toUpperCase();
    if (random.chance(0.05)) text += `%${random.pick(['eth0', '1', 'en0', 'lo'])}`;
    return text;
  }

  /** IPv4 in a spelling some readers accept (getaddrinfo, ipaddr.js's loose parse): hex, octal, leading zeros, fewer parts. */
  function oddV4(v: number): string {
    const bytes = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    const odd = random.int(4);
    switch (random.int(6)) {
      case 0:
        return String(v);
      case 1:
        return `${bytes[0]}.${(v & 0xffffff) >>> 0}`;
      case 2:
        return `${bytes[0]}.${bytes[1]}.${v & 0xffff}`;
      case 3:
        return bytes.map((b, i) => (i === odd ? `0x${hex(b)}` : String(b))).join('.');
      case 4:
        return bytes.map((b, i) => (i === odd ? `0${b.toString(8)}` : String(b))).join('.');
      default:
        return `0x${hex(v)}`;
    }
  }

  /** `s` broken by one edit: a character dropped, doubled or replaced. */
  function broken(s: string): string {
    const at = random.int(s.length);
    const c = random.pick([':', '.', '0', 'f', 'g', '%', ' ', '::', '1']);
    switch (random.int(3)) {
      case 0:
        return s.slice(0, at) + s.slice(at + 1);
      case 1:
        return s.slice(0, at) + c + s.slice(at);
      default:
        return s.slice(0, at) + c + s.slice(at + 1);
    }
  }

  // the IPv6 forms carrying IPv4 addresses, which the outbound guard also judges by those (outboundAddress.ts)
  const CARRIERS = addressRanges([
    '::/96',
    '::ffff:0:0:0/96',
    '64:ff9b::/96',
    '64:ff9b:1::/48',
    '2002::/16',
    '2001::/32',
  ]);
  const OWN_V6 = addressRanges(['::/127']);
  // isNonViewerV6's space: the reserved, and IPv6 outside global unicast 2000::/3 but NAT64's prefix; benchmarking; the second documentation block
  const RESERVED_V6 = addressRanges([
    '::/128',
    '::1/128',
    'fc00::/7',
    'fe80::/10',
    'ff00::/8',
    '2001:db8::/32',
    '100::/64',
  ]);
  const GLOBAL_UNICAST = addressRanges(['2000::/3', '64:ff9b::/96']);
  const NOT_FOR_VIEWERS = addressRanges(['2001:2::/48', '3fff::/20']);

  const same = (a: ArrayLike<number>, b: ArrayLike<number>) =>
    a.length === b.length && Array.from(a).every((x, i) => x === b[i]);

  /** How the two read or judge `s` differently, or null when they agree (or neither reads it). */
  function disagreement(s: string): string | null {
    const zone = s.indexOf('%');
    if (zone >= 0 && s.includes(':') && !/^[0-9a-z]+$/i.test(s.slice(zone + 1))) {
      // a zone id the library does not read: the fast parser drops any text after '%', so it reads the address before it
      const family = parseIp(s);
      const read = [ip.v4, ...ip.words];
      if (parseIp(s.slice(0, zone)) !== family || (family !== INVALID && !same([ip.v4, ...ip.words], read)))
        return 'zone';
      return disagreement(s.slice(0, zone));
    }
    const family = parseIp(s);
    const library = readAddress(s);
    if (library === null) return family === INVALID ? null : 'read by the fast parser only';
    if (library instanceof ipaddr.IPv4) {
      const [a, b, c, d] = library.octets as [number, number, number, number];
      const v4 = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
      // ipaddr.js reads ::a.b.c.d (IPv4-compatible, RFC 4291 § 2.5.5.1) as IPv4-mapped; the fast parser as written
      if (family === IPV6 && /^::[0-9]+\./.test(s))
        return same(ip.words, [0, 0, 0, 0, 0, 0, v4 >>> 16, v4 & 0xffff]) ? null : 'IPv4-compatible value';
      if (family !== IPV4) return `family ${family}, the library's IPv4`;
      if (ip.v4 !== v4) return 'IPv4 value';
      return isReservedV4(ip.v4) === !isPublicAddress(s) ? null : 'reserved IPv4';
    }
    if (family !== IPV6) return `family ${family}, the library's IPv6`;
    if (!same(ip.words, library.parts)) return 'IPv6 value';
    if ((!inRanges(library, CARRIERS) || inRanges(library, OWN_V6)) && isReservedV6() !== !isPublicAddress(s))
      return 'reserved IPv6';
    const nonViewer =
      inRanges(library, RESERVED_V6) || !inRanges(library, GLOBAL_UNICAST) || inRanges(library, NOT_FOR_VIEWERS);
    return isNonViewerV6() === nonViewer ? null : 'non-viewer IPv6';
  }

  // 27,000 addresses: ipaddr.js takes some 10 µs to read an IPv6 address, the fast parser well under one
  it('read every generated address alike, and judge it alike', () => {
    const differ: string[] = [];
    let read = 0;
    for (let n = 0; n < 3_000; n++) {
      const v4 = v4Value();
      const words = v6Words();
      for (const s of [dotted(v4), `::ffff:${dotted(v4)}`, v6Text(words), v6Text(words)]) {
        if (parseIp(s) !== INVALID) read++;
        for (const t of [s, broken(s)]) {
          const why = disagreement(t);
          if (why) differ.push(`${t}: ${why}`);
        }
      }
      const odd = oddV4(v4);
      if (!ipaddr.isValid(odd) || parseIp(odd) !== INVALID || readAddress(odd) !== null || isPublicAddress(odd))
        differ.push(`${odd}: an odd spelling`);
    }
    expect(differ.slice(0, 20)).toEqual([]);
    expect(read).toBe(12_000);
  }, 60_000);

  it('differ only where said: a zone id the library does not read (the traffic check never gets one)', () => {
    for (const s of ['fe80::1%', 'fe80::1%eth-0', 'fe80::1%br_0']) {
      expect(parseIp(s), s).toBe(IPV6);
      expect(readAddress(s), s).toBeNull();
    }
  });
});
