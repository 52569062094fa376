import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';

/**
 * A node:http server of a test on 127.0.0.1, on a port the system picks: the demand, bidders, sites
 * and feeds that tests call over real HTTP.
 */
export interface LocalServer {
  server: Server;
  port: number;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /**
   * Stops listening and drops every connection, idle keep-alive ones and those still waiting for an
   * answer alike (close() alone would wait for a client's pooled connections to time out).
   */
  close(): Promise<void>;
}

/** Starts a server answering with `answer`, listening once the promise resolves. */
export async function localServer(answer: RequestListener): Promise<LocalServer> {
  const server = createServer(answer);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Ports below Linux's ephemeral range (32768-60999 by default), where the system never puts the
 * local end of an outgoing connection: a port picked here is not taken by one of the many client
 * sockets of tests running beside this one before its child process listens on it.
 */
const PICKED_PORTS = { from: 20_000, to: 32_767 } as const;

/** The port of 127.0.0.1 a listener got (`port`, or the system's pick for 0) and closed again; null when it was taken. */
function listenedOn(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createTcpServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as AddressInfo).port;
      s.close(() => resolve(got));
    });
  });
}

/**
 * A port on 127.0.0.1 that nothing listens on now: for a child process to listen on, or a call to be
 * refused. Picked at random below the ephemeral range (PICKED_PORTS); the system's pick when none of
 * 50 tries is free.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await listenedOn(
      PICKED_PORTS.from + Math.floor(Math.random() * (PICKED_PORTS.to - PICKED_PORTS.from + 1)),
    );
    if (port !== null) return port;
  }
  const picked = await listenedOn(0);
  if (picked === null) throw new Error('no port of 127.0.0.1 could be listened on');
  return picked;
}
