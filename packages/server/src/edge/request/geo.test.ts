import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTestCityDb } from '../../../test/mmdbWriter.js';
import { geoipLiteLookup, maxmindLookup } from './geo.js';

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

  it('has no geo for private, loopback or malformed addresses, and never throws', async () => {
    const lookup = await maxmindLookup(testCityDb());
    for (const ip of ['127.0.0.1', '10.1.2.3', 'garbage', '', '999.1.1.1', '::1']) {
      expect(lookup(ip).country, ip).toBe('');
      expect(geoipLiteLookup(ip).country, ip).toBe('');
    }
  });
});
