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
  /** Connections the server saw closed, and requests it saw (method, path, a header, the body). */
  let closed = 0;
  const seen: { method: string; path: string; device: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method!, path: req.url!, device: req.headers['x-device-ip'] as string | undefined, body });
        const url = new URL(req.url!, 'http://x');
        if (url.pathname === '/hang') return;
        if (url.pathname === '/none') {
          res.writeHead(204);
          res.end();
          return;
        }
        const size = Number(url.searchParams.get('size') ?? 0);
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain', 'x-answer': 'yes' });
          // in two pieces, a character split between them
          const text = `é${'x'.repeat(size)}`;
          const bytes = Buffer.from(text);
          res.write(bytes.subarray(0, 1));
          res.end(bytes.subarray(1));
        }, Number(url.searchParams.get('delay') ?? 0));
      });
    });
    demand.server.on('connection', (socket) => socket.on('close', () => closed++));
    base = demand.url;
    agent = new Agent({ keepAliveTimeout: 10_000, pipelining: 1 });
  });
  afterAll(async () => {
    await agent.close();
    await demand.close();
  });

  it('answers the status, the headers and the body, joined from its pieces; a POST sends its body', async () => {
    const answer = await demandCall(agent, { url: `${base}/a?size=3`, method: 'POST', headers: { 'x-device-ip': '203.0.113.9' }, body: '{"id":"1"}', maxBytes: 1024 }, 1000);
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
    await expect(demandCall(agent, { url: `${base}/a?size=5000`, method: 'GET', headers: {}, maxBytes: 1000 }, 1000)).rejects.toBeInstanceOf(AnswerTooLarge);
    await expect(demandCall(agent, { url: 'not a url', method: 'GET', headers: {}, maxBytes: 1000 }, 1000)).rejects.toBeInstanceOf(TypeError);
    await expect(demandCall(agent, { url: 'ftp://127.0.0.1/x', method: 'GET', headers: {}, maxBytes: 1000 }, 1000)).rejects.toBeInstanceOf(TypeError);
    await expect(demandCall(agent, { url: 'http://127.0.0.1:1/x', method: 'GET', headers: {}, maxBytes: 1000 }, 1000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await demandCall(agent, { url: `${base}/a`, method: 'GET', headers: {}, maxBytes: 1000 }, 0)).toBe(TIMED_OUT);
  });

  it('stops waiting at the deadline; a late answer within the grace keeps its connection, a hanging call is cut after it', async () => {
    await sleep(50); // the connections the test before cut are closed by now
    const before = closed;
    expect(await demandCall(agent, { url: `${base}/a?delay=80`, method: 'GET', headers: {}, maxBytes: 1000 }, 20, 500)).toBe(TIMED_OUT);
    await sleep(150);
    expect(closed).toBe(before);
    expect(await demandCall(agent, { url: `${base}/hang`, method: 'GET', headers: {}, maxBytes: 1000 }, 20, 50)).toBe(TIMED_OUT);
    for (let waited = 0; closed === before && waited < 2000; waited += 10) await sleep(10);
    expect(closed).toBe(before + 1);
  });

  it('fires a notice and gives a hanging one up after its time, never rejecting', async () => {
    const before = closed;
    const calls = seen.length;
    fireAndForget(agent, `${base}/hang?notice=1`, 30);
    fireAndForget(agent, 'http://127.0.0.1:1/refused', 30);
    for (let waited = 0; closed === before && waited < 2000; waited += 10) await sleep(10);
    expect(seen.slice(calls).map((s) => s.path)).toEqual(['/hang?notice=1']);
    expect(closed).toBe(before + 1);
  });
});
