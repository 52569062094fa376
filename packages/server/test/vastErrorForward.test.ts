import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createAs, login, onSqliteStore } from './helpers.js';
import { type LocalServer, localServer } from './localServer.js';
import { clientAds, schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * VAST 2.0 and 3.0 hold one <Error> per ad. A VAST demand's ad served on such a channel keeps ours
 * (every error the player reports is counted) and ours carries the demand's error trackers, signed:
 * when the player reports an error, /ev forwards the code to them (demand/errorPings.ts
 * errorForwardQuery). VAST 4 lists both, as before. Through the real app, with a local demand server.
 */
const answer = (base: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="spot"><InLine><AdSystem>Partner</AdSystem><AdTitle>spot</AdTitle><Pricing model="CPM" currency="USD">5.00</Pricing>` +
  `<Error><![CDATA[${base}/t/error?c=[ERRORCODE]&s=[SERVERSIDE]]]></Error><Impression><![CDATA[${base}/t/imp]]></Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration>` +
  `<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">${base}/media/spot.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;

onSqliteStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  let demand: LocalServer;
  let base = '';
  const pings: string[] = [];
  const ids: Record<string, { id: number; uid: string }> = {};

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      const url = new URL(req.url ?? '/', base);
      if (url.pathname.startsWith('/t/')) {
        pings.push(url.pathname + url.search);
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/rtb') {
        // an OpenRTB bidder answering the one impression with a VAST adm whose <Error> has an auction macro
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const request = JSON.parse(body) as { id: string; imp: { id: string }[] };
          const adm = answer(base).replace('/t/error?c=[ERRORCODE]', '/t/rtb-error?c=[ERRORCODE]&p=${AUCTION_PRICE}');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: request.id,
              seatbid: [
                {
                  seat: 's1',
                  bid: [
                    {
                      id: 'b1',
                      impid: request.imp[0]!.id,
                      price: 6,
                      adm,
                      adomain: ['brand.test'],
                      crid: 'c1',
                      mtype: 2,
                    },
                  ],
                },
              ],
            }),
          );
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(answer(base));
    });
    base = demand.url;
    app = await buildTestApp(t.store);
    cookie = await login(app, 'acme');
    ids.tag = await createAs(app, cookie, 'tags', {
      name: 'Error forward tag',
      vastUrl: `${base}/vast`,
      price: { type: 'revshare', percent: 100 },
      timeoutMs: 1500,
    });
    for (const v of ['2.0', '3.0', '4.2']) {
      ids[v] = await createAs(app, cookie, 'channels', {
        name: `Error forward ${v}`,
        vastVersion: v,
        format: 'video',
        demandMode: 'auction',
        timeoutMs: 2000,
        demand: [{ tagId: ids.tag.id, priority: 1 }],
      });
    }
    ids.rtbTag = await createAs(app, cookie, 'tags', {
      name: 'Error forward bidder',
      integration: 'RTB',
      endpoint: `${base}/rtb`,
      price: { type: 'revshare', percent: 100 },
      timeoutMs: 1500,
    });
    ids.rtb = await createAs(app, cookie, 'channels', {
      name: 'Error forward RTB 3.0',
      vastVersion: '3.0',
      format: 'video',
      demandMode: 'auction',
      timeoutMs: 2000,
      demand: [{ tagId: ids.rtbTag.id, priority: 1 }],
    });
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    await demand?.close();
  });

  const serve = async (channel: string): Promise<string> => {
    const res = await edgeRequest(app, { method: 'GET', url: `/vast/${ids[channel]!.uid}?w=640&h=360&ip=8.8.8.8` });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const errorsOf = (xml: string): string[] =>
    [...xml.matchAll(/<Error><!\[CDATA\[(.*?)\]\]><\/Error>/g)].map((m) => m[1]!);
  /** What a player does with an <Error> URL: [ERRORCODE] filled, then a GET. */
  const report = (url: string, code: number) =>
    edgeRequest(app, { method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '').replace('[ERRORCODE]', String(code)) });

  describe.each(['2.0', '3.0'])('on a VAST %s channel', (version) => {
    it("keeps our <Error>, carrying the demand's, valid against the XSD", async () => {
      const vast = await serve(version);
      expect(schemaErrors(version as '2.0' | '3.0', vast)).toBe('');
      const errors = errorsOf(vast);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/\/ev\?e=error&code=\[ERRORCODE\]&t=[^&]+&de=[^&]+&ds=/);
      // the player's VAST client reads that one URL
      expect(clientAds(vast).ads).toHaveLength(1);
      // the demand's own macros are filled from the request; [ERRORCODE] is left for the player
      expect(decodeURIComponent(new URL(errors[0]!.replace('[ERRORCODE]', '0')).searchParams.get('de')!)).toBe(
        `${base}/t/error?c=[ERRORCODE]&s=1`,
      );
    });

    it("forwards the code the player reports to the demand's error tracker, once however often it is reported", async () => {
      const [ours] = errorsOf(await serve(version));
      pings.length = 0;
      const res = await report(ours!, 405);
      expect(res.statusCode).toBe(200);
      await expect.poll(() => pings, { timeout: 5000 }).toContain('/t/error?c=405&s=1');
      // a replay is answered as the first report was, and neither counts nor forwards again
      expect((await report(ours!, 405)).statusCode).toBe(200);
      const [again] = errorsOf(await serve(version));
      expect((await report(again!, 402)).statusCode).toBe(200);
      await expect.poll(() => pings, { timeout: 5000 }).toContain('/t/error?c=402&s=1');
      expect(pings.filter((p) => p === '/t/error?c=405&s=1')).toHaveLength(1);
    });

    it('never calls a forwarded list that was changed on the way', async () => {
      const [ours] = errorsOf(await serve(version));
      // (another decision's: an error counts, and forwards, once per decision)
      const [genuine] = errorsOf(await serve(version));
      pings.length = 0;
      const forged = ours!.replace(/&de=[^&]+/, `&de=${encodeURIComponent('http://127.0.0.1:9/t/evil?c=[ERRORCODE]')}`);
      expect((await report(forged, 405)).statusCode).toBe(200);
      expect((await report(genuine!, 402)).statusCode).toBe(200);
      await expect.poll(() => pings, { timeout: 5000 }).toContain('/t/error?c=402&s=1');
      expect(pings.filter((p) => p.includes('evil'))).toEqual([]);
    });
  });

  it("does the same for an OpenRTB bid's VAST, its auction macros filled", async () => {
    const vast = await serve('rtb');
    expect(schemaErrors('3.0', vast)).toBe('');
    const errors = errorsOf(vast);
    expect(errors).toHaveLength(1);
    pings.length = 0;
    expect((await report(errors[0]!, 402)).statusCode).toBe(200);
    await expect.poll(() => pings, { timeout: 5000 }).toContain('/t/rtb-error?c=402&p=6&s=1');
  });

  it('lists both <Error>s in VAST 4, ours without a forward', async () => {
    const vast = await serve('4.2');
    expect(schemaErrors('4.2', vast)).toBe('');
    const errors = errorsOf(vast);
    expect(errors).toHaveLength(2);
    expect(errors.filter((e) => e.startsWith(`${base}/t/error`))).toHaveLength(1);
    expect(errors.find((e) => e.includes('/ev?e=error'))).not.toContain('&de=');
  });
});
