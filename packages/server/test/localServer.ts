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

/** A port on 127.0.0.1 that nothing listens on now: for a child process to listen on, or a call to be refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createTcpServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}
