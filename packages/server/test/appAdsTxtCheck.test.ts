import type * as Dns from 'node:dns';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { adsTxtCheckPath } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { type LocalServer, localServer } from './localServer.js';

/**
 * The check of an app channel (in-app, CTV) reads the developer website's /app-ads.txt, not /ads.txt
 * (IAB app-ads.txt 1.0); a web channel still reads /ads.txt; the request may name the file. Against
 * a local test host (ADPLANE_ADSTXT_ALLOW_PRIVATE), with `*.test` names resolved to 127.0.0.1.
 */
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof Dns>();
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) =>
    hostname.endsWith('.test')
      ? callback(null, [{ address: '127.0.0.1', family: 4 }])
      : (dns.lookup as (...a: unknown[]) => void)(hostname, options, callback);
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const LINE = 'ads.northwind.test, nw1-sub-1, DIRECT';

forEachStore((t) => {
  let app: FastifyInstance;
  let strict: FastifyInstance;
  let site: LocalServer;
  let cookie = '';
  const channel: Record<'web' | 'app' | 'ctv', number> = { web: 0, app: 0, ctv: 0 };
  /** What each `<host><path>` answers (host without the port); anything else is a 404. */
  let files: Record<string, string> = {};
  const at = (name: string) => `${name}:${site.port}`;

  beforeAll(async () => {
    site = await localServer((req, res) => {
      const body = files[`${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url}`];
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    });
    app = await buildTestApp(t.store, { adsTxtAllowPrivate: true, publicHost: 'https://adplane.example' });
    strict = await buildTestApp(t.store, { adsTxtAllowPrivate: false });
    cookie = await login(app, 'demand');
    // The demo subpublisher Harbor Video is a PUBLISHER with seller id nw1-sub-1: the same line in all three.
    for (const environment of ['web', 'app', 'ctv'] as const) {
      channel[environment] = (
        await createAs(app, cookie, 'channels', {
          name: `app-ads.txt ${environment} channel`,
          environment,
          subpublisherId: t.users.sub.id,
          domain: 'harborvideo.test',
        })
      ).id;
    }
  });
  afterAll(async () => {
    await app.close();
    await strict.close();
    await site.close();
  });
  beforeEach(() => {
    // Each file names itself in a comment, so the tests see which one was read.
    files = {
      'harbor.test/ads.txt': '# the site ads.txt\nother.test, 1, DIRECT\n',
      'harbor.test/app-ads.txt': `# the developer app-ads.txt\n${LINE}\n`,
    };
  });

  const check = (environment: keyof typeof channel, payload: Record<string, unknown>, on = app) =>
    as(on, cookie, { method: 'POST', url: adsTxtCheckPath(channel[environment]), payload });

  it("reads an app or CTV channel's line in /app-ads.txt on the developer domain, www. dropped", async () => {
    for (const environment of ['app', 'ctv'] as const) {
      const res = await check(environment, { domain: `https://www.${at('harbor.test')}/games` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json(), environment).toEqual({
        status: 'found',
        url: `http://${at('harbor.test')}/app-ads.txt`,
        expected: LINE,
        matches: [{ line: 2, text: LINE }],
        message: 'The line is there (line 2).',
      });
    }
  });

  it('still reads /ads.txt for a web channel, and reads the file the request names whatever the environment', async () => {
    expect((await check('web', { domain: at('harbor.test') })).json()).toMatchObject({
      status: 'missing',
      url: `http://${at('harbor.test')}/ads.txt`,
    });
    expect((await check('web', { domain: at('harbor.test'), file: 'app-ads.txt' })).json()).toMatchObject({
      status: 'found',
      url: `http://${at('harbor.test')}/app-ads.txt`,
    });
    expect((await check('ctv', { domain: at('harbor.test'), file: 'ads.txt' })).json()).toMatchObject({
      status: 'missing',
      url: `http://${at('harbor.test')}/ads.txt`,
    });
    const bad = await check('ctv', { domain: at('harbor.test'), file: 'sellers.json' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('file');
  });

  it("says app-ads.txt in its answers, and which file was read when a subdomain has none and its parent's is read", async () => {
    delete files['harbor.test/app-ads.txt'];
    expect((await check('app', { domain: at('harbor.test') })).json()).toMatchObject({
      status: 'not_adstxt',
      url: `http://${at('harbor.test')}/app-ads.txt`,
      message: `http://${at('harbor.test')}/app-ads.txt answered HTTP 404: the site has no app-ads.txt there.`,
    });
    files['harbor.test/app-ads.txt'] = `${LINE}\n`;
    expect((await check('app', { domain: at('studio.harbor.test') })).json()).toMatchObject({
      status: 'found',
      url: `http://${at('harbor.test')}/app-ads.txt`,
      message: `The line is there (line 1). (http://${at('studio.harbor.test')}/app-ads.txt has no file, so its parent domain's was read.)`,
    });
    files['studio.harbor.test/app-ads.txt'] = 'other.test, 1, DIRECT\n';
    expect((await check('app', { domain: at('studio.harbor.test') })).json()).toMatchObject({
      status: 'missing',
      url: `http://${at('studio.harbor.test')}/app-ads.txt`,
    });
  });

  it("keeps the address guards of the ads.txt check, with the developer's wording", async () => {
    for (const domain of ['127.0.0.1', 'localhost', 'http://169.254.169.254/latest/meta-data', 'harbor.test:8080']) {
      const res = await check('ctv', { domain }, strict);
      expect(res.statusCode, domain).toBe(400);
      expect(res.json().field).toBe('domain');
    }
    expect((await check('ctv', { domain: '127.0.0.1' }, strict)).json().message).toContain(
      'app-ads.txt belongs to a domain',
    );
    expect((await check('ctv', { domain: 'http://exa mple.com' }, strict)).json().message).toContain(
      "Enter the developer's website domain",
    );
  });
});
