import { type IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { ANY_ADDRESS, outboundPolicy } from '../../http/outboundAddress.js';
import { demandAgent } from './deadline.js';
import { HttpCaller, MAX_ANSWER_BYTES } from './httpCaller.js';

/**
 * The demand caller over real HTTP against a small local bidder: it asks for gzip (OpenRTB 2.6
 * section 2.4) and reads a gzipped answer; the size cap holds on the inflated bytes.
 */
describe('HttpCaller', () => {
  let bidder: LocalServer;
  let base = '';
  const seen: IncomingHttpHeaders[] = [];
  const answer = JSON.stringify({
    id: 'r1',
    seatbid: [{ bid: [{ id: 'b', impid: '1', price: 2, adm: '<VAST version="4.2"/>'.repeat(50) }] }],
  });
  const caller = new HttpCaller(demandAgent(ANY_ADDRESS));

  beforeAll(async () => {
    bidder = await localServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        const gz = String(req.headers['accept-encoding'] ?? '').includes('gzip');
        if (req.url === '/bomb') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          res.end(gzipSync(`{"pad":"${' '.repeat(MAX_ANSWER_BYTES + 10)}"}`));
        } else if (req.url === '/broken') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          res.end(Buffer.from([0x1f, 0x8b, 8, 0, 9, 9, 9]));
        } else if (gz) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          res.end(gzipSync(answer));
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(answer);
        }
      });
    });
    base = bidder.url;
  });
  afterAll(async () => {
    await caller.close();
    await bidder.close();
  });

  it('asks for gzip and reads the gzipped answer', async () => {
    const got = await caller.postJson(`${base}/bid`, '{"id":"r1"}', Date.now() + 2000);
    expect(seen.at(-1)!['accept-encoding']).toBe('gzip');
    expect(got).toMatchObject({ kind: 'answer', status: 200, body: answer });
  });

  it('refuses an answer that inflates past the cap, and one that is not the gzip it says', async () => {
    expect(await caller.postJson(`${base}/bomb`, '{}', Date.now() + 2000)).toMatchObject({
      kind: 'failed',
      reason: 'answer_too_large',
    });
    expect(await caller.postJson(`${base}/broken`, '{}', Date.now() + 2000)).toMatchObject({
      kind: 'failed',
      reason: 'invalid_gzip',
    });
  });

  it('reads a plain answer when the caller asks for it plain', async () => {
    const got = await caller.postJson(`${base}/bid`, '{}', Date.now() + 2000, { 'accept-encoding': 'identity' });
    expect(got).toMatchObject({ kind: 'answer', body: answer });
  });

  it('answers address_refused for a bidder on a private address when those are not called, without reaching it', async () => {
    const strict = new HttpCaller(demandAgent(outboundPolicy(false, [])));
    const before = seen.length;
    expect(await strict.postJson(`${base}/bid`, '{}', Date.now() + 2000)).toMatchObject({
      kind: 'failed',
      reason: 'address_refused',
    });
    strict.fire(`${base}/win`);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.length).toBe(before);
    await strict.close();
  });
});
