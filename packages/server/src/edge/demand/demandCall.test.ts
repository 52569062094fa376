import { type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall, fireAndForget } from './demandCall.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('demandCall', () => {
  let demand: LocalServer;
  let base = '';
  let agent: Agent;
  /** Connections the server saw closed, the connection of each path it was asked, and requests it saw (method, path, a header, the body). */
  const closed = new WeakSet<Socket>();
  const socketOf = new Map<string, Socket>();
  const seen: { method: string; path: string; device: string | undefined; body: string }[] = [];
  /** Until the connection that served `path` is closed (the server sees a cut a moment after it), within 2 s. */
  const closedFor = async (path: string): Promise<boolean> => {
    for (let waited = 0; !(socketOf.has(path) && closed.has(socketOf.get(path)!)) && waited < 2000; waited += 10)
      await sleep(10);
    return socketOf.has(path) && closed.has(socketOf.get(path)!);
  };

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        socketOf.set(req.url!, req.socket);
        seen.push({
          method: req.method!,
          path: req.url!,
          device: req.headers['x-device-ip'] as string | undefined,
          body,
        });
        const url = new URL(req.url!, 'http://x');
        if (url.pathname === '/hang') return;
        if (url.pathname === '/none') {
          res.writeHead(204);
          res.end();
          return;
        }
        const size = Number(url.searchParams.get('size') ?? 0);
        setTimeout(
          () => {
            res.writeHead(200, { 'content-type': 'text/plain', 'x-answer': 'yes' });
            // in two pieces, a character split between them
            const text = `é${'x'.repeat(size)}`;
            const bytes = Buffer.from(text);
            res.write(bytes.subarray(0, 1));
            res.end(bytes.subarray(1));
          },
          Number(url.searchParams.get('delay') ?? 0),
        );
      });
    });
    demand.server.on('connection', (socket) => socket.on('close', () => closed.add(socket)));
    base = demand.url;
    agent = new Agent({ keepAliveTimeout: 10_000, pipelining: 1 });
  });
  afterAll(async () => {
    await agent.close();
    await demand.close();
  });

  it('answers the status, the headers and the body, joined from its pieces; a POST sends its body', async () => {
    const answer = await demandCall(
      agent,
      {
        url: `${base}/a?size=3`,
        method: 'POST',
        headers: { 'x-device-ip': '203.0.113.9' },
        body: '{"id":"1"}',
        maxBytes: 1024,
      },
      1000,
    );
    expect(answer).not.toBe(TIMED_OUT);
    if (answer === TIMED_OUT) return;
    expect(answer.status).toBe(200);
    expect(answer.headers['x-answer']).toBe('yes');
    expect(answer.body.toString('utf8')).toBe('éxxx');
    expect(seen.at(-1)).toEqual({ method: 'POST', path: '/a?size=3', device: '203.0.113.9', body: '{"id":"1"}' });
    const none = await demandCall(agent, { url: `${base}/none`, method: 'GET', headers: {}, maxBytes: 1024 }, 1000);
    expect(none !== TIMED_OUT && none.status === 204 && none.body.length === 0).toBe(true);
  });

  it('refuses an answer over its size (the connection cut), a URL it cannot call, and a closed port', async () => {
    await expect(
      demandCall(agent, { url: `${base}/a?size=5000`, method: 'GET', headers: {}, maxBytes: 1000 }, 1000),
    ).rejects.toBeInstanceOf(AnswerTooLarge);
    await expect(
      demandCall(agent, { url: 'not a url', method: 'GET', headers: {}, maxBytes: 1000 }, 1000),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      demandCall(agent, { url: 'ftp://127.0.0.1/x', method: 'GET', headers: {}, maxBytes: 1000 }, 1000),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      demandCall(agent, { url: 'http://127.0.0.1:1/x', method: 'GET', headers: {}, maxBytes: 1000 }, 1000),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await demandCall(agent, { url: `${base}/a`, method: 'GET', headers: {}, maxBytes: 1000 }, 0)).toBe(
      TIMED_OUT,
    );
  });

  it('stops waiting at the deadline; a late answer within the grace keeps its connection, a hanging call is cut after it', async () => {
    // an agent of its own: its one connection is the late call's, which the next calls take once it is free
    const own = new Agent({ keepAliveTimeout: 10_000, pipelining: 1 });
    try {
      expect(
        await demandCall(own, { url: `${base}/a?delay=80`, method: 'GET', headers: {}, maxBytes: 1000 }, 20, 500),
      ).toBe(TIMED_OUT);
      for (let waited = 0; !socketOf.has('/a?delay=80') && waited < 2000; waited += 10) await sleep(10);
      const late = socketOf.get('/a?delay=80');
      expect(late).toBeDefined();
      // the late answer is read within the grace and its connection kept: a next call is served on it
      for (let i = 0; i < 200 && socketOf.get('/a?next') !== late; i++) {
        expect(
          await demandCall(own, { url: `${base}/a?next`, method: 'GET', headers: {}, maxBytes: 1000 }, 1000),
        ).not.toBe(TIMED_OUT);
      }
      expect(socketOf.get('/a?next') === late, "a next call served on the late call's connection").toBe(true);
      expect(closed.has(late!)).toBe(false);
      expect(await demandCall(own, { url: `${base}/hang`, method: 'GET', headers: {}, maxBytes: 1000 }, 20, 50)).toBe(
        TIMED_OUT,
      );
      expect(await closedFor('/hang')).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('fires a notice and gives a hanging one up after its time, never rejecting', async () => {
    const calls = seen.length;
    fireAndForget(agent, `${base}/hang?notice=1`, 30);
    fireAndForget(agent, 'http://127.0.0.1:1/refused', 30);
    expect(await closedFor('/hang?notice=1')).toBe(true);
    expect(seen.slice(calls).map((s) => s.path)).toEqual(['/hang?notice=1']);
  });
});
