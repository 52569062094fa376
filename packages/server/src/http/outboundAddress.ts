import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { type Address, addressRanges, inRanges, readAddress } from './addressRanges.js';

/**
 * Which addresses the server may call on its own (SSRF guards). The edge calls URLs that others
 * chose: a tenant's demand tags and exchange endpoints, and, inside demand answers, wrapper URIs,
 * error trackers and win, loss and billing notices. Without a guard, such a URL could make the
 * server reach what only it can reach: a cloud's metadata service, an internal admin port, a
 * database on the private network.
 *
 * - Never: link-local (169.254.0.0/16, where clouds serve instance credentials; fe80::/10), the
 *   unspecified and "this network" addresses, multicast, broadcast and reserved ranges.
 * - Only when allowed (ADPLANE_DEMAND_ALLOW_PRIVATE=1, or the ads.txt check's own switch):
 *   loopback, private (RFC 1918, fc00::/7), carrier-grade NAT and the documentation ranges.
 * - The operator's own origins (the server's public host, the Prebid Server it is given) are
 *   always callable: they are configuration, not input.
 *
 * The check is made on the address the connection goes to, after DNS: a name is resolved once,
 * every address it gives must pass, and the socket connects to the address checked (no second
 * lookup a DNS rebinding could change). An IP literal is checked as it is.
 */

/**
 * Never called, whatever the switch: "this network" 0/8, link-local 169.254/16 (where clouds serve
 * instance credentials), multicast, reserved and broadcast (224 and up), Alibaba's metadata service
 * on a carrier-grade NAT address (100.100.100.200); the unspecified address ::, link-local fe80::/10,
 * multicast ff00::/8 and AWS's metadata fd00:ec2::254.
 */
const NEVER = addressRanges([
  '0.0.0.0/8',
  '169.254.0.0/16',
  '224.0.0.0/3',
  '100.100.100.200',
  '::/128',
  'fe80::/10',
  'ff00::/8',
  'fd00:ec2::254',
]);

/**
 * Called only when private addresses are allowed: private (RFC 1918), carrier-grade NAT 100.64/10,
 * loopback, the IETF's 192.0.0/24, documentation, benchmarking 198.18/15; IPv6 loopback, unique-local
 * fc00::/7, documentation 2001:db8::/32 and discard 100::/64. With NEVER, the same space the traffic
 * check calls reserved (ivt/ipAddress.ts isReservedV4 and isReservedV6; a test holds them equal).
 */
const PRIVATE = addressRanges([
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '::1/128',
  'fc00::/7',
  '2001:db8::/32',
  '100::/64',
]);

const range = (cidr: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(cidr);
const COMPATIBLE = range('::/96');
const OWN_V6 = range('::/127');
const TRANSLATED = range('::ffff:0:0:0/96');
const NAT64 = [range('64:ff9b::/96'), range('64:ff9b:1::/48')];
const SIX_TO_FOUR = range('2002::/16');
const TEREDO = range('2001::/32');

/** The IPv4 address in two 16-bit groups of an IPv6 address (inverted: Teredo's client). */
const v4Of = (hi: number, lo: number, invert = false): ipaddr.IPv4 => {
  const bits = (((hi << 16) | lo) ^ (invert ? 0xffffffff : 0)) >>> 0;
  return new ipaddr.IPv4([bits >>> 24, (bits >>> 16) & 255, (bits >>> 8) & 255, bits & 255]);
};

/**
 * The IPv4 addresses an IPv6 address carries, which a packet to it may reach through a translator or
 * a tunnel: IPv4-compatible (::/96, deprecated; not :: and ::1, IPv6's own), IPv4-translated
 * (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48) in the last 32 bits; 6to4 (2002::/16) in
 * the 32 bits after the prefix; Teredo (2001::/32) its server's after the prefix and its client's,
 * inverted, in the last 32. (IPv4-mapped addresses readAddress reads as IPv4.)
 */
function carriedV4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  if (address.match(COMPATIBLE)) return address.match(OWN_V6) ? [] : [v4Of(p[6]!, p[7]!)];
  if (address.match(TRANSLATED) || NAT64.some((n) => address.match(n))) return [v4Of(p[6]!, p[7]!)];
  if (address.match(SIX_TO_FOUR)) return [v4Of(p[1]!, p[2]!)];
  if (address.match(TEREDO)) return [v4Of(p[2]!, p[3]!), v4Of(p[6]!, p[7]!, true)];
  return [];
}

