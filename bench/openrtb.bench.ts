/**
 * The OpenRTB entry point under load (the speed targets of docs/performance.md), in one run, beside a bare node:http
 * server:
 *
 *   npx tsx bench/openrtb.bench.ts          (or: npm run bench:openrtb)
 *
 * The same store as bench/edge.bench.ts (10,000 channels, 20,000 demand tags, 100,000 campaigns over
 * 100 tenants) plus one supplier per tenant, and one more tenant whose supplier's requests fan out to
 * 5 ad exchanges: local OpenRTB bidders answering in 20 ms. The real app runs in a child pinned to
 * CPU 0 and is driven from this process on CPU 1 (bench/edge/loadClient.ts). Measures: R (the bare
 * server), a ~1.5 KB bid request to /rtb/bid/<supplier> parsed, decided from the tenant's campaigns
 * and answered (throughput, then p99 at half that load), and the fan-out at 200 requests/s: what
 * the edge adds to each request's slowest exchange answer (the bidder reports how long it held each
 * auction's calls, by `source.tid`), measured after a warm-up at that rate (BENCH_FAN_WARMUP_S,
 * default 5). Results: bench/results/openrtb.json and a table on stdout (see docs/performance.md).
 * `BENCH_ONLY=rtb|half|fan` runs one case alone and writes nothing (with BENCH_PROFILE, for a profile
 * of that case); `BENCH_FAN_RATE` changes the fan-out's rate.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdExchangeInput, SupplierInput } from '@adplane/shared';
import { fill, supplierPerTenant } from './edge.bench.js';
import { bidRequest } from './edge/bidRequest.js';
import { ask, child, measured, serverChild, pin, rnd, rssMb, say, sayTable } from './edge/harness.js';
import { OWN_CORE_V8_FLAGS } from '../packages/server/src/cluster/workerFlags.js';
import { addedOverHolds, jsonPost, runLoad } from './edge/loadClient.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const EXCHANGES = 5;
const BIDDER_DELAY_MS = 20;
/** The fan-out case's warm-up at its own rate, not measured (the demand path's code is cold after the other cases). */
const FAN_WARMUP_MS = Number(process.env.BENCH_FAN_WARMUP_S ?? 5) * 1000;
const FAN_RATE = Number(process.env.BENCH_FAN_RATE ?? 200);
const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  pin(process.pid, 1);
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-openrtb-bench-'));
  const demand = await child([join(here, 'edge/children.ts'), 'demand']);
  pin(demand.proc.pid!, 1);
  const bidder = await child([join(here, 'edge/children.ts'), 'bidder']);
  pin(bidder.proc.pid!, 1);
  const bare = await child([join(here, 'edge/children.ts'), 'bare']);
  pin(bare.proc.pid!, 0);
  const suppliers: string[] = [];
  let fanSupplier = '';
  say('filling the store...');
  const filled = await fill(dataDir, String(demand.msg.url), {
    perTenant: supplierPerTenant(suppliers),
    extraTenant: async (insert, uids) => {
      await insert(
        'adexchanges',
        Array.from({ length: EXCHANGES }, (_, i) => ({
          name: `Local exchange ${i}`,
          endpoint: `${String(bidder.msg.url)}/bid?delay=${BIDDER_DELAY_MS}&price=${2 + i}`,
          tmaxMs: 500,
        })),
        AdExchangeInput,
      );
      const [id] = await insert(
        'sups',
        [{ name: 'Fan-out supplier', formats: ['video'], marginPercent: 20 }],
        SupplierInput,
      );
      fanSupplier = (await uids('sups', [id!]))[0]!;
    },
  });
  say(`filled in ${filled.fillMs} ms; starting the server`);
  process.env.BENCH_DATA = dataDir;
  // BENCH_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops; BENCH_NODE_FLAGS: V8 flags for it
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const server = await serverChild([
    ...nodeFlags,
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
  ]);
  pin(server.proc.pid!, 0);
  const port = Number(server.msg.port);
  say(`server up: ${JSON.stringify(server.msg)}`);
  const duration = SECONDS * 1000;

  say('measuring bareLoad...');
  const bareLoad = await runLoad({
    port: Number(bare.msg.port),
    paths: ['/'],
    connections: 32,
    depth: 8,
    durationMs: duration,
  });
  bare.proc.kill();
  const R = bareLoad.rps;

  const r = rnd(7);
  const bodies = Array.from({ length: 1000 }, (_, i) => bidRequest(i, r));
  const bytes = Math.round(bodies.reduce((n, b) => n + JSON.stringify(b).length, 0) / bodies.length);
  const requests = bodies.map((b, i) => jsonPost(`/rtb/bid/${suppliers[i % suppliers.length]}`, b));
  const probe = await fetch(`http://127.0.0.1:${port}/rtb/bid/${suppliers[0]}`, {
    method: 'POST',
    body: JSON.stringify(bodies[0]),
    headers: { 'content-type': 'application/json' },
  });
  say(`probe: HTTP ${probe.status}, ${(await probe.text()).length} bytes`);

  /**
   * The fan-out case: 200 requests/s, each with its own auction id (`source.tid`, passed on to every
   * exchange); the bidder says how long it held each auction's slowest call (its 20 ms plus its own
   * timer's lateness on the busy client core). What the edge adds to the slowest answer is each
   * request's latency minus that hold, not minus 20 ms.
   */
  const fanLoad = async () => {
    const count = Math.ceil((FAN_RATE * (FAN_WARMUP_MS + duration)) / 1000) + 400;
    const fanRequests = Array.from({ length: count }, (_, i) => {
      const body = bodies[i % bodies.length]!;
      return jsonPost(`/rtb/bid/${fanSupplier}`, {
        ...body,
        id: `fan-${i}`,
        source: { ...body.source, tid: `fan-${i}` },
      });
    });
    const latency = new Map<number, number>();
    await ask(bidder.proc, 'holds');
    const load = await runLoad({
      port,
      requests: fanRequests,
      connections: 16,
      rate: FAN_RATE,
      durationMs: duration,
      warmupMs: FAN_WARMUP_MS,
      onAnswer: (which, ms) => latency.set(which, ms),
    });
    const holds = (await ask(bidder.proc, 'holds')) as Record<string, number>;
    return { ...load, ...addedOverHolds(latency, holds, (which) => `fan-${which}`) };
  };

  const only = process.env.BENCH_ONLY;
  if (only === 'fan' || only === 'rtb' || only === 'half') {
    // one case alone, for profiling (BENCH_PROFILE): nothing is written to bench/results
    const halfRate =
      only === 'half'
        ? Math.min(
            20_000,
            Math.round((await runLoad({ port, requests, connections: 32, depth: 8, durationMs: duration })).rps / 2),
          )
        : 0;
    await ask(server.proc, 'loop');
    const load = await measured(server.proc.pid!, () =>
      only === 'fan'
        ? fanLoad()
        : runLoad({
            port,
            requests,
            connections: 32,
            ...(halfRate ? { rate: halfRate } : { depth: 8 }),
            durationMs: duration,
          }),
    );
    const loop = await ask(server.proc, 'loop');
    say(JSON.stringify({ only, ...load, eventLoop: loop }, null, 2));
    await ask(server.proc, 'stop').catch(() => undefined);
    demand.proc.kill();
    bidder.proc.kill();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }

  say('measuring rtbMax...');
  await ask(server.proc, 'loop');
  const rtbMax = await measured(server.proc.pid!, () =>
    runLoad({ port, requests, connections: 32, depth: 8, durationMs: duration }),
  );
  const rtbMaxLoop = await ask(server.proc, 'loop');
  say('measuring rtbHalf...');
  const rtbHalf = await measured(server.proc.pid!, () =>
    runLoad({
      port,
      requests,
      connections: 32,
      rate: Math.min(20_000, Math.round(rtbMax.rps / 2)),
      durationMs: duration,
    }),
  );
  const rtbHalfLoop = await ask(server.proc, 'loop');

  say('measuring fan-out...');
  await ask(server.proc, 'loop');
  const fan = await measured(server.proc.pid!, fanLoad);
  const fanLoop = await ask(server.proc, 'loop');

  const rss = rssMb(server.proc.pid!);
  await ask(server.proc, 'stop').catch(() => undefined);
  demand.proc.kill();
  bidder.proc.kill();
  rmSync(dataDir, { recursive: true, force: true });

  const result = {
    at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? '',
      node: process.version,
      serverCpu: 0,
      clientCpu: 1,
      serverNodeFlags: [...OWN_CORE_V8_FLAGS, ...nodeFlags],
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
    },
    snapshot: {
      channels: server.msg.channels,
      tags: server.msg.tags,
      campaigns: server.msg.campaigns,
      suppliers: suppliers.length + 1,
      startBuildMs: server.msg.buildMs,
    },
    bidRequestBytes: bytes,
    R,
    bare: bareLoad,
    rtbCampaigns: {
      ...rtbMax,
      ofR: Math.round((rtbMax.rps / R) * 100) / 100,
      target: '>= 0.4 R',
      eventLoop: rtbMaxLoop,
    },
    rtbCampaignsHalfLoad: { ...rtbHalf, target: 'p99 <= 5 ms', eventLoop: rtbHalfLoop },
    fanOutFiveExchanges: {
      ...fan,
      bidderDelayMs: BIDDER_DELAY_MS,
      addedP99Ms: Math.round(fan.added.p99Ms * 100) / 100,
      addedOverNominalP99Ms: Math.round((fan.p99Ms - BIDDER_DELAY_MS) * 100) / 100,
      target: 'added <= 3 ms at p99',
      eventLoop: fanLoop,
    },
    rssMb: rss,
  };
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results/openrtb.json'), `${JSON.stringify(result, null, 2)}\n`);
  sayTable({
    bare: { rps: R, p99: bareLoad.p99Ms },
    rtbCampaigns: {
      rps: rtbMax.rps,
      ofR: result.rtbCampaigns.ofR,
      p99: rtbMax.p99Ms,
      statuses: JSON.stringify(rtbMax.statuses),
      loopMax: rtbMaxLoop.loopMaxMs,
      cpuS: rtbMax.serverCpuS,
      kernelS: rtbMax.serverKernelCpuS,
      threads: JSON.stringify(rtbMax.serverThreadsCpuS),
    },
    rtbHalfCpu: {
      cpuS: rtbHalf.serverCpuS,
      kernelS: rtbHalf.serverKernelCpuS,
      threads: JSON.stringify(rtbHalf.serverThreadsCpuS),
    },
    rtbHalfLoad: { rps: rtbHalf.rps, p99: rtbHalf.p99Ms, loopMax: rtbHalfLoop.loopMaxMs },
    fanOut: {
      rps: fan.rps,
      p99: fan.p99Ms,
      added: result.fanOutFiveExchanges.addedP99Ms,
      slowestHoldP99: fan.slowestHold.p99Ms,
      statuses: JSON.stringify(fan.statuses),
      loopMax: fanLoop.loopMaxMs,
    },
  });
  say(`bid request: ${bytes} bytes; rss: ${rss} MB`);
  process.exit(0);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
