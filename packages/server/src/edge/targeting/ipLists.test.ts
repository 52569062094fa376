import { BlockList, isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { compileIpList, ipListHas, parseViewerAddress } from './ipLists.js';

const has = (items: string[], address: string) => {
  const list = compileIpList(1, 'List', items);
  return ipListHas(list, address, parseViewerAddress(address));
};

/** A random address of the family, often inside 10.20.0.0/16 or 2001:db8::/48 so that ranges are hit. */
function randomAddress(v6: boolean, r: () => number): string {
  if (!v6) {
    const near = r() < 0.5;
    const o = () => Math.floor(r() * 256);
    return near ? `10.20.${o()}.${o()}` : `${o()}.${o()}.${o()}.${o()}`;
  }
  const g = () => Math.floor(r() * 65536).toString(16);
  return r() < 0.5 ? `2001:db8:0:${g()}::${g()}` : `${g()}:${g()}::${g()}:${g()}`;
}

describe('IP lists', () => {
  it('holds single addresses and ranges of both families, and nothing else', () => {
    const items = ['203.0.113.7', '198.51.100.0/24', '10.0.0.0/8', '2001:db8::/32', '2001:db9::5', '::ffff:192.0.2.1'];
    for (const [address, inList] of [
      ['203.0.113.7', true],
      ['203.0.113.8', false],
      ['198.51.100.255', true],
      ['198.51.101.0', false],
      ['10.255.0.1', true],
      ['2001:db8:ffff::1', true],
      ['2001:db9::5', true],
      ['2001:db9::6', false],
      ['::ffff:203.0.113.7', true],
      ['192.0.2.1', true],
      ['', false],
      ['not an address', false],
    ] as const)
      expect(has(items, address), address).toBe(inList);
  });

  it("agrees with node:net's BlockList on random addresses, list by list", () => {
    let seed = 7;
    const r = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const items = [
      '10.20.0.0/17',
      '10.20.200.0/22',
      '10.20.255.255',
      '192.168.1.1',
      '2001:db8:0:1::/64',
      '2001:db8:0:8000::/49',
      '2001:db8:0:ab::7',
    ];
    const blocks = new BlockList();
    for (const item of items) {
      const [address, prefix] = item.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix) blocks.addSubnet(address, Number(prefix), family);
      else blocks.addAddress(address, family);
    }
    const list = compileIpList(1, 'List', items);
    for (let i = 0; i < 20_000; i++) {
      const address = randomAddress(i % 2 === 1, r);
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      expect(ipListHas(list, address, parseViewerAddress(address)), address).toBe(blocks.check(address, family));
    }
  });
});
