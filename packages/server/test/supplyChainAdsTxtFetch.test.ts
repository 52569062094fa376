import type * as Dns from 'node:dns';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fetchAdsTxt } from '../src/supplyChain/adsTxtFetch.js';
import { type LocalServer, localServer } from './localServer.js';

/**
 * Which ads.txt the live check reads, against ads.txt 1.1 (3.1 redirects, 5.5 subdomains): sites under
 * made-up names (`*.test`, resolved to 127.0.0.1 here), served by one local server by Host header.
 */
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof Dns>();
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) =>
    hostname.endsWith('.test')
      ? callback(null, [{ address: '127.0.0.1', family: 4 }])
      : (dns.lookup as (...a: unknown[]) => void)(hostname, options, callback);
  return { ...dns, default: { ...dns, lookup }, lookup };
});

describe('the ads.txt the check reads', () => {
  let site: LocalServer;
  /** What each `<host>/ads.txt` answers (host without the port); anything else is a 404. */
  let files: Record<string, { status: number; body?: string; location?: string }> = {};
  const hits: string[] = [];
  const at = (name: string) => `${name}:${site.port}`;

  beforeAll(async () => {
    site = await localServer((req, res) => {
      const name = (req.headers.host ?? '').replace(/:\d+$/, '');
      hits.push(name);
      const file = req.url === '/ads.txt' ? files[name] : undefined;
      if (!file) return void res.writeHead(404).end();
      res
        .writeHead(file.status, {
          'content-type': 'text/plain',
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
  const read = (host: string) => fetchAdsTxt(at(host), { allowPrivate: true, timeoutMs: 1000 });

  it("reads the root domain's file for a subdomain the root file does not declare (5.5)", async () => {
    files['pub.test'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    files['www.pub.test'] = { status: 200, body: 'other.test, 2, DIRECT\n' };
    expect(await read('www.pub.test')).toMatchObject({
      ok: true,
      status: 200,
      url: `http://${at('pub.test')}/ads.txt`,
      body: 'adplane.test, 1, DIRECT\n',
    });
  });

  it("reads a subdomain's own file when the root file declares it, else the root's", async () => {
    files['pub.test'] = { status: 200, body: 'adplane.test, 1, DIRECT\nsubdomain=video.pub.test\n' };
    files['video.pub.test'] = { status: 200, body: 'adplane.test, 9, RESELLER\n' };
    expect(await read('video.pub.test')).toMatchObject({
      ok: true,
      url: `http://${at('video.pub.test')}/ads.txt`,
      body: 'adplane.test, 9, RESELLER\n',
    });
    delete files['video.pub.test'];
    expect(await read('video.pub.test')).toMatchObject({ ok: true, url: `http://${at('pub.test')}/ads.txt` });
  });

  it('follows any number of redirects within the root domain, from a subdomain to its siblings too (3.1)', async () => {
    files['pub.test'] = { status: 200, body: 'subdomain=news.pub.test\n' };
    files['news.pub.test'] = { status: 301, location: 'http://static.pub.test:PORT/ads.txt' };
    files['static.pub.test'] = { status: 302, location: 'http://assets.pub.test:PORT/ads.txt' };
    files['assets.pub.test'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    expect(await read('news.pub.test')).toMatchObject({
      ok: true,
      status: 200,
      url: `http://${at('assets.pub.test')}/ads.txt`,
    });
  });

  it('takes one redirect to a third party, and treats a redirect from the third party as an error (3.1)', async () => {
    files['pub.test'] = { status: 301, location: 'http://cdn.host.test:PORT/ads.txt' };
    files['cdn.host.test'] = { status: 200, body: 'adplane.test, 1, DIRECT\n' };
    expect(await read('pub.test')).toMatchObject({ ok: true, url: `http://${at('cdn.host.test')}/ads.txt` });
    files['cdn.host.test'] = { status: 302, location: 'http://pub.test:PORT/real-ads.txt' };
    expect(await read('pub.test')).toMatchObject({ ok: false });
  });
});
