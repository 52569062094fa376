import ipaddr from 'ipaddr.js';

/**
 * Addresses and address ranges for the server's security decisions, read and matched by ipaddr.js:
 * the outbound guard (outboundAddress.ts) and the /metrics allow-list (ops/metricsAccess.ts). The
 * trusted proxies are matched by @fastify/proxy-addr (http/clientAddress.ts, and Fastify's own
 * trustProxy), which is built on the same library.
 *
 * Only the spellings a resolver answers and an operator writes are read: IPv4 as four decimal parts
 * without leading zeros, IPv6 (a dotted IPv4 tail held to the same rule), a zone id after `%`. The
 * other spellings of IPv4 that some readers accept (0x7f.1, 2130706433, 0177.0.0.1, 1.2.3) are not
 * addresses here: readers disagree on their value (0177 is 127 in octal to getaddrinfo and 177 to
 * others), so a decision taken on one reading could be undone by another.
 */
export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Ranges by family, each an address and its prefix length. */
interface AddressRanges {
  v4: [ipaddr.IPv4, number][];
  v6: [ipaddr.IPv6, number][];
}

/** `text` in a spelling read here (see above), or null. An IPv4-mapped IPv6 address is kept as IPv6. */
function strictAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(':')) return null;
  // ipaddr.js reads a dotted tail loosely (hex, octal, leading zeros): hold it to four decimal parts
  const zone = text.indexOf('%');
  const bare = zone < 0 ? text : text.slice(0, zone);
  const tail = bare.slice(bare.lastIndexOf(':') + 1);
  if (tail.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
  try {
    return ipaddr.IPv6.parse(text);
  } catch {
    return null;
  }
}

/** The address `text` spells, an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 address; null when it is none. */
export function readAddress(text: string): Address | null {
  const address = strictAddress(text);
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** Ranges from `address` and `address/length` entries; throws on an entry that is neither. */
export function addressRanges(entries: readonly string[]): AddressRanges {
  const ranges: AddressRanges = { v4: [], v6: [] };
  for (const entry of entries) {
    const [text = '', bits, extra] = entry.split('/');
    const address = strictAddress(text);
    const max = address instanceof ipaddr.IPv6 ? 128 : 32;
    if (!address || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
      throw new Error(`'${entry}' is not an address or CIDR range`);
    }
    const length = bits === undefined ? max : Number(bits);
    if (address instanceof ipaddr.IPv6) ranges.v6.push([address, length]);
    else ranges.v4.push([address, length]);
  }
  return ranges;
}

/** Whether `address` is in `ranges`; an IPv4 address is also looked for in IPv6 ranges as its IPv4-mapped form. */
export function inRanges(address: Address, ranges: AddressRanges): boolean {
  if (address instanceof ipaddr.IPv6) return ranges.v6.some(([network, bits]) => address.match(network, bits));
  if (ranges.v4.some(([network, bits]) => address.match(network, bits))) return true;
  if (ranges.v6.length === 0) return false;
  const mapped = address.toIPv4MappedAddress();
  return ranges.v6.some(([network, bits]) => mapped.match(network, bits));
}
