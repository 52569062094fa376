/**
 * The edge's hot paths in one process, without HTTP (docs/performance.md, the edge section):
 *
 *   npx tsx bench/edgeHotPath.bench.ts        (BENCH_SECONDS per case, default 3)
 *
 * Fills the edge bench's store once (bench/edge.bench.ts `fill`, kept in $BENCH_DATA_DIR, default
 * /tmp/adplane-hotpath-data, for the next run), builds the real app (`--role edge`) and drives its
 * raw entry (`edge.serveRaw`) with stand-in requests and responses: GET /vast/<channel> filled from
 * own campaigns (64 in flight), then GET /ev with tokens from those answers, then the token's sign and
 * verify alone. Each case prints the rate, µs per request, and the garbage collections it caused
 * (count and ms, scavenges apart). Nothing is written to bench/results: the numbers are for
 * comparing a change with the code before it, on the same machine, minutes apart.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { buildApp } from '../packages/server/src/app.js';
import type {} from '../packages/server/src/edge/doors/edge.js';
import { type Decision } from '../packages/server/src/edge/tracking/trackingToken.js';
import { loadSettings } from '../packages/server/src/settings.js';
import { openStore } from '../packages/server/src/store/db.js';
import { fill } from './edge.bench.js';
import { type HeapSampled, rnd, say, sampledBytes, startHeapSampling } from './edge/harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const DATA = process.env.BENCH_DATA_DIR ?? '/tmp/adplane-hotpath-data';

const gc = { scavenges: 0, scavengeMs: 0, others: 0, otherMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.scavenges++;
      gc.scavengeMs += e.duration;
    } else {
      gc.others++;
      gc.otherMs += e.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });

/** Requests run by the cases so far, warm-ups included (what a heap profile's bytes are divided by). */
let ran = 0;

interface FakeRes {
  status: number;
  body: string;
  done: () => void;
}

function fakeRes(onEnd: (r: FakeRes) => void): ServerResponse & FakeRes {
  const r = {
    status: 0,
    body: '',
    headersSent: false,
    done: () => undefined,
    writeHead(status: number) {
      r.status = status;
      r.headersSent = true;
      return r;
    },
    end(body?: string | Buffer) {
      r.body = typeof body === 'string' ? body : '';
      onEnd(r);
    },
  };
  return r as unknown as ServerResponse & FakeRes;
}

