import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { inlineVast, keepHold, startDemandServer } from '../../packages/server/test/demandServers.js';

/**
 * The bench's helper processes: `bare` is the reference server (node:http answering a fixed
 * 300-byte body, R in docs/performance.md), `demand` the local VAST demand partner, `bidder` a local
 * OpenRTB bidder (an exchange: POST a bid request, a bid with inline VAST after `?delay=` ms at
 * `?price=` USD CPM). Each reports its port or URL to the parent over IPC and runs until killed; the
 * demand partner also answers 'holds' (how long it held each `rid`'s slowest call, ms), and the
 * bidder the same by the bid request's `source.tid` (one per auction, passed on to every exchange).
 * `api <data dir>` is the console's API (`--role api`) over the config store the edge serves from, as
 * an operator's API process beside the edge: a write through it reaches the edge by the edge's poll of
 * the config version (there is no Redis for its notice), as it does in a deployment without one.
 */
const BODY = Buffer.from('x'.repeat(300));

/** Answers the parent's 'holds' with the holds kept so far (by request key, ms), then forgets them. */
function answerHolds(holds: Map<string, number>): void {
  process.on('message', (m) => {
    if (m !== 'holds') return;
    process.send!(Object.fromEntries(holds));
    holds.clear();
  });
}

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
  } else if (role === 'bidder') {
    // each auction's (source.tid's) longest hold of a call, from its arrival to its answer's end
    const holds = new Map<string, number>();
    answerHolds(holds);
    const server = createServer((req, res) => {
      const arrived = performance.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const delay = Number(url.searchParams.get('delay') ?? 0);
        const price = Number(url.searchParams.get('price') ?? 2);
        setTimeout(() => {
          let request: { id?: string; imp?: { id?: string }[]; source?: { tid?: string } } = {};
          try {
            request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof request;
          } catch {
            // answered as a no-bid below
          }
          const tid = request.source?.tid;
          if (tid) keepHold(holds, tid, res, arrived);
          const imp = request.imp?.[0];
          if (!request.id || !imp?.id) {
            res.writeHead(204);
            res.end();
            return;
          }
          const body = JSON.stringify({
            id: request.id,
            cur: 'USD',
            seatbid: [
              {
                seat: 'bench',
                bid: [
                  {
                    id: '1',
                    impid: imp.id,
                    price,
                    adomain: ['brand.example.com'],
                    crid: 'bench-1',
                    mtype: 2,
                    adm: inlineVast('http://127.0.0.1:1', price),
                  },
                ],
              },
            ],
          });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        }, delay);
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  } else if (role === 'api') {
    // imported here: the other helpers never load the server
    const { buildApp } = await import('../../packages/server/src/app.js');
    const { loadSettings } = await import('../../packages/server/src/settings.js');
    const { openStore } = await import('../../packages/server/src/store/db.js');
    const { openStatsStore } = await import('../../packages/server/src/stats/statsStore.js');
    const dataDir = process.argv[3]!;
    const settings = loadSettings({
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ADPLANE_DEMO: '0',
      ADPLANE_WEB_DIST: `${dataDir}/none`,
      ADPLANE_HOST: 'http://127.0.0.1:1',
    });
    const store = await openStore(settings);
    // its own stats store in memory: the edge holds the DuckDB file, and no report is asked here
    const stats = await openStatsStore({ dataDir, clickhouseUrl: null, duckdbFile: ':memory:' });
    const app = await buildApp({ settings, store, role: 'api', stats });
    await app.listen({ port: 0, host: '127.0.0.1' });
    process.send!({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
  } else if (role === 'demand') {
    const demand = await startDemandServer();
    // each request id's longest call hold (the five-tag case's slowest answer)
    answerHolds(demand.holds);
    // the calls are the tests' to read: here they would only grow
    setInterval(() => {
      demand.calls.length = 0;
      demand.headers.length = 0;
    }, 1000).unref();
    process.send!({ url: demand.url });
  }
}

void main();
