import { BlockList } from 'node:net';
import { INVALID, IPV4, type IpFamily, ip, parseIp } from '../../ivt/ipAddress.js';
import { IpRangeSet, readRangeList } from '../../ivt/ipRanges.js';

/**
 * An IP list (a list kind: addresses and CIDR ranges) compiled once per snapshot for the checks
 * every request makes. IPv4 entries, single addresses as much as ranges, become sorted, merged
 * ranges found by binary search (ivt/ipRanges.ts, the traffic check's structure, tested against
 * node:net's BlockList): a list of 100,000 addresses costs about 17 comparisons a request. IPv6
 * entries go to a node:net BlockList, exact to the bit (a /128 is that one address).
 */
export interface IpList {
  id: number;
  name: string;
  /** How many entries it was compiled from. */
  size: number;
  v4: IpRangeSet;
  v6: BlockList | null;
}

/** One list's entries compiled (entries the list kind's check refused never reach here). */
export function compileIpList(id: number, name: string, items: readonly string[]): IpList {
  const v4Lines: string[] = [];
  let v6: BlockList | null = null;
  for (const item of items) {
    const slash = item.indexOf('/');
    const address = slash >= 0 ? item.slice(0, slash) : item;
    // (an IPv4-mapped IPv6 entry, ::ffff:a.b.c.d, is the IPv4 address a request reads it as)
    if (parseIp(address) === IPV4) {
      v4Lines.push(item);
      continue;
    }
    v6 ??= new BlockList();
    try {
      if (slash >= 0) v6.addSubnet(address, Number(item.slice(slash + 1)), 'ipv6');
      else v6.addAddress(address, 'ipv6');
    } catch {
      // an entry node does not read (the list kind's check lets through what node reads): left out
    }
  }
  const ranges = readRangeList(v4Lines.join('\n'));
  return { id, name, size: items.length, v4: new IpRangeSet(ranges.v4, []), v6 };
}

/**
 * Whether `address` (a request's viewer address, already read by `parseIp` into its `family`: the
 * caller parses once for every list it asks) is in the list.
 */
export function ipListHas(list: IpList, address: string, family: IpFamily): boolean {
  if (family === IPV4) return list.v4.hasV4(ip.v4);
  if (family === INVALID || !list.v6) return false;
  return list.v6.check(address, 'ipv6');
}

/** The family of a viewer's address, its value left in the parser's scratch for `ipListHas`. */
export const parseViewerAddress = (address: string): IpFamily => (address ? parseIp(address) : INVALID);
