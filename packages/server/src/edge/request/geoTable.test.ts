import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geoipLiteLookup } from './geo.js';
import { GeoTable, geoipLiteDataDir, type PlaceParts } from './geoTable.js';

interface GeoipLite {
  lookup(ip: string): { country: string; region: string } | null;
}
const geoipLite = createRequire(import.meta.url)('geoip-lite') as GeoipLite;

/** What geoip-lite itself answers, in the table's terms. */
const expected = (ip: string): PlaceParts | null => {
  const hit = geoipLite.lookup(ip);
  return hit && (hit.country || hit.region) ? { country: hit.country, region: hit.region } : null;
};

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0);
}

const v4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const v6 = (words: number[]) => words.flatMap((w) => [(w >>> 16).toString(16), (w & 0xffff).toString(16)]).join(':');

describe('the compact table of geoip-lite data', () => {
  const table = GeoTable.load<PlaceParts | null>((parts) => parts);

  it('answers what geoip-lite answers, address by address (IPv4 and IPv6, in ranges, at their edges and between)', () => {
    const next = seeded(7);
    const mismatches: string[] = [];
    const check = (ip: string) => {
      const ours = table.lookup(ip);
      const theirs = expected(ip);
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        mismatches.push(`${ip}: ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`);
    };
    for (let i = 0; i < 30_000; i++) {
      const n = next();
      check(v4(n));
      // the neighbours of a random address: range edges are where a merge would go wrong
      check(v4((n + 1) >>> 0));
      check(v4((n - 1) >>> 0));
    }
    // IPv6: the first and last address of ranges picked from geoip-lite's own file, and their
    // neighbours outside. geoip-lite compares the first 64 bits only: where a /64 is split among
    // ranges, or ranges overlap (75 of 1.2 million in its file), it answers any one of them, the
    // table the last one starting at or before the address (those are not compared here).
    const file = readFileSync(join(geoipLiteDataDir(), 'geoip-city6.dat'));
    const lines = file.length / 48;
    const words = (at: number) => [
      file.readUInt32BE(at),
      file.readUInt32BE(at + 4),
      file.readUInt32BE(at + 8),
      file.readUInt32BE(at + 12),
    ];
    const top = (at: number) => file.subarray(at, at + 8);
    const clash = (a: number, b: number) => Buffer.compare(top(a * 48 + 16), top(b * 48)) >= 0; // a's end reaches b's start (first 64 bits)
    const split = (line: number) =>
      line <= 1 ||
      line >= lines - 2 ||
      clash(line - 2, line - 1) ||
      clash(line - 1, line) ||
      clash(line, line + 1) ||
      clash(line + 1, line + 2);
    let compared = 0;
    for (let i = 0; i < 10_000; i++) {
      const line = next() % lines;
      if (split(line)) continue;
      for (const [w, step] of [
        [words(line * 48), -1],
        [words(line * 48 + 16), 1],
      ] as const) {
        compared++;
        check(v6(w));
        check(v6([w[0]!, (w[1]! + step) >>> 0, 0, 0]));
      }
    }
    expect(compared).toBeGreaterThan(10_000);
    for (const ip of [
      '8.8.8.8',
      '81.2.69.160',
      '24.24.24.24',
      '1.1.1.1',
      '2001:4860:4860::8888',
      '2a03:2880:f10c:83:face:b00c:0:25de',
      '::ffff:8.8.8.8',
      '10.1.2.3',
      '172.16.5.4',
      '192.168.1.1',
      '127.0.0.1',
      '::1',
    ])
      check(ip);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it('is far smaller than the files: neighbouring ranges of one place merged', () => {
    expect(table.size.v4).toBeGreaterThan(100_000);
    expect(table.size.v4).toBeLessThan(3_000_000);
    expect(table.size.v6).toBeGreaterThan(10_000);
  });

  it('has no place for private, loopback or malformed addresses, and never throws', () => {
    for (const ip of [
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '127.0.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'garbage',
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1..2.3',
      '2001:db8::1::2',
      ':::',
      'fe80::1%eth0',
      '1:2:3:4:5:6:7:8:9',
      '12345::1',
      '::ffff:999.1.1.1',
    ]) {
      expect(table.lookup(ip), ip).toBeNull();
    }
  });

  it('gives the ad server one frozen object per place, the US state for US regions', () => {
    const google = geoipLiteLookup('8.8.8.8');
    expect(google.country).toBe('US');
    expect(google.usState).toBe(google.region);
    expect(Object.isFrozen(google)).toBe(true);
    expect(geoipLiteLookup('8.8.8.8')).toBe(google);
    expect(geoipLiteLookup('81.2.69.160')).toMatchObject({ country: 'GB', usState: '' });
    expect(geoipLiteLookup('::ffff:81.2.69.160')).toBe(geoipLiteLookup('81.2.69.160'));
  });
});
