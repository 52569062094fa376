import type * as Dns from 'node:dns';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { appAdsTxtHosts, fetchAppAdsTxt } from '../src/supplyChain/appAdsTxtFetch.js';
import { type LocalServer, localServer } from './localServer.js';

/**
 * Which app-ads.txt the check reads for an app, against IAB app-ads.txt 1.0 ("Translate developer URL
 * to an app-ads.txt path", Appendix A and B): developer sites under made-up names (`*.test`, resolved to
 * 127.0.0.1 here), served by one local server by Host header.
 */
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof Dns>();
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) =>
    hostname.endsWith('.test')
      ? callback(null, [{ address: '127.0.0.1', family: 4 }])
      : (dns.lookup as (...a: unknown[]) => void)(hostname, options, callback);
  return { ...dns, default: { ...dns, lookup }, lookup };
});

describe('the developer host app-ads.txt is read on (Appendix A)', () => {
  it.each([
    ['example.com', ['example.com']],
    ['www.example.com', ['example.com']],
    ['m.example.com', ['example.com']],
    ['subdomain.example.com', ['subdomain.example.com', 'example.com']],
    ['another.subdomain.example.com', ['subdomain.example.com', 'example.com']],
    ['subdomain.www.example.com', ['example.com']],
    ['www.example.co.uk', ['example.co.uk']],
    ['m.example.co.uk', ['example.co.uk']],
    ['another.subdomain.example.co.uk', ['subdomain.example.co.uk', 'example.co.uk']],
    ['subdomain.www.example.co.uk', ['example.co.uk']],
    ['www.example.uk', ['example.uk']],
    ['another.subdomain.example.uk', ['subdomain.example.uk', 'example.uk']],
    ['www.subdomain.example.com', ['subdomain.example.com', 'example.com']],
  ])('%s -> %j', (host, hosts) => expect(appAdsTxtHosts(host)).toEqual(hosts));

  it('keeps a root domain whose own name is www or m, a port, and an IP address as they are', () => {
    expect(appAdsTxtHosts('m.com')).toEqual(['m.com']);
    expect(appAdsTxtHosts('www.dev.test:8080')).toEqual(['dev.test:8080']);
    expect(appAdsTxtHosts('127.0.0.1:8080')).toEqual(['127.0.0.1:8080']);
  });
});

describe('the app-ads.txt the check reads (Appendix B)', () => {
  let site: LocalServer;
  /** What each `<host><path>` answers (host without the port); anything else is a 404. */
  let files: Record<string, { status: number; body?: string; type?: string; location?: string }> = {};
  const hits: string[] = [];
  const at = (name: string) => `${name}:${site.port}`;

  beforeAll(async () => {
    site = await localServer((req, res) => {
      const key = `${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url}`;
      hits.push(key);
      const file = files[key];
      if (!file) return void res.writeHead(404).end();
      res
        .writeHead(file.status, {
          'content-type': file.type ?? 'text/plain',
          ...(file.location ? { location: file.location.replace('PORT', String(site.port)) } : {}),
        })
        .end(file.body ?? '');
    });
  });
  afterAll(() => site.close());
  beforeEach(() => {
    files = {};
    hits.length = 0;
  });
  const read = (host: string) => fetchAppAdsTxt(at(host), { allowPrivate: true, timeoutMs: 1000 });

  it('reads /app-ads.txt, not /ads.txt, on the developer domain with www. and m. dropped, never on the www. host', async () => {
    files['dev.test/ads.txt'] = { status: 200, body: 'web.test, 1, DIRECT\n' };
    files['dev.test/app-ads.txt'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    files['www.dev.test/app-ads.txt'] = { status: 200, body: 'other.test, 2, DIRECT\n' };
    for (const host of ['www.dev.test', 'm.dev.test', 'dev.test']) {
      expect(await read(host), host).toMatchObject({
        ok: true,
        status: 200,
        url: `http://${at('dev.test')}/app-ads.txt`,
        body: 'adplane.test, 1, DIRECT\n',
      });
    }
    expect(hits.filter((h) => h.startsWith('www.') || h.startsWith('m.') || h.endsWith('/ads.txt'))).toEqual([]);
  });

  it("reads a subdomain's own file first, and its parent's only when the subdomain has none", async () => {
    files['dev.test/app-ads.txt'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    files['games.dev.test/app-ads.txt'] = { status: 200, body: 'adplane.test, 9, RESELLER\n' };
    // No subdomain= declaration is needed (ads.txt's rule does not apply), and the first name is the one kept.
    expect(await read('studio.games.dev.test')).toMatchObject({
      ok: true,
      url: `http://${at('games.dev.test')}/app-ads.txt`,
      body: 'adplane.test, 9, RESELLER\n',
    });
    expect(await read('studio.games.dev.test')).not.toHaveProperty('fellBackFrom');

    delete files['games.dev.test/app-ads.txt'];
    expect(await read('games.dev.test')).toMatchObject({
      ok: true,
      url: `http://${at('dev.test')}/app-ads.txt`,
      fellBackFrom: `http://${at('games.dev.test')}/app-ads.txt`,
    });
    // An HTML page answering every path is no file either.
    files['games.dev.test/app-ads.txt'] = { status: 200, type: 'text/html', body: '<html>app</html>' };
    expect(await read('games.dev.test')).toMatchObject({ ok: true, url: `http://${at('dev.test')}/app-ads.txt` });
  });

  it('follows the ads.txt redirect rules: within the root domain, one hop to a third party, no redirect from there', async () => {
    files['dev.test/app-ads.txt'] = { status: 301, location: 'http://cdn.dev.test:PORT/files/app-ads.txt' };
    files['cdn.dev.test/files/app-ads.txt'] = { status: 302, location: 'http://host.test:PORT/app-ads.txt' };
    files['host.test/app-ads.txt'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    expect(await read('www.dev.test')).toMatchObject({ ok: true, url: `http://${at('host.test')}/app-ads.txt` });
    files['host.test/app-ads.txt'] = { status: 302, location: 'http://elsewhere.test:PORT/app-ads.txt' };
    expect(await read('www.dev.test')).toMatchObject({ ok: false, reason: expect.stringContaining('redirects again') });
  });

  it('refuses a redirect to an address the server does not call, as for ads.txt', async () => {
    files['dev.test/app-ads.txt'] = { status: 302, location: 'http://169.254.169.254/latest/meta-data' };
    expect(await read('dev.test')).toMatchObject({ ok: false, reason: expect.stringContaining('cannot be checked') });
  });

  it('stops at the size limit of the ads.txt fetch', async () => {
    files['dev.test/app-ads.txt'] = { status: 200, body: 'x'.repeat(2048) };
    expect(await fetchAppAdsTxt(at('dev.test'), { allowPrivate: true, timeoutMs: 1000, maxBytes: 1024 })).toMatchObject(
      { ok: false, reason: expect.stringContaining('larger than') },
    );
  });
});
