import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { INVALID, IPV4, ip, isReservedV4, isReservedV6, parseIp } from '../ivt/ipAddress.js';
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

/**
 * Never called, whatever the switch (IPv4): "this network" 0/8, link-local 169.254/16 (where clouds
 * serve instance credentials), multicast, reserved and broadcast (224 and up), and Alibaba's metadata
 * service on a carrier-grade NAT address (100.100.100.200).
 */
function neverV4(v4: number): boolean {
  const a = v4 >>> 24;
  return a === 0 || a >= 224 || v4 >>> 16 === 0xa9fe || v4 === 0x646464c8;
}

/** The same for the IPv6 address parseIp read last: unspecified, link-local fe80::/10, multicast ff00::/8, AWS's metadata fd00:ec2::254. */
function neverV6(): boolean {
  const w = ip.words;
  if ((w[0]! & 0xffc0) === 0xfe80 || (w[0]! & 0xff00) === 0xff00) return true;
  if (w[0] === 0xfd00 && w[1] === 0x0ec2 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0 && w[6] === 0 && w[7] === 0x254) return true;
  return w.every((g) => g === 0);
}

/**
 * The IPv4 address the IPv6 address parseIp read last carries in its last 32 bits, or -1: the
 * packet may reach it through a translator. IPv4-compatible (::/96, deprecated; not :: and ::1,
 * IPv6's own), IPv4-translated (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48).
 * (IPv4-mapped addresses parseIp reads as IPv4.)
 */
function embeddedV4(): number {
  const w = ip.words;
  const v4 = ((w[6]! << 16) | w[7]!) >>> 0;
  const zeros = (from: number, to: number) => w.subarray(from, to).every((g) => g === 0);
  if (zeros(0, 6) && v4 > 1) return v4;
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return v4;
  if (w[0] === 0x64 && w[1] === 0xff9b && (zeros(2, 6) || w[2] === 1)) return v4;
  return -1;
}

/**
 * Whether the server may connect to `address` (an IP, IPv6 in brackets or not): with private
 * addresses allowed, all but the never-called ones; else public addresses only (ivt/ipAddress.ts:
 * the same reserved ranges the traffic check reads). An IPv6 address carrying an IPv4 one must pass
 * as both. A non-address never may.
 */
export function isCallableAddress(address: string, allowPrivate: boolean): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = parseIp(bare);
  if (family === INVALID) return false;
  if (family === IPV4) return allowPrivate ? !neverV4(ip.v4) : !isReservedV4(ip.v4);
  if (allowPrivate ? neverV6() : isReservedV6()) return false;
  const v4 = embeddedV4();
  return v4 < 0 || (allowPrivate ? !neverV4(v4) : !isReservedV4(v4));
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
