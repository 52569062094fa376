import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { startDemandServer } from '../../packages/server/test/demandServers.js';

/**
 * The bench's helper processes: `bare` is the reference server (node:http answering a fixed
 * 300-byte body, R in docs/performance.md), `demand` the local VAST demand partner. Each reports its
 * port to the parent over IPC and runs until killed.
 */
const BODY = Buffer.from('x'.repeat(300));

async function main(): Promise<void> {
  const role = process.argv[2];
  if (role === 'bare') {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length });
      res.end(BODY);
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.send!({ port: (server.address() as AddressInfo).port });
  } else if (role === 'demand') {
    const demand = await startDemandServer();
    process.send!({ url: demand.url });
  }
}

void main();
