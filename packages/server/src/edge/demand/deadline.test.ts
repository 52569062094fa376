import { type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineVast } from '../../../test/demandServers.js';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { demandAgent } from './deadline.js';
import { HttpCaller } from './httpCaller.js';
import { VastFetcher } from './vastFetcher.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a late demand answer keeps its connection', () => {
  let demand: LocalServer;
  let base = '';
  let connections = 0;

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
      setTimeout(() => {
        if (req.method === 'POST') {
          res.writeHead(204);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(inlineVast(base, 2));
      }, delay);
    });
    demand.server.on('connection', () => connections++);
    demand.server.keepAliveTimeout = 10_000;
    base = demand.url;
  });
  /** Until the late call has been answered and its connection is free again (the pool's own count). */
  async function lateAnswerRead(agent: Agent): Promise<void> {
    for (let waited = 0; waited < 10_000; waited += 10) {
      const pool = (agent.stats as Record<string, { running: number; free: number } | undefined>)[base];
      if (pool && pool.running === 0 && pool.free === 1) return;
      await sleep(10);
    }
    throw new Error('the late answer never came back to the pool');
  }

  afterAll(() => demand.close());

  it('VAST: a call past its deadline is a timeout, and the next call reuses the connection', async () => {
    const agent = demandAgent(ANY_ADDRESS);
    const fetcher = new VastFetcher(agent);
    connections = 0;
    const viewer = { ua: 'test', ip: '' };
    expect((await fetcher.fetch(`${base}/inline?delay=80`, Date.now() + 20, viewer)).kind).toBe('timeout');
    await lateAnswerRead(agent); // within the grace
    expect((await fetcher.fetch(`${base}/inline`, Date.now() + 1000, viewer)).kind).toBe('inline');
    expect(connections).toBe(1);
    await fetcher.close();
  });

  it('OpenRTB: the same for a bid request', async () => {
    const agent = demandAgent(ANY_ADDRESS);
    const caller = new HttpCaller(agent);
    connections = 0;
    expect((await caller.postJson(`${base}/bid?delay=80`, '{}', Date.now() + 20)).kind).toBe('timeout');
    await lateAnswerRead(agent);
    expect(await caller.postJson(`${base}/bid`, '{}', Date.now() + 1000)).toMatchObject({
      kind: 'answer',
      status: 204,
    });
    expect(connections).toBe(1);
    await caller.close();
  });
});
