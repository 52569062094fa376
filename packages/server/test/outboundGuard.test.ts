import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TAG_TEST_PATH, type TagTestAnswer } from '@adplane/shared';
import { startDemandServer, type DemandServer } from './demandServers.js';
import { as, buildTestApp, createAs, onSqliteStore, login } from './helpers.js';

/**
 * No SSRF through demand (http/outboundAddress.ts), through the real app with private addresses
 * refused (ADPLANE_DEMAND_ALLOW_PRIVATE off, as in production): a tenant's demand tag, or a wrapper a
 * demand answered, cannot make the edge call a loopback or private address. The server's own
 * origin is callable: here a local demand server plays it (ADPLANE_HOST), and a second one, on
 * another port, is just another loopback address.
 */
onSqliteStore((t) => {
  let app: FastifyInstance;
  let trusted: DemandServer;
  let other: DemandServer;
  let cookie: string;

  const test = async (tagId: number): Promise<TagTestAnswer> => {
    const res = await as(app, cookie, {
      method: 'POST',
      url: TAG_TEST_PATH,
      payload: { tagId, context: { country: 'US' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as TagTestAnswer;
  };
  const tag = async (name: string, vastUrl: string) =>
    (await createAs(app, cookie, 'tags', { name, vastUrl, price: { type: 'cpm', cpm: 2_000_000 }, timeoutMs: 1500 }))
      .id;

  beforeAll(async () => {
    trusted = await startDemandServer();
    other = await startDemandServer();
    app = await buildTestApp(t.store, { demandAllowPrivate: false, publicHost: trusted.url });
    cookie = await login(app, 'demand');
  });

  afterAll(async () => {
    await app?.close();
    await trusted?.close();
    await other?.close();
  });

  it("calls the server's own origin, and refuses a tag on another loopback address without calling it", async () => {
    const own = await test(await tag('Own origin demand', `${trusted.url}/inline?price=5`));
    expect(own.trace.result).toBe('filled');

    const refused = await test(await tag('Loopback demand', `${other.url}/inline?price=5`));
    expect(refused.trace.result).not.toBe('filled');
    expect(refused.trace.sources).toEqual([
      expect.objectContaining({ source: 'vast_tag', fate: 'no_fill', reason: 'address_refused' }),
    ]);
    expect(other.calls).toEqual([]);
  });

  it('refuses a wrapper that sends the edge to a private address or to the metadata service: VAST 301, and its error tracker hears of it', async () => {
    for (const end of [
      `${other.url}/inline?price=5`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.255.255.1/vast',
    ]) {
      const id = await tag(`Wrapper to ${end}`, `${trusted.url}/wrapper?depth=1&end=${encodeURIComponent(end)}`);
      const answer = await test(id);
      expect(answer.trace.sources, end).toEqual([
        expect.objectContaining({ fate: 'no_fill', reason: 'address_refused', vastError: 301 }),
      ]);
      // (a test lists the pings it would fire; real traffic fires them)
      expect(answer.trace.sources[0]!.errorPings!.map((u) => new URL(u).pathname)).toEqual(['/track/wrapper-error']);
    }
    expect(other.calls).toEqual([]);
  });
});