function fakeReq(url: string): IncomingMessage {
  return {
    url,
    method: 'GET',
    headers: {
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

interface CaseResult {
  rps: number;
  usPerReq: number;
  /** The process's CPU time (user and system, all threads) per request: steadier than the wall clock on a shared machine. */
  cpuUsPerReq: number;
  scavengesPer10k: number;
  scavengeMsPer10k: number;
  otherGcMs: number;
}

/**
 * Runs `one` for `seconds`: with `inFlight` outstanding when it is asynchronous (it calls `done`
 * when answered), or in a plain loop (inFlight 0: `one` is synchronous and `done` is not used).
 */
async function measure(
  name: string,
  inFlight: number,
  one: (i: number, done: () => void) => void,
  seconds = SECONDS,
): Promise<CaseResult> {
  const noop = (): void => undefined;
  const loop = async (ms: number): Promise<number> => {
    const until = performance.now() + ms;
    let n = 0;
    while (performance.now() < until) {
      for (let k = 0; k < 200; k++) one(n++, noop);
      // let timers and I/O run (flushes), as a server between requests would
      if (n % 2000 === 0) await new Promise((r) => setImmediate(r));
    }
    return n;
  };
  // warm-up: a second, not counted
  const run = (ms: number) =>
    inFlight === 0
      ? loop(ms)
      : new Promise<number>((resolve) => {
          const until = performance.now() + ms;
          let n = 0;
          let outstanding = 0;
          let i = 0;
          // a request answered in its own turn calls `next` from inside `one`: the starts it owes are
          // run by one loop (a trampoline) instead of nesting, and every 2,000 the loop yields so that
          // timers and I/O run (flushes), as a server between requests would
          let owed = inFlight;
          let pumping = false;
          const pump = (): void => {
            if (pumping) return;
            pumping = true;
            while (owed > 0) {
              owed--;
              outstanding++;
              one(i++, next);
              if (i % 2000 === 0) {
                pumping = false;
                setImmediate(pump);
                return;
              }
            }
            pumping = false;
          };
          const next = (): void => {
            outstanding--;
            n++;
            if (performance.now() < until) {
              owed++;
              pump();
            } else if (outstanding === 0) resolve(n);
          };
          pump();
        });
  ran += await run(1000);
  Object.assign(gc, { scavenges: 0, scavengeMs: 0, others: 0, otherMs: 0 });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const n = await run(seconds * 1000);
  ran += n;
  const cpu = process.cpuUsage(cpu0);
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 50));
  const result = {
    rps: Math.round((n / ms) * 1000),
    usPerReq: Math.round((ms / n) * 1000 * 100) / 100,
    cpuUsPerReq: Math.round(((cpu.user + cpu.system) / n) * 100) / 100,
    scavengesPer10k: Math.round((gc.scavenges / n) * 10_000 * 10) / 10,
    scavengeMsPer10k: Math.round((gc.scavengeMs / n) * 10_000 * 10) / 10,
    otherGcMs: Math.round(gc.otherMs),
  };
  say(`${name.padEnd(10)} ${JSON.stringify(result)}`);
  return result;
}

async function main(): Promise<void> {
  let channelUids: string[];
  const uidsFile = join(DATA, 'channel-uids.json');
  if (!existsSync(uidsFile)) {
    mkdirSync(DATA, { recursive: true });
    say(`filling ${DATA} (once)...`);
    const filled = await fill(DATA, 'http://127.0.0.1:9');
    channelUids = filled.channelUids;
    writeFileSync(uidsFile, JSON.stringify(channelUids));
  } else {
    channelUids = JSON.parse(readFileSync(uidsFile, 'utf8')) as string[];
  }
  const settings = loadSettings({
    LOG_LEVEL: 'warn',
    DATA_DIR: DATA,
    ADPLANE_DEMO: '0',
    ADPLANE_WEB_DIST: join(DATA, 'none'),
    ADPLANE_HOST: 'http://127.0.0.1:1',
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
  });
  const store = await openStore(settings);
  const app = await buildApp({ settings, store, role: 'edge' });
  await app.ready();
  const edge = app.edge;
  const r = rnd(99);
  const IPS = ['8.8.8.8', '81.2.69.160', '24.24.24.24', '1.1.1.1'];
  const vastPaths = Array.from(
    { length: 2000 },
    () =>
      `/vast/${channelUids[Math.floor(r() * channelUids.length)]}?w=${[320, 640, 1280][Math.floor(r() * 3)]}&h=360&ip=${IPS[Math.floor(r() * IPS.length)]}`,
  );
  const reqs = vastPaths.map(fakeReq);

  // tracking URLs from real answers
  const evPaths: string[] = [];
  let filled = 0;
  for (const req of reqs.slice(0, 600)) {
    const body = await new Promise<string>((resolve) =>
      edge.serveRaw(
        req,
        fakeRes((res) => resolve(res.body)),
      ),
    );
    if (body.includes('<InLine>')) filled++;
    for (const m of body.matchAll(
      /<!\[CDATA\[http:\/\/127\.0\.0\.1:1(\/ev\?e=(?:impression|start|midpoint|complete)&[^\]]+)\]\]>/g,
    ))
      evPaths.push(m[1]!);
  }
  say(`answers filled: ${filled} of 600; ${evPaths.length} tracking URLs`);
  const evReqs = evPaths.map(fakeReq);

  const only = (process.env.BENCH_CASES ?? 'vast,ev,sign,verify').split(',');
  // BENCH_HEAP=<file>: a sampling profile of what the cases allocate, collected garbage included (open it in DevTools' Memory tab);
  // BENCH_HEAP_SAMPLED=promoted|live: only what outlived the young generation, or what is still alive at the end
  const sampled = (process.env.BENCH_HEAP_SAMPLED ?? 'allocated') as HeapSampled;
  const heap = process.env.BENCH_HEAP ? await startHeapSampling(sampled) : null;
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 1); round++) {
    if (only.includes('vast'))
      await measure('vast', 64, (i, done) => void edge.serveRaw(reqs[i % reqs.length]!, fakeRes(done)));
    const ignore = fakeRes(() => undefined);
    if (only.includes('ev')) await measure('ev', 0, (i) => edge.serveRaw(evReqs[i % evReqs.length]!, ignore));
    const signer = edge.deps!.signer;
    const tokens = evPaths.map((p) => new URLSearchParams(p.slice(p.indexOf('?') + 1)).get('t')!);
    const nowS = Math.floor(Date.now() / 1000);
    const decisions = tokens.map((t) => signer.verify(t, nowS)!) as Decision[];
    if (only.includes('sign')) await measure('sign', 0, (i) => signer.sign(decisions[i % decisions.length]!));
    if (only.includes('verify')) await measure('verify', 0, (i) => signer.verify(tokens[i % tokens.length]!, nowS));
  }
  if (heap) {
    const profile = await heap();
    writeFileSync(process.env.BENCH_HEAP!, JSON.stringify(profile));
    say(`${sampled}: ${Math.round(sampledBytes(profile.head) / ran)} bytes per request (sampled; ${ran} requests)`);
  }
  await app.close();
  await store.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
