import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressText, INVALID, IPV4, IPV6, ip, isNonViewerV6, isReservedV4, isReservedV6, parseIp, parseViewerIp } from './ipAddress.js';

/** A small deterministic generator, so that a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

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
      '', '1', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.-4', '1.2.3.4 ', ' 1.2.3.4', '1..2.3', '1.2.3.', '01.2.3.4', '1.2.3.4:80',
      ':', ':::', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::1', 'g::1', ':1::', '1:', '1:2:3:4:5:6:7:8::', '::ffff:1.2.3',
      '::ffff:256.1.1.1', '1.2.3.4::', 'unknown', 'localhost', '{{ip}}', '::1::',
    ];
    for (const s of bad) {
      expect(parseIp(s), s).toBe(INVALID);
      expect(isIP(s), s).toBe(0);
    }
  });

  it('agrees with node:net on random addresses written every way', () => {
    const next = rng(42);
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
      const short = best[0]! < 0 ? full : `${w.slice(0, best[0]).map((x) => x.toString(16)).join(':')}::${w.slice(best[0]! + best[1]!).map((x) => x.toString(16)).join(':')}`;
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
      '', ':', '[', '[]', '[]:80', '[::1', '[::1]80', '[::1]:', '[::1]:65536', '[::1]:12345678', '[73.162.18.44]', '73.162.18.44:', '73.162.18.44:99999',
      '73.162.18.44:8o', ':8080', '73.162.18:80', '73.162.18.44%eth0', ', 73.162.18.44', 'unknown', 'localhost:80', '{{ip}}', '2601:600::1:', '[2601:600::1]:443:1',
      '1.2.3.4:80:90', 'x'.repeat(65), `73.162.18.44,${' '.repeat(256)}`,
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
    for (const s of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '127.0.0.1', '169.254.1.1', '100.64.0.1', '100.127.255.255', '0.1.2.3', '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '224.0.0.1', '240.0.0.1', '255.255.255.255', '::', '::1', 'fc00::1', 'fd12::1', 'fe80::1', 'ff02::1', '2001:db8::1', '::ffff:10.0.0.1']) {
      expect(reserved(s), s).toBe(true);
    }
  });

  it('passes public addresses next to them', () => {
    for (const s of ['9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '100.63.255.255', '100.128.0.0', '73.162.18.44', '8.8.8.8', '223.255.255.255', '2601:600::1', '2001:4860::8888', '2001:db9::1', '::2', '::ffff:73.162.18.44']) {
      expect(reserved(s), s).toBe(false);
    }
  });

  it("knows IPv6 no viewer has: reserved, and outside global unicast 2000::/3 but NAT64's prefix", () => {
    const nonViewer = (s: string) => {
      expect(parseIp(s), s).toBe(IPV6);
      return isNonViewerV6();
    };
    for (const s of ['::', '::1', '::2', '::1.2.3.4', '1::', '1:2:3:4:5:6:7:8', '100::1', '64:ff9b:1::a00:1', '4000::1', 'c000::1', 'fec0::1', 'fc00::1', 'fe80::1', 'ff02::1', '2001:db8::1', '2001:2::1', '2001:2:0:ffff::1', '3fff::1', '3fff:fff:ffff::1']) {
      expect(nonViewer(s), s).toBe(true);
    }
    for (const s of ['2000::1', '2601:600::1', '2001:4860::8888', '2001:3::1', '2001:2:1::1', '2a00:1450::1', '3ffe:ffff::1', '3fff:1000::1', '64:ff9b::8.8.8.8']) {
      expect(nonViewer(s), s).toBe(false);
    }
    // isReservedV6, which also guards outbound calls, is unchanged by it
    expect(reserved('::2')).toBe(false);
    expect(reserved('3fff::1')).toBe(false);
  });
});
