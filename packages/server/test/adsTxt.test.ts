import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { adsTxtCheckPath, adsTxtLinePath } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { freePort, type LocalServer, localServer } from './localServer.js';

/**
 * The ads.txt line of a channel and the check of a publisher's ads.txt, against a local test host
 * (node:http on 127.0.0.1, reachable because the app runs with ADPLANE_ADSTXT_ALLOW_PRIVATE).
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let strict: FastifyInstance;
  let site: LocalServer;
  let siteHost = '';
  let answer: { status: number; type: string; body: string; location?: string } = {
    status: 200,
    type: 'text/plain',
    body: '',
  };
  const cookies: Record<string, string> = {};
  let channelId = 0;
  let ownChannelId = 0;

  beforeAll(async () => {
    site = await localServer((req, res) => {
      if (req.url !== '/ads.txt') return void res.writeHead(404).end();
      res
        .writeHead(answer.status, {
          'content-type': answer.type,
          ...(answer.location ? { location: answer.location } : {}),
        })
        .end(answer.body);
    });
    siteHost = `127.0.0.1:${site.port}`;
    app = await buildTestApp(t.store, { adsTxtAllowPrivate: true, publicHost: 'https://adplane.example' });
    strict = await buildTestApp(t.store, { adsTxtAllowPrivate: false });
    for (const role of ['demand', 'sub', 'adv', 'acme']) cookies[role] = await login(app, role);
    // The demo subpublisher Harbor Video is a PUBLISHER with seller id nw1-sub-1.
    channelId = (
      await createAs(app, cookies.demand, 'channels', {
        name: 'ads.txt channel',
        subpublisherId: t.users.sub.id,
        domain: 'harborvideo.test',
      })
    ).id;
    ownChannelId = (
      await createAs(app, cookies.demand, 'channels', {
        name: 'ads.txt channel without subpublisher',
        domain: 'somesite.test',
      })
    ).id;
  });
  afterAll(async () => {
    await app.close();
    await strict.close();
    await site.close();
  });
  beforeEach(() => {
    answer = { status: 200, type: 'text/plain; charset=utf-8', body: '' };
  });

  const check = (domain: string, role = 'demand', on = app) =>
    as(on, cookies[role], { method: 'POST', url: adsTxtCheckPath(channelId), payload: { domain } });

  it("gives the line of a channel: the tenant's domain, the subpublisher's seller id, DIRECT for a publisher", async () => {
    const res = await as(app, cookies.demand, { method: 'GET', url: adsTxtLinePath(channelId) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      line: 'ads.northwind.test, nw1-sub-1, DIRECT',
      domain: 'ads.northwind.test',
      sellerId: 'nw1-sub-1',
      relationship: 'DIRECT',
      seller: { source: 'subpublisher', name: 'Harbor Video' },
      sellersJsonUrl: 'https://ads.northwind.test/sellers.json',
      warnings: [],
    });
    // The same id sellers.json lists on that host.
    const sellers = await app.inject({ method: 'GET', url: '/sellers.json', headers: { host: 'ads.northwind.test' } });
    expect(sellers.json().sellers).toContainEqual(
      expect.objectContaining({ seller_id: 'nw1-sub-1', seller_type: 'PUBLISHER' }),
    );

    const own = await as(app, cookies.demand, { method: 'GET', url: adsTxtLinePath(ownChannelId) });
    expect(own.json()).toMatchObject({
      line: `ads.northwind.test, ${t.users.demand.id}, RESELLER`,
      seller: { source: 'tenant' },
    });
  });

  it('lets the subpublisher read its channel line; the check is for those who edit channels; other tenants get 404', async () => {
    expect((await as(app, cookies.sub, { method: 'GET', url: adsTxtLinePath(channelId) })).statusCode).toBe(200);
    expect((await as(app, cookies.adv, { method: 'GET', url: adsTxtLinePath(channelId) })).statusCode).toBe(403);
    expect((await check(siteHost, 'sub')).statusCode).toBe(403);
    expect((await as(app, cookies.acme, { method: 'GET', url: adsTxtLinePath(channelId) })).statusCode).toBe(404);
    expect((await check(siteHost, 'acme')).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: adsTxtLinePath(channelId) })).statusCode).toBe(403);
  });

  it('finds the line in a live ads.txt, whatever the case, spacing and comments', async () => {
    answer.body =
      '# ads.txt of harborvideo.test\r\ngoogle.com, pub-1, DIRECT, f08c47fec0942fa0\r\nADS.Northwind.test ,  nw1-sub-1 , direct # ours\r\ncontact=ads@harborvideo.test\r\n';
    const res = await check(siteHost);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      status: 'found',
      url: `http://${siteHost}/ads.txt`,
      expected: 'ads.northwind.test, nw1-sub-1, DIRECT',
      matches: [{ line: 3, text: 'ADS.Northwind.test ,  nw1-sub-1 , direct' }],
      message: 'The line is there (line 3).',
    });
  });

  it('tells when the relationship differs, and when the line is missing', async () => {
    answer.body = 'ads.northwind.test, nw1-sub-1, RESELLER\n';
    expect((await check(siteHost)).json()).toMatchObject({
      status: 'relationship_differs',
      matches: [{ line: 1 }],
      message: expect.stringContaining('the line should say DIRECT'),
    });
    answer.body = 'ads.northwind.test, someone-else, DIRECT\nother.test, nw1-sub-1, DIRECT\n';
    expect((await check(siteHost)).json()).toMatchObject({
      status: 'missing',
      matches: [],
      message: expect.stringContaining('should add "ads.northwind.test, nw1-sub-1, DIRECT"'),
    });
  });

  it('tells a page that is not an ads.txt, a 404 and a host that does not answer', async () => {
    answer = {
      status: 200,
      type: 'text/html',
      body: '<html><body>ads.northwind.test, nw1-sub-1, DIRECT</body></html>',
    };
    expect((await check(siteHost)).json()).toMatchObject({ status: 'not_adstxt' });
    answer = { status: 404, type: 'text/plain', body: 'Not found' };
    expect((await check(siteHost)).json()).toMatchObject({
      status: 'not_adstxt',
      message: expect.stringContaining('HTTP 404'),
    });
    const port = await freePort();
    expect((await check(`127.0.0.1:${port}`)).json()).toMatchObject({
      status: 'unreachable',
      url: `http://127.0.0.1:${port}/ads.txt`,
    });
  });

  it('follows a redirect to the file', async () => {
    let hits = 0;
    const mover = await localServer((req, res) => {
      hits++;
      res.writeHead(301, { location: `http://${siteHost}/ads.txt` }).end();
    });
    answer.body = 'ads.northwind.test, nw1-sub-1, DIRECT\n';
    const res = await check(mover.url);
    await mover.close();
    expect(hits).toBeGreaterThan(0);
    expect(res.json()).toMatchObject({ status: 'found', url: `http://${siteHost}/ads.txt` });
  });

  it('refuses, without the test setting, addresses that are not public host names', async () => {
    for (const domain of [
      siteHost,
      '127.0.0.1',
      'localhost',
      'http://169.254.169.254/latest/meta-data',
      'file:///etc/passwd',
    ]) {
      const res = await check(domain, 'demand', strict);
      expect(res.statusCode, domain).toBe(400);
      expect(res.json().field).toBe('domain');
    }
    expect((await check('', 'demand', strict)).statusCode).toBe(400);
  });
});
