import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { buildTestApp, createAs, login, onSqliteStore } from './helpers.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * A VAST demand tag answering a linear video to a display channel (whose answer is a NonLinear:
 * docs/ad-server.md), through the real app: a display slot cannot play a video, so that tag is a
 * no-fill `linear_on_display` with VAST 201, its own error trackers hear 201 as from a player, and
 * the auction goes on: the next demand, a NonLinear ad at a lower price, fills the slot. An ad with
 * both a Linear and a NonLinear is shown as its NonLinear there.
 */
const LINEAR = (base: string) =>
  `<Creative><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">${base}/media/spot.mp4</MediaFile></MediaFiles></Linear></Creative>`;
const OVERLAY = (base: string, name: string) =>
  `<Creative><NonLinearAds><NonLinear width="300" height="250"><StaticResource creativeType="image/png">${base}/media/${name}.png</StaticResource><NonLinearClickThrough>https://brand.example.com/${name}</NonLinearClickThrough></NonLinear></NonLinearAds></Creative>`;
const answer = (base: string, name: string, price: number, creatives: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.1"><Ad id="${name}"><InLine><AdSystem>Partner</AdSystem><AdTitle>${name}</AdTitle><Pricing model="CPM" currency="USD">${price.toFixed(2)}</Pricing>` +
  `<Error><![CDATA[${base}/t/${name}-error?c=[ERRORCODE]]]></Error><Impression><![CDATA[${base}/t/${name}-imp]]></Impression><Creatives>${creatives}</Creatives></InLine></Ad></VAST>`;

onSqliteStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  let server: Server;
  let base = '';
  const pings: string[] = [];
  const ids: Record<string, { id: number; uid: string }> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', base);
      if (url.pathname.startsWith('/t/')) {
        pings.push(url.pathname + url.search);
        res.writeHead(204);
        return res.end();
      }
      const answers: Record<string, string> = {
        '/linear': answer(base, 'linear', 8, LINEAR(base)),
        '/overlay': answer(base, 'overlay', 5, OVERLAY(base, 'overlay')),
        '/both': answer(base, 'both', 8, LINEAR(base) + OVERLAY(base, 'both')),
      };
      const body = answers[url.pathname];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/xml' });
      res.end(body ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    app = await buildTestApp(t.store);
    // a tenant of its own: no demo campaign competes with the tags
    cookie = await login(app, 'acme');
    const tag = async (name: string) =>
      (ids[name] = await createAs(app, cookie, 'tags', {
        name: `Linearity ${name}`,
        vastUrl: `${base}/${name}`,
        price: { type: 'revshare', percent: 100 },
        timeoutMs: 1500,
      }));
    const channel = async (name: string, format: 'display' | 'video', tags: string[]) =>
      (ids[name] = await createAs(app, cookie, 'channels', {
        name: `Linearity ${name}`,
        vastVersion: '4.2',
        format,
        demandMode: 'auction',
        timeoutMs: 2000,
        demand: tags.map((n) => ({ tagId: ids[n]!.id, priority: 1 })),
      }));
    await tag('linear');
    await tag('overlay');
    await tag('both');
    await channel('display', 'display', ['linear', 'overlay']);
    await channel('dual', 'display', ['both']);
    await channel('video', 'video', ['linear', 'overlay']);
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  const debug = async (channel: string, size = 'w=300&h=250') => {
    const res = await edgeRequest(app, {
      cookie,
      method: 'GET',
      url: `/vast/${ids[channel]!.uid}?${size}&ip=8.8.8.8&debug=1`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { vast: string; trace: DecisionTrace };
  };
  const fateOf = (trace: DecisionTrace, tag: string) =>
    trace.sources.find((s) => s.source === 'vast_tag' && s.id === ids[tag]!.id);

  describe('on a display channel', () => {
    it('refuses the linear video (201, its error trackers told) and fills with the NonLinear bid under it', async () => {
      const { vast, trace } = await debug('display');
      expect(trace.result).toBe('filled');
      expect(trace.winner).toMatchObject({ source: 'vast_tag', id: ids.overlay!.id });
      expect(fateOf(trace, 'linear')).toMatchObject({ fate: 'no_fill', reason: 'linear_on_display', vastError: 201 });
      expect(vast).toContain(`${base}/media/overlay.png`);
      expect(vast).not.toContain('<Linear');
      expect(vast).not.toContain('spot.mp4');
      expect(schemaErrors('4.2', vast)).toBe('');
      await expect.poll(() => pings.includes('/t/linear-error?c=201'), { timeout: 5000 }).toBe(true);
    });

    it("counts the refusal on the linear tag's row, with its VAST error", async () => {
      await debug('display');
      await app.edge.flush();
      const rows = await app.stats.select(
        `SELECT nofill_reason, vast_error, sum(source_reqs) AS n, sum(wins) AS wins FROM ${STATS_TABLE} WHERE tag_id = ${ids.linear!.id} AND channel_id = ${ids.display!.id} GROUP BY nofill_reason, vast_error`,
      );
      expect(rows.map((r) => [r.nofill_reason, r.vast_error, Number(r.wins)])).toEqual([
        ['linear_on_display', '201', 0],
      ]);
    });

    it('shows the NonLinear of an ad that has a Linear too', async () => {
      const { vast, trace } = await debug('dual');
      expect(trace.result).toBe('filled');
      expect(vast).toContain(`${base}/media/both.png`);
      expect(vast).not.toContain('<Linear');
      expect(schemaErrors('4.2', vast)).toBe('');
    });
  });

  it('plays the linear video on a video channel, as before', async () => {
    const { vast, trace } = await debug('video', 'w=640&h=360');
    expect(trace.winner).toMatchObject({ source: 'vast_tag', id: ids.linear!.id });
    expect(vast).toContain(`${base}/media/spot.mp4`);
    expect(fateOf(trace, 'overlay')).toMatchObject({ fate: 'no_fill', reason: 'not_linear', vastError: 201 });
  });
});
