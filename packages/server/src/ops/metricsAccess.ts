import { timingSafeEqual } from 'node:crypto';
import { type FastifyRequest } from 'fastify';
import { addressRanges, inRanges, readAddress } from '../http/addressRanges.js';

/**
 * Who may scrape /metrics (it tells sign-in failures, traffic by route and process details): a
 * client whose address is in ADPLANE_METRICS_ALLOW (addresses or CIDR ranges; loopback by default),
 * or any client with `Authorization: Bearer <ADPLANE_METRICS_TOKEN>` when a token is set. The
 * address is the one Fastify sees, i.e. the X-Forwarded-For client only with ADPLANE_TRUST_PROXY.
 */
export interface MetricsAccess {
  /** Addresses or CIDR ranges; empty: no address is enough on its own. */
  allow: string[];
  token: string | null;
}

const DEFAULT_METRICS_ALLOW = ['127.0.0.1/8', '::1'];

/** '' or a list like "10.0.0.0/8, 192.0.2.7, ::1"; 'none' for no address. Throws on a bad entry. */
export function parseAllowList(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return DEFAULT_METRICS_ALLOW;
  if (value.trim() === 'none') return [];
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  addressRanges(entries);
  return entries;
}

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function metricsGate(access: MetricsAccess): (request: FastifyRequest) => boolean {
  const ranges = addressRanges(access.allow);
  return (request) => {
    const auth = request.headers.authorization;
    if (
      access.token &&
      typeof auth === 'string' &&
      auth.startsWith('Bearer ') &&
      sameSecret(auth.slice(7).trim(), access.token)
    )
      return true;
    // (an IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d: readAddress reads it as IPv4)
    const address = readAddress(request.ip);
    return address !== null && inRanges(address, ranges);
  };
}
