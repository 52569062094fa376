import { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

/**
 * The address a request comes from, read as Fastify reads `request.ip` (its trustProxy, here from
 * ADPLANE_TRUST_PROXY): the connection's; behind proxies, the first address of X-Forwarded-For from
 * the right that is not one of the trusted ones (with every proxy trusted, the leftmost). The edge
 * answers on its own lane (http/edgeLane.ts), before Fastify, so it reads it here, the same way.
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

const TRUST_NONE: ProxyTrust = () => false;
const TRUST_ALL: ProxyTrust = () => true;

/** The trust of ADPLANE_TRUST_PROXY: none (false), every proxy (true), or a comma-separated list of addresses and ranges. */
export function proxyTrust(setting: boolean | string): ProxyTrust {
  if (setting === false) return TRUST_NONE;
  if (setting === true) return TRUST_ALL;
  return proxyaddr.compile(
    setting
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  );
}

interface AddressedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/** The client's address ('' when the connection has none). */
export function clientAddress(req: AddressedRequest, trust: ProxyTrust): string {
  // the common case, at no cost: nothing forwarded, or no proxy trusted
  if (trust === TRUST_NONE || req.headers['x-forwarded-for'] === undefined) return req.socket.remoteAddress ?? '';
  return proxyaddr(req as unknown as IncomingMessage, trust);
}
