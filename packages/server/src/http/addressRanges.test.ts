import { describe, expect, it } from 'vitest';
import { addressRanges, inRanges, readAddress } from './addressRanges.js';

describe('addresses and ranges for security decisions', () => {
  it('reads the spellings resolvers answer, an IPv4-mapped address as IPv4', () => {
    expect(readAddress('192.0.2.7')?.toString()).toBe('192.0.2.7');
    expect(readAddress('::ffff:192.0.2.7')?.kind()).toBe('ipv4');
    expect(readAddress('::FFFF:c000:207')?.toString()).toBe('192.0.2.7');
    expect(readAddress('2001:DB8::1')?.toString()).toBe('2001:db8::1');
    expect(readAddress('fe80::1%eth0')?.kind()).toBe('ipv6');
    expect(readAddress('64:ff9b::192.0.2.7')?.toString()).toBe('64:ff9b::c000:207');
  });

  it('reads no other spelling of IPv4, nor what is not an address', () => {
    for (const s of [
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '1.2.3',
      '010.0.0.1',
      '::ffff:0177.0.0.1',
      '::ffff:0x7f.0.0.1',
      '',
      'localhost',
      '[::1]',
      '1.2.3.4 ',
      '1::2::3',
      '256.1.1.1',
    ]) {
      expect(readAddress(s), s).toBeNull();
    }
  });

  it('matches addresses in ranges of either family, an IPv4 address in an IPv4-mapped range too', () => {
    const ranges = addressRanges(['10.20.0.0/16', '192.0.2.7', 'fd00::/8', '::ffff:198.51.100.0/120']);
    const has = (s: string) => inRanges(readAddress(s)!, ranges);
    for (const s of ['10.20.3.4', '::ffff:10.20.3.4', '192.0.2.7', 'fd12::1', '198.51.100.9', '::ffff:198.51.100.9'])
      expect(has(s), s).toBe(true);
    for (const s of ['10.21.0.1', '192.0.2.8', 'fc00::1', '198.51.101.9', '::1']) expect(has(s), s).toBe(false);
  });

  it('refuses an entry that is not an address or range', () => {
    for (const entry of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '10.0.0.0/x',
      '0x0a.0.0.0/8',
      'loopback',
      '',
    ]) {
      expect(() => addressRanges([entry]), entry).toThrow(/is not an address or CIDR range/);
    }
    expect(addressRanges(['0.0.0.0/0', '::/0']).v6).toHaveLength(1);
  });
});
