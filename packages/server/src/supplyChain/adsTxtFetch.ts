import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { type AdsTxtFileName } from '@adplane/shared';
import { guardedLookup, isCallableAddress } from '../http/outboundAddress.js';
import { parseAdsTxt } from './adsTxt.js';
import { rootDomainOf } from './sellers.js';

/**
 * Fetches a publisher's /ads.txt for the console's check, on a user's request, with the guards a
 * server-side fetch of a user-given address needs (SSRF). An app's /app-ads.txt is read by the same
 * path (fetchFileAt, ./appAdsTxtFetch.ts picks the hosts), so both files get the same guards:
 * - only a host name is taken from the user (`example.com`, or a URL whose host is used); the path is
 *   always /ads.txt (or /app-ads.txt), the scheme https then http (the spec prefers https and allows http);
 * - the file read is the one crawlers read (ads.txt 1.1, 5.5): the root domain's (`www.example.com`
 *   and `news.example.com` are `example.com`), and a subdomain's own file only when the root file
 *   declares it with `subdomain=` and the subdomain has one;
 * - no IP literals, no single-label names, no ports, no user info;
 * - every address the name resolves to must be public: loopback, private, link-local, CGNAT,
 *   multicast and reserved ranges are refused, and the connection goes to the address that was
 *   checked (no second lookup a DNS rebinding could change);
 * - redirects (301, 302, 303, 307, 308) are followed at most 5 times, each hop checked the same way,
 *   as long as they stay within the root domain asked for (ads.txt 1.1, 3.1); one may leave it (a
 *   delegation to a third party's server), and a redirect from there is an error;
 * - 3 seconds per attempt and 2 MB of body at most.
 * `allowPrivate` (ADPLANE_ADSTXT_ALLOW_PRIVATE=1) lifts the address and port rules, for tests and local installs.
 */

const ADS_TXT_TIMEOUT_MS = 3000;
const ADS_TXT_MAX_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface FetchOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

export type FetchOutcome =
  | { ok: true; url: string; status: number; contentType: string; body: string }
  | { ok: false; url: string | null; reason: string };

export class AdsTxtTargetError extends Error {}

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The host to check from what a user typed: `example.com`, `www.example.com`, `https://example.com/x`.
 * Throws AdsTxtTargetError with a sentence for the user when it is not a public host name.
 */
export function adsTxtHost(input: string, allowPrivate: boolean, file: AdsTxtFileName = 'ads.txt'): string {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    // app-ads.txt lives on the developer's website (the one the app's store listing links to), not on a publisher's site
    throw new AdsTxtTargetError(
      file === 'app-ads.txt'
        ? "Enter the developer's website domain, such as example.com."
        : "Enter the publisher's domain, such as example.com.",
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AdsTxtTargetError('Only http and https addresses can be checked.');
  if (url.username || url.password) throw new AdsTxtTargetError('Enter the domain without a user name or password.');
  const hostname = url.hostname.replace(/\.$/, '').toLowerCase();
  if (allowPrivate) {
    // an IP literal is connected to without a lookup: the rule that no setting lifts is checked here
    const literal = hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !isCallableAddress(literal, true))
      throw new AdsTxtTargetError(`${literal} is not an address this server calls (link-local, metadata or reserved).`);
    return url.port ? `${hostname}:${url.port}` : hostname;
  }
  if (url.port)
    throw new AdsTxtTargetError(`Enter the domain without a port: ${file} is read from the standard ports.`);
  if (isIP(hostname.replace(/^\[|\]$/g, '')))
    throw new AdsTxtTargetError(`Enter a domain name, not an IP address: ${file} belongs to a domain.`);
  if (!HOST_NAME.test(hostname)) throw new AdsTxtTargetError(`"${hostname}" is not a domain name such as example.com.`);
  return hostname;
}

const sizeText = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;

