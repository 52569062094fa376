import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isIpEntry, parseListText } from '../kinds/lists.js';
import { isCityCode, isKeyValue, isMetroCode, isPostalCode, TargetingRules } from './targeting.js';

describe('IP list entries', () => {
  it('takes IPv4 and IPv6 addresses and CIDR ranges, and nothing else', () => {
    for (const ok of [
      '203.0.113.7',
      '198.51.100.0/24',
      '0.0.0.0/0',
      '2001:db8::1',
      '2001:db8::/32',
      '::',
      '::1',
      'fe80::/10',
      '::ffff:192.0.2.1',
      '1:2:3:4:5:6:7:8',
      '2001:DB8::/128',
    ])
      expect(isIpEntry(ok), ok).toBe(true);
    for (const bad of [
      '',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3',
      '1.2.3.4/33',
      '1.2.3.4/',
      '1.2.3.4/08',
      '2001:db8:::1',
      '1:2:3:4:5:6:7:8:9',
      '2001:db8::/129',
      'example.com',
      'fe80::1%eth0',
      ':1::',
      '1::2:',
      '1.2.3.4 ',
      '::ffff:1.2.3',
    ])
      expect(isIpEntry(bad), bad).toBe(false);
  });

  it("agrees with node's isIP on addresses", () => {
    let seed = 11;
    const r = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const parts = ['0', '1', '255', '256', '00', 'ffff', 'FFFF', 'fffff', 'g', '', '::', '.', ':', '1.2.3.4'];
    for (let i = 0; i < 5000; i++) {
      const n = 1 + Math.floor(r() * 10);
      let text = '';
      for (let k = 0; k < n; k++)
        text += parts[Math.floor(r() * parts.length)]! + (r() < 0.5 ? ':' : r() < 0.5 ? '.' : '');
      expect(isIpEntry(text), text).toBe(isIP(text) !== 0);
    }
  });

  it('reads pasted entries in lower case, one each, and reports the lines that are not', () => {
    const parsed = parseListText('iplists', '203.0.113.7\n2001:DB8::/32\n203.0.113.7\nexample.com\n10.0.0.0/8');
    expect(parsed.items).toEqual(['203.0.113.7', '2001:db8::/32', '10.0.0.0/8']);
    expect(parsed.duplicates).toBe(1);
    expect(parsed.invalid).toEqual([
      { line: 4, value: 'example.com', reason: expect.stringMatching(/^is not an IP address/) },
    ]);
  });
});

describe('city, metro, postal code and key-value rules', () => {
  it('checks each code as the ad server matches it', () => {
    expect(['US:Mountain View', 'US-CA:Mountain View', 'GB:London', 'DE-BY:München'].every(isCityCode)).toBe(true);
    expect(['Mountain View', 'XX:Paris', 'US: Boston', 'us:Boston', 'US:a,b'].some(isCityCode)).toBe(false);
    expect(['500', '807', '899'].every(isMetroCode)).toBe(true);
    expect(['12', '499', '900', '8070', 'SF'].some(isMetroCode)).toBe(false);
    expect(['US:94043', 'CA:M5V', 'GB:E1', 'GB:SW1A 1AA'].every(isPostalCode)).toBe(true);
    expect(['94043', 'XX:1', 'US:', 'US: 94043'].some(isPostalCode)).toBe(false);
    expect(['genre=sports', 'Tier=Gold', 'pbadslot=/123/home', 'show=the news hour'].every(isKeyValue)).toBe(true);
    expect(['genre', '=sports', 'genre=', 'genre= ', 'a b=c', 'genre=a,b', 'genre=a=b'].some(isKeyValue)).toBe(false);
  });

  it('refuses a value it cannot match with the field named, and reads rows written before the rules existed', () => {
    const bad = TargetingRules.safeParse({ metros: { mode: 'include', values: ['807', '12'] } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['metros'], message: expect.stringContaining('12') });
    const old = TargetingRules.parse({ countries: { mode: 'include', values: ['US'] } });
    expect(old.cities).toEqual({ mode: 'include', values: [] });
    expect(old.keyValues).toEqual({ mode: 'include', values: [] });
    expect(old.ipLists).toEqual({ mode: 'include', ids: [] });
  });
});
