import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTestCityDb } from '../../../test/mmdbWriter.js';
import { geoipLiteLookup, maxmindLookup, publicAddress } from './geo.js';

const dir = mkdtempSync(join(tmpdir(), 'adplane-mmdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const testCityDb = () => writeTestCityDb(dir);

describe('geo', () => {
  it('reads country, region and US state from a MaxMind City database when one is set', async () => {
    const lookup = await maxmindLookup(testCityDb());
    expect(lookup('81.2.69.160')).toEqual({ country: 'SE', region: 'AB', usState: '' });
    expect(lookup('24.24.24.24')).toEqual({ country: 'US', region: 'OH', usState: 'OH' });
    // an address the file does not know: geoip-lite's bundled data answers
    expect(lookup('8.8.8.8')).toEqual(geoipLiteLookup('8.8.8.8'));
    expect(geoipLiteLookup('81.2.69.160').country).toBe('GB');
  });

  it('reads a stated address with a port or in brackets as the address (as the IVT check does), and nothing else', () => {
    expect(publicAddress('81.2.69.160')).toBe('81.2.69.160');
    expect(publicAddress('::ffff:81.2.69.160')).toBe('81.2.69.160');
    expect(publicAddress('81.2.69.160:51234')).toBe('81.2.69.160');
    expect(publicAddress('[2001:4860:4860::8888]:443')).toBe('2001:4860:4860::8888');
    expect(publicAddress('[2001:4860:4860::8888]')).toBe('2001:4860:4860::8888');
    expect(publicAddress('[::ffff:81.2.69.160]:80')).toBe('81.2.69.160');
    for (const bad of [
      '81.2.69.160:',
      '81.2.69.160:abc',
      '81.2.69.160:123456',
      '[2001:db8::1',
      '[2001:db8::1]x',
      '[81.2.69.160]',
      ', 81.2.69.160',
      'garbage:80',
      ':80',
      '',
    ])
      expect(publicAddress(bad), bad).toBe('');
    expect(geoipLiteLookup(publicAddress('81.2.69.160:8080')).country).toBe('GB');
    // an X-Forwarded-For value in the IP macro: its leftmost entry is the viewer
    expect(publicAddress('81.2.69.160, 10.0.0.1')).toBe('81.2.69.160');
    expect(geoipLiteLookup(publicAddress('81.2.69.160,10.0.0.1, 172.16.0.9')).country).toBe('GB');
  });

  it('has no geo for private, loopback or malformed addresses, and never throws', async () => {
    const lookup = await maxmindLookup(testCityDb());
    for (const ip of ['127.0.0.1', '10.1.2.3', 'garbage', '', '999.1.1.1', '::1']) {
      expect(lookup(ip).country, ip).toBe('');
      expect(geoipLiteLookup(ip).country, ip).toBe('');
    }
  });
});
