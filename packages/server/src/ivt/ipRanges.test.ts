import { readFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type IpRangeSet, rangeSetOf, readRangeList } from './ipRanges.js';
import { SHIPPED_RANGES_FILE } from './trafficLists.js';

const setOf = (text: string): IpRangeSet => rangeSetOf(readRangeList(text)).ranges;

describe('IpRangeSet', () => {
  it('finds addresses inside CIDR blocks and nothing next to them', () => {
    const set = setOf('10.0.0.0/8\n192.0.2.16/28\n203.0.113.7\n2600:1f18::/32\n2a05:d018:1:2::/64\n');
    for (const s of [
      '10.0.0.0',
      '10.255.255.255',
      '192.0.2.16',
      '192.0.2.31',
      '203.0.113.7',
      '2600:1f18::',
      '2600:1f18:ffff:ffff:ffff:ffff:ffff:ffff',
      '2a05:d018:1:2::99',
    ])
      expect(set.has(s), s).toBe(true);
    for (const s of [
      '9.255.255.255',
      '11.0.0.0',
      '192.0.2.15',
      '192.0.2.32',
      '203.0.113.6',
      '203.0.113.8',
      '2600:1f17:ffff::1',
      '2600:1f19::',
      '2a05:d018:1:3::1',
      'not an ip',
    ])
      expect(set.has(s), s).toBe(false);
  });

  it('merges overlapping and adjacent blocks', () => {
    const set = setOf('1.0.0.0/24\n1.0.1.0/24\n1.0.0.128/25\n2001:4860::/33\n2001:4860:8000::/33\n');
    expect(set.size).toEqual({ v4: 1, v6: 1 });
    expect(set.has('1.0.1.255')).toBe(true);
    expect(set.has('2001:4860:ffff::1')).toBe(true);
  });

  it('masks host bits, and widens IPv6 prefixes longer than /64 to their /64', () => {
    const set = setOf('198.51.100.77/24\n2001:db8:1:2::5/128\n');
    expect(set.has('198.51.100.1')).toBe(true);
    expect(set.has('2001:db8:1:2:ffff::1')).toBe(true);
    expect(set.has('2001:db8:1:3::5')).toBe(false);
  });

  it('handles the ends of both address spaces', () => {
    const set = setOf('0.0.0.0/1\n255.255.255.255\n::/1\nffff:ffff:ffff:ffff::/64\n');
    for (const s of ['0.0.0.0', '127.255.255.255', '255.255.255.255', '::1', '7fff::', 'ffff:ffff:ffff:ffff::1'])
      expect(set.has(s), s).toBe(true);
    for (const s of ['128.0.0.0', '255.255.255.254', '8000::', 'ffff:ffff:ffff:fffe::1'])
      expect(set.has(s), s).toBe(false);
    expect(setOf('').has('1.2.3.4')).toBe(false);
    expect(setOf('0.0.0.0/0').has('255.1.2.3')).toBe(true);
    expect(setOf('::/0').has('ffff::1')).toBe(true);
  });
});

describe('readRangeList', () => {
  it('reads comments, exemptions, @replace, and reports bad lines by number', () => {
    const list = readRangeList(
      '# a comment\n\n1.2.3.0/24  # trailing comment\n!1.2.3.128/25\n@replace\n1.2.3.4/33\nfoo\n2001:db8::/129\n::ffff:5.6.7.0/120\n',
    );
    expect(list.replace).toBe(true);
    expect(list.v4).toEqual([
      [0x01020300, 0x010203ff],
      [0x05060700, 0x050607ff],
    ]);
    expect(list.exemptV4).toEqual([[0x01020380, 0x010203ff]]);
    expect(list.errors.map((e) => e.line)).toEqual([6, 7, 8]);
  });
});

describe('the shipped datacenter ranges', () => {
  const text = readFileSync(SHIPPED_RANGES_FILE, 'utf8');
  const list = readRangeList(text);
  const set = rangeSetOf(list).ranges;

  it('parse without an error and hold both families', () => {
    expect(list.errors).toEqual([]);
    expect(list.replace).toBe(false);
    expect(set.size.v4).toBeGreaterThan(5_000);
    expect(set.size.v6).toBeGreaterThan(500);
  });

  it('cover the big clouds and leave homes and privacy relays out', () => {
    // AWS, Google Cloud, Azure, DigitalOcean, Google DNS; AWS and Google over IPv6
    for (const s of [
      '52.94.236.248',
      '34.102.136.180',
      '20.42.65.92',
      '167.99.1.1',
      '8.8.8.8',
      '2600:1f18::1',
      '2001:4860:4860::8888',
    ])
      expect(set.has(s), s).toBe(true);
    // Comcast, Verizon, Deutsche Telekom; Cloudflare (WARP, Private Relay), Apple
    for (const s of ['73.162.18.44', '71.190.5.5', '93.200.41.7', '2601:600::1', '1.1.1.1', '104.16.1.1', '17.1.1.1'])
      expect(set.has(s), s).toBe(false);
  });

  it("agree with node:net's BlockList on random addresses", () => {
    const blocks = new BlockList();
    for (const raw of text.split('\n')) {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) continue;
      const [address, len] = line.split('/') as [string, string];
      blocks.addSubnet(address, Number(len), address.includes(':') ? 'ipv6' : 'ipv4');
    }
    let s = 12345;
    const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
    // around the ends of the shipped ranges, where an off-by-one would show, and at random
    const probes: string[] = [];
    for (let i = 0; i < set.v4First.length; i += 23) {
      for (const v of [set.v4First[i]! - 1, set.v4First[i]!, set.v4Last[i]!, set.v4Last[i]! + 1]) {
        if (v >= 0 && v <= 0xffffffff) probes.push([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.'));
      }
    }
    for (let i = 0; i < 1_000; i++) {
      const v = next();
      probes.push([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.'));
    }
    for (const p of probes) expect(set.has(p), p).toBe(blocks.check(p, 'ipv4'));
    const hex = (n: number) => (n >>> 0).toString(16);
    const v6 = (hi: number, lo: number, rest: string) =>
      `${hex(hi >>> 16)}:${hex(hi & 0xffff)}:${hex(lo >>> 16)}:${hex(lo & 0xffff)}:${rest}`;
    for (let i = 0; i < set.v6FirstHi.length; i += 7) {
      const [fHi, fLo, lHi, lLo] = [set.v6FirstHi[i]!, set.v6FirstLo[i]!, set.v6LastHi[i]!, set.v6LastLo[i]!];
      const before = fLo === 0 ? [fHi - 1, 0xffffffff] : [fHi, fLo - 1];
      const after = lLo === 0xffffffff ? [lHi + 1, 0] : [lHi, lLo + 1];
      for (const a of [
        v6(fHi, fLo, '0:0:0:1'),
        v6(lHi, lLo, 'ffff:ffff:ffff:ffff'),
        v6(before[0]!, before[1]!, 'ffff:ffff:ffff:ffff'),
        v6(after[0]!, after[1]!, '0:0:0:0'),
      ]) {
        expect(set.has(a), a).toBe(blocks.check(a, 'ipv6'));
      }
    }
  });
});
