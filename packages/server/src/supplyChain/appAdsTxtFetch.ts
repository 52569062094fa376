import { type FetchOptions, type FetchOutcome, fetchFileAt, is2xx, withDefaults } from './adsTxtFetch.js';
import { rootDomainOf } from './sellers.js';

/**
 * Which /app-ads.txt the check reads for an app (IAB app-ads.txt 1.0, "Translate developer URL to an
 * app-ads.txt path"): an app has no site, so its sellers are listed on the developer's website, the
 * URL its store listing gives. The host of that URL is canonicalized:
 * 1. keep at most one name before the root domain (Public Suffix List + 1): `another.sub.example.co.uk`
 *    is `sub.example.co.uk`;
 * 2. drop a `www.` or `m.` left in front: `www.example.com`, `m.example.com` and `sub.www.example.com`
 *    are `example.com` (never the root domain's own first label: `m.com` stays itself);
 * then `/app-ads.txt` on that host is read (https, then http: ./adsTxtFetch.ts, with all its guards),
 * and, for a subdomain with no file, the root domain's ("only defaulting to the app-ads.txt file found
 * on the subdomain's parent if no file is found on that subdomain"). Unlike ads.txt, a `subdomain=`
 * line means nothing here ("should be ignored if encountered").
 */

/** The hosts to read, in order: the canonical host, then its root domain when it is a subdomain. `host` may carry a port (test hosts). */
export function appAdsTxtHosts(host: string): string[] {
  const port = /:\d+$/.exec(host)?.[0] ?? '';
  const name = port ? host.slice(0, -port.length) : host;
  const root = rootDomainOf(name);
  // An IP address (allowed only with the test setting) or a public suffix alone: read as given.
  if (!root || root === name) return [host];
  const first =
    name
      .slice(0, -root.length - 1)
      .split('.')
      .pop() ?? '';
  const canonical = first === 'www' || first === 'm' ? root : `${first}.${root}`;
  return canonical === root ? [root + port] : [canonical + port, root + port];
}

/** The file counts as found when it answers 2xx and is not an HTML page (a soft 404, which a subdomain answering every path gives). */
const foundFile = (o: FetchOutcome): boolean =>
  is2xx(o) && o.contentType.split(';')[0].trim().toLowerCase() !== 'text/html';

export type AppAdsTxtOutcome = FetchOutcome & {
  /** The subdomain's /app-ads.txt URL that had no file, when the root domain's was read instead. */
  fellBackFrom?: string;
};

export async function fetchAppAdsTxt(host: string, options: FetchOptions): Promise<AppAdsTxtOutcome> {
  const full = withDefaults(options);
  const [first, parent] = appAdsTxtHosts(host);
  const own = await fetchFileAt(first, 'app-ads.txt', full);
  if (!parent || foundFile(own)) return own;
  const rootFile = await fetchFileAt(parent, 'app-ads.txt', full);
  return { ...rootFile, fellBackFrom: own.url ?? `https://${first}/app-ads.txt` };
}
