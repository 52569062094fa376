import { networkInterfaces } from 'node:os';
import { type AddressInfo, isIP } from 'node:net';
import { type FastifyInstance } from 'fastify';

/**
 * Whether a URL addresses one of this server's own decision entry points: the paths where a request
 * starts an ad decision (a VAST tag, an OpenRTB bid request, a Prebid Server auction), on an origin
 * that reaches this server. A demand tag or exchange endpoint there makes every decision call the
 * edge again, and that decision calls it again: one request becomes a storm (two RTB tags in a ring
 * double it at each hop). Such a URL is refused when it is saved and when it would be called, unless
 * the operator allows demand on the server's own origin (ADPLANE_ALLOW_SELF_DEMAND=1).
 *
 * The origins known here: the public host (ADPLANE_HOST), and the address the server listens on with
 * every loopback name and address at its port (and, listening on every interface, the machine's
 * own addresses at that port). A name that only DNS points at the server is not known here: the hop
 * marker every call of the edge carries catches it when it arrives (edge/request/demandHops.ts).
 */

/** The paths of the decision entry points: a prefix ends with '/'. Notices (/rtb/win) and syncs (/rtb/sync/) start no decision. */
const DECISION_PATHS = ['/vast/', '/rtb/', '/openrtb2/auction', '/openrtb2/amp'] as const;
const NOT_DECISIONS = ['/rtb/win', '/rtb/sync/'] as const;

/**
 * The decision entry point `path` is on ('/vast/', '/rtb/', ...), or null. Read loosely, so that no
 * spelling a router might take slips by: percent-escapes decoded, repeated slashes as one, any case.
 */
export function decisionEntryOf(path: string): string | null {
  let p = path;
  try {
    p = decodeURIComponent(path);
  } catch {
    // (a stray '%': read as written)
  }
  p = p.replace(/\/{2,}/g, '/').toLowerCase();
  if (NOT_DECISIONS.some((n) => (n.endsWith('/') ? p.startsWith(n) : p === n || p === `${n}/`))) return null;
  for (const entry of DECISION_PATHS) {
    if (entry.endsWith('/') ? p.startsWith(entry) : p === entry || p === `${entry}/`) return entry;
  }
  return null;
}

/** Where the server listens: its host as configured (HOST) and its port (the one it got, once listening). */
export interface Listening {
  host: string;
  port: number;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);

/** A loopback name or address: localhost and its subdomains, 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host.startsWith('::ffff:127.') || /^::ffff:7f[0-9a-f]{2}:/.test(host);
}

/** The host of a URL as compared here: lower case, without brackets or a trailing dot. */
const bareHost = (hostname: string): string =>
  hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/** The addresses of the machine's own interfaces (asked for only when the server listens on all of them). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(a.address.toLowerCase());
  return out;
}

/**
 * A test of URLs against the server's own decision entry points. `listening()` is read at each test:
 * the port a server got is only known once it listens (null before: the configured one).
 */
export function ownEntryPoints(
  publicHost: string,
  configured: Listening,
  listening: () => Listening | null = () => null,
): (url: string) => string | null {
  let publicKey = '';
  try {
    const u = new URL(publicHost);
    publicKey = `${bareHost(u.hostname)}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    // (settings checked it: an http(s) URL)
  }
  let interfaces: Set<string> | null = null;
  return (url: string): string | null => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    const entry = decisionEntryOf(u.pathname);
    if (!entry) return null;
    const host = bareHost(u.hostname);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (`${host}:${port}` === publicKey) return entry;
    const at = listening() ?? configured;
    if (port !== String(at.port)) return null;
    const listenHost = bareHost(at.host);
    if (host === listenHost || isLoopback(host) || UNSPECIFIED.has(host)) return entry;
    if (!UNSPECIFIED.has(listenHost)) return null;
    interfaces ??= interfaceAddresses();
    return interfaces.has(host) ? entry : null;
  };
}

/** The app's own entry points: its public host, and the address it listens on (its settings' until it does). */
export function ownEntryPointsOf(app: FastifyInstance): (url: string) => string | null {
  const { settings } = app;
  const listening = (): Listening | null => {
    const at = app.server.listening ? (app.server.address() as AddressInfo | string | null) : null;
    return at && typeof at === 'object' ? { host: settings.host, port: at.port } : null;
  };
  return ownEntryPoints(settings.publicHost, { host: settings.host, port: settings.port }, listening);
}

/** The demand URL fields of a demand tag or an ad exchange as saved, by field: the ones its integration calls. */
export function demandUrlFields(kind: string, body: unknown): [field: string, url: string][] {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const out: [string, string][] = [];
  const add = (field: string) => {
    if (typeof b[field] === 'string' && b[field]) out.push([field, b[field].trim()]);
  };
  if (kind === 'tags') {
    const integration = b.integration ?? 'VAST';
    if (integration === 'VAST') add('vastUrl');
    if (integration === 'RTB') add('endpoint');
  } else if (kind === 'adexchanges') add('endpoint');
  return out;
}