function getOnce(
  url: URL,
  options: Required<FetchOptions>,
): Promise<{ response: IncomingMessage; body: string } | { redirect: string; status: number }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { 'user-agent': 'adplane-adstxt-check/1.0', accept: 'text/plain, */*;q=0.5' },
      lookup: guardedLookup(options.allowPrivate),
      timeout: options.timeoutMs,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && location) {
        clearTimeout(timer);
        response.resume();
        resolve({ redirect: new URL(location, url).toString(), status });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          // Rejected here, and the request destroyed without an error: when the chunk over the limit is
          // the last one, `end` is already queued and an error given to destroy() is emitted after the
          // promise settled, with no listener (an uncaught exception), while `end` resolves the cut body.
          clearTimeout(timer);
          reject(new Error(`the file is larger than ${sizeText(options.maxBytes)}`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      response.on('end', () => {
        if (size > options.maxBytes) return;
        clearTimeout(timer);
        resolve({ response, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end();
  });
}

/** The root domain of a URL host (Public Suffix List + 1, as the spec defines it); a host without one (an IP address) stands for itself. */
const rootOfHost = (host: string): string => rootDomainOf(host) || host.replace(/:\d+$/, '');

/** GET <url>, following redirects within the rules above. */
async function fetchFollowing(start: URL, options: Required<FetchOptions>): Promise<FetchOutcome> {
  let url = start;
  const root = rootOfHost(start.host);
  let delegated = false;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let answer: Awaited<ReturnType<typeof getOnce>>;
    try {
      answer = await getOnce(url, options);
    } catch (error) {
      return { ok: false, url: url.toString(), reason: (error as Error).message };
    }
    if ('body' in answer) {
      return {
        ok: true,
        url: url.toString(),
        status: answer.response.statusCode ?? 0,
        contentType: String(answer.response.headers['content-type'] ?? ''),
        body: answer.body,
      };
    }
    let next: URL;
    try {
      next = new URL(answer.redirect);
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new AdsTxtTargetError('redirects to an address that is not http or https');
      adsTxtHost(next.toString(), options.allowPrivate);
    } catch (error) {
      return {
        ok: false,
        url: url.toString(),
        reason: `it redirects to ${answer.redirect}, which cannot be checked: ${(error as Error).message}`,
      };
    }
    if (delegated)
      return {
        ok: false,
        url: url.toString(),
        reason: `${url.host}, outside ${root}, redirects again (the ads.txt spec allows one redirect to a third party, which must answer the file itself)`,
      };
    delegated = rootOfHost(next.host) !== root;
    url = next;
  }
  return { ok: false, url: url.toString(), reason: `more than ${MAX_REDIRECTS} redirects` };
}

export const withDefaults = (options: FetchOptions): Required<FetchOptions> => ({
  timeoutMs: ADS_TXT_TIMEOUT_MS,
  maxBytes: ADS_TXT_MAX_BYTES,
  ...options,
});

/**
 * https://<host>/<file>, then http://<host>/<file> when https gives no answer or no file: the one
 * fetch of both ads.txt and app-ads.txt (the app-ads.txt spec asks for the same https-then-http order).
 */
export async function fetchFileAt(
  host: string,
  file: AdsTxtFileName,
  full: Required<FetchOptions>,
): Promise<FetchOutcome> {
  const https = await fetchFollowing(new URL(`https://${host}/${file}`), full);
  if (https.ok && https.status >= 200 && https.status < 300) return https;
  const http = await fetchFollowing(new URL(`http://${host}/${file}`), full);
  // Report the https attempt when http did no better.
  if (!http.ok && https.ok) return https;
  return http.ok || !https.ok ? http : https;
}

export const is2xx = (o: FetchOutcome): o is Extract<FetchOutcome, { ok: true }> =>
  o.ok && o.status >= 200 && o.status < 300;

/**
 * The ads.txt crawlers read for a host (ads.txt 1.1, 5.5): "the crawler should strip the subdomains",
 * so a host is checked against its root domain's file, unless that file names the host with
 * `subdomain=` and the host serves a file of its own: then only that file counts. `host` may carry a
 * port (test hosts), kept on the root domain.
 */
export async function fetchAdsTxt(host: string, options: FetchOptions): Promise<FetchOutcome> {
  const full = withDefaults(options);
  const name = host.replace(/:\d+$/, '');
  const root = rootDomainOf(name);
  if (!root || root === name) return fetchFileAt(host, 'ads.txt', full);
  const rootFile = await fetchFileAt(host.replace(name, root), 'ads.txt', full);
  if (!is2xx(rootFile)) return rootFile;
  const declared = parseAdsTxt(rootFile.body).variables.some(
    (v) => v.name === 'subdomain' && v.value.toLowerCase().replace(/\.$/, '') === name,
  );
  if (!declared) return rootFile;
  const own = await fetchFileAt(host, 'ads.txt', full);
  return is2xx(own) ? own : rootFile;
}
