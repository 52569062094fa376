import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';

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

const NEVER = new BlockList();
// (and two clouds' metadata services on private addresses: Alibaba's, AWS's IPv6 one)
for (const [net, prefix] of [['0.0.0.0', 8], ['169.254.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4], ['100.100.100.200', 32]] as const) NEVER.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['fe80::', 10], ['ff00::', 8], ['fd00:ec2::254', 128]] as const) NEVER.addSubnet(net, prefix, 'ipv6');

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits (the packet may reach that IPv4
 * address through a translator): IPv4-compatible (::/96, deprecated), IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96) and the NAT64 prefixes (64:ff9b::/96, 64:ff9b:1::/48). They are
 * judged by that IPv4 address (and by the rules of IPv6 as well).
 */
const EMBEDS_IPV4 = new BlockList();
for (const [net, prefix] of [['::', 96], ['::ffff:0:0', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48]] as const) EMBEDS_IPV4.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (valid per isIP), '::' expanded and a dotted IPv4 tail read. */
export function ipv6Bytes(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (dotted) {
    tail = dotted[1]!.split('.').map(Number);
    text = text.slice(0, -dotted[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '') : []);
  const left = groups(head);
  const right = groups(rest);
  const all = rest === undefined ? left : [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Whether `address` (an IP) is outside `list`; an IPv6 form carrying an IPv4 address must have both outside. A non-address never is. */
function outside(list: BlockList, address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return !list.check(bare, 'ipv4');
  if (list.check(bare, 'ipv6')) return false;
  // ::1 and :: are IPv6's own (loopback, unspecified), judged above
  if (EMBEDS_IPV4.check(bare, 'ipv6') && bare !== '::1' && bare !== '::') {
    const b = ipv6Bytes(bare);
    return !list.check(`${b[12]}.${b[13]}.${b[14]}.${b[15]}`, 'ipv4');
  }
  return true;
}

/** A public unicast address (IPv4-mapped IPv6 is judged by its IPv4 address). */
export const isPublicAddress = (address: string): boolean => outside(NOT_PUBLIC, address);

/** Whether the server may connect to `address` at all: with private addresses allowed, all but NEVER's. */
export const isCallableAddress = (address: string, allowPrivate: boolean): boolean => (allowPrivate ? outside(NEVER, address) : isPublicAddress(address));

/** The error a refused address fails a connection with: `code` says which, for the callers' reasons. */
export const ADDRESS_REFUSED = 'EADDRNOTPUBLIC';
export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
  constructor(host: string, address: string) {
    super(`${host} is at ${address || 'no address'}, which this server does not call`);
  }
}

/** Whether an error (or its cause, as undici wraps some) is a refused address. */
export function isAddressRefused(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
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
      if (refused || list.length === 0) return callback(new AddressRefusedError(hostname, refused?.address ?? ''), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
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
export function outboundPolicy(allowPrivate: boolean, operatorUrls: readonly (string | null | undefined)[]): OutboundPolicy {
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
export function guardedConnector(policy: OutboundPolicy, socketOptions: buildConnector.BuildOptions = {}): buildConnector.connector {
  const open = buildConnector(socketOptions);
  const guarded = buildConnector({ ...socketOptions, lookup: guardedLookup(policy.allowPrivate) });
  return (options, callback) => {
    const host = options.hostname.toLowerCase();
    const port = options.port || (options.protocol === 'https:' ? '443' : '80');
    // (an IPv6 host as a URL writes it, in brackets, which undici may have taken off)
    const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    if (policy.trustedOrigins.has(`${options.protocol}//${urlHost}:${port}`)) return open(options, callback);
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0 && !isCallableAddress(bare, policy.allowPrivate)) {
      queueMicrotask(() => callback(new AddressRefusedError(host, bare), null));
      return;
    }
    return guarded(options, callback);
  };
}
