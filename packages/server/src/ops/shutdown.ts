import { type FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** How long requests in flight may take to finish before their connections are cut. */
  graceMs: number;
  /** Close the stores, once no request can use them any more. */
  closeStores: () => Promise<void>;
}

/**
 * Drain on SIGTERM/SIGINT: stop accepting connections (new requests on kept-alive ones get 503),
 * let the requests in flight finish, then close the stores. A request still running after `graceMs`
 * has its connection cut, so that a deploy never waits forever. Resolves true when everything
 * drained in time.
 */
export async function drainAndClose(app: FastifyInstance, { graceMs, closeStores }: ShutdownOptions): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
    timer.unref();
  });
  const closed = app.close().then(() => 'closed' as const);
  // A connection that finishes its request stays open for keep-alive: close it as soon as it is idle,
  // not when its keep-alive times out.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
  sweep.unref();
  const first = await Promise.race([closed, timedOut]);
  if (first === 'timeout') {
    app.log.warn({ graceMs }, 'requests still running after the grace period: closing their connections');
    app.server.closeAllConnections();
    await closed;
  }
  clearTimeout(timer);
  clearInterval(sweep);
  await closeStores();
  return first === 'closed';
}