const callable = (address: Address, allowPrivate: boolean): boolean =>
  !inRanges(address, NEVER) && (allowPrivate || !inRanges(address, PRIVATE));

/**
 * Whether the server may connect to `address` (an IP, IPv6 in brackets or not, as addressRanges.ts
 * reads it): with private addresses allowed, all but the never-called ones; else public addresses
 * only. An IPv6 address carrying IPv4 ones must pass as each of them. A non-address never may, nor
 * an IPv4 address in another spelling than four decimal parts (0x7f.1, 2130706433, 0177.0.0.1).
 */
export function isCallableAddress(address: string, allowPrivate: boolean): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const parsed = readAddress(bare);
  if (!parsed) return false;
  if (!callable(parsed, allowPrivate)) return false;
  return !(parsed instanceof ipaddr.IPv6) || carriedV4(parsed).every((v4) => callable(v4, allowPrivate));
}

/** A public unicast address (an IPv6 one carrying an IPv4 address judged by both). */
export const isPublicAddress = (address: string): boolean => isCallableAddress(address, false);

/** The error a refused address fails a connection with: `code` says which, for the callers' reasons. */
const ADDRESS_REFUSED = 'EADDRNOTPUBLIC';
class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
  constructor(host: string, address: string) {
    super(`${host} is at ${address || 'no address'}, which this server does not call`);
  }
}

/** Whether an error (or its cause, as undici wraps some) is a refused address. */
export function isAddressRefused(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === ADDRESS_REFUSED) return true;
  }
  return false;
}

/** A lookup for net.connect and http(s).request that refuses addresses the rule refuses and connects to the one it checked. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = list.find((a) => !isCallableAddress(a.address, allowPrivate));
      if (refused || list.length === 0)
        return callback(new AddressRefusedError(hostname, refused?.address ?? ''), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** What the server's own calls to demand may reach. */
export interface OutboundPolicy {
  /** Loopback and private networks too (ADPLANE_DEMAND_ALLOW_PRIVATE=1: tests, a local install, demand on the operator's network). */
  allowPrivate: boolean;
  /** Origins always callable (`http://host:port`, lower case, the port always written): the operator's own. */
  trustedOrigins: ReadonlySet<string>;
}

/** The origin of a URL as OutboundPolicy.trustedOrigins keys it, or null when it is not an http(s) URL. */
export function originKey(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.protocol}//${u.hostname.toLowerCase()}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return null;
  }
}

/** A policy from settings: the switch, and the operator's URLs whose origins are trusted (unset ones skipped). */
export function outboundPolicy(
  allowPrivate: boolean,
  operatorUrls: readonly (string | null | undefined)[],
): OutboundPolicy {
  const trustedOrigins = new Set<string>();
  for (const url of operatorUrls) {
    const key = url ? originKey(url) : null;
    if (key) trustedOrigins.add(key);
  }
  return { allowPrivate, trustedOrigins };
}

/** Everything callable (tests that call their own local servers, with no rule to test). */
export const ANY_ADDRESS: OutboundPolicy = { allowPrivate: true, trustedOrigins: new Set() };

/**
 * undici's connector under `policy`: a trusted origin connects as usual; an IP literal is checked as
 * it is; a name is resolved by guardedLookup. (undici's own options for the socket: `socketOptions`.)
 */
export function guardedConnector(
  policy: OutboundPolicy,
  socketOptions: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const open = buildConnector(socketOptions);
  const guarded = buildConnector({ ...socketOptions, lookup: guardedLookup(policy.allowPrivate) });
  return (options, callback) => {
    const host = options.hostname.toLowerCase();
    const port = options.port || (options.protocol === 'https:' ? '443' : '80');
    // (an IPv6 host as a URL writes it, in brackets, which undici may have taken off)
    const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    if (policy.trustedOrigins.has(`${options.protocol}//${urlHost}:${port}`)) return open(options, callback);
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    // an IP literal in any spelling node or ipaddr.js reads (0x7f.1 too) is judged as written, before any lookup
    if ((isIP(bare) !== 0 || ipaddr.isValid(bare)) && !isCallableAddress(bare, policy.allowPrivate)) {
      queueMicrotask(() => callback(new AddressRefusedError(host, bare), null));
      return;
    }
    return guarded(options, callback);
  };
}
