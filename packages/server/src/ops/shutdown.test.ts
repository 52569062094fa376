import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { drainAndClose } from './shutdown.js';

/** Waits until `done()` holds, looking every 5 ms (the test fails on its timeout if it never does). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(5);
}

/**
 * On SIGTERM: requests in flight finish (those that outlive the grace period are cut), new connections are refused, then the stores close.
 * The slow route answers when the test calls `answer`.
 */
async function serverWithSlowRoute(events: string[] = []) {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const app = Fastify({ logger: false });
  // The server's own record of a finished response: the client's fetch settles on the same event loop
  // and may observe the answer after the stores closed, which would say nothing about the drain.
  app.addHook('onResponse', async (_request, reply) => void events.push(`answered ${reply.statusCode}`));
  app.get('/slow', async () => {
    events.push('request in');
    await answered;
    return { done: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}/slow`, answer };
}

describe('drainAndClose', () => {
  it('lets a request in flight finish, refuses new connections, then closes the stores', async () => {
    const events: string[] = [];
    const { app, url, answer } = await serverWithSlowRoute(events);
    const inFlight = fetch(url).then((r) => r.json());
    await until(() => events.includes('request in'));
    const drained = drainAndClose(app, { graceMs: 5_000, closeStores: async () => void events.push('stores closed') });
    await until(() => !app.server.listening);
    await expect(fetch(url)).rejects.toThrow();
    // the request in flight answers only now, while the server drains
    answer();
    expect(await inFlight).toEqual({ done: true });
    expect(await drained).toBe(true);
    expect(events).toEqual(['request in', 'answered 200', 'stores closed']);
  });

  it('cuts a request that outlives the grace period, and still closes the stores', async () => {
    const events: string[] = [];
    // the route never answers within the grace period
    const { app, url, answer } = await serverWithSlowRoute(events);
    const inFlight = fetch(url).then(
      () => 'answered',
      () => 'cut',
    );
    await until(() => events.includes('request in'));
    let storesClosed = false;
    const started = performance.now();
    expect(await drainAndClose(app, { graceMs: 300, closeStores: async () => void (storesClosed = true) })).toBe(false);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await inFlight).toBe('cut');
    expect(storesClosed).toBe(true);
    answer();
  });
});
