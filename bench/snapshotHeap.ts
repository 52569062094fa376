/**
 * What the edge's live V8 heap holds with the edge bench's store (10,000 channels, 20,000 demand
 * tags, 100,000 campaigns): the real app (`--role edge`) over it in this process, a full collection,
 * heapUsed, and a heap snapshot's self sizes by constructor (what docs/performance.md's live heap is made of):
 *
 *   npx tsx bench/snapshotHeap.ts            (BENCH_DATA=<dir>: reuse a store filled by an earlier run)
 *
 * It writes bench/results/snapshot-heap.json (the figures and the top constructors).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '../packages/server/src/app.js';
import type {} from '../packages/server/src/edge/doors/edge.js';
import { loadSettings } from '../packages/server/src/settings.js';
import { openStore } from '../packages/server/src/store/db.js';
import { fill } from './edge.bench.js';
import { machineFacts, say, writeResult } from './edge/harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

/**
 * Self sizes of a heap snapshot's nodes by type and constructor, biggest first; plain objects by
 * their first property names too (a campaign, a tag, a limit), V8's internal arrays by their name
 * (a map's table, an object's elements), strings by their first characters, digits as #.
 */
function bySelfSize(file: string): [string, number, number][] {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: {
      meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
    };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const types = meta.node_types[0];
  const [typeAt, nameAt, sizeAt, edgesAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  ) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt] = ['type', 'name_or_index'].map((f) => meta.edge_fields.indexOf(f)) as [
    number,
    number,
  ];
  const property = meta.edge_types[0].indexOf('property');
  const sums = new Map<string, [number, number]>();
  /** Each node's key, by node number. */
  const keys: string[] = [];
  let edge = 0;
  for (let i = 0; i < snap.nodes.length; i += nf) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const edges = snap.nodes[i + edgesAt]!;
    let name =
      type === 'object' || type === 'closure' || type === 'array' ? snap.strings[snap.nodes[i + nameAt]!]! : '';
    if (type === 'object' && name === 'Object') {
      const keys: string[] = [];
      for (let e = edge; e < edge + edges * ef && keys.length < 4; e += ef)
        if (snap.edges[e + edgeTypeAt] === property) keys.push(snap.strings[snap.edges[e + edgeNameAt]!]!);
      name += ` {${keys.join(',')}}`;
    }
    edge += edges * ef;
    // strings by their shape: digits as #, the first 16 characters
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
      name = JSON.stringify(snap.strings[snap.nodes[i + nameAt]!]!.slice(0, 16).replace(/[0-9]+/g, '#'));
    const key = `${type} ${name}`.trim();
    keys.push(key);
    const sum = sums.get(key) ?? [0, 0];
    sum[0] += snap.nodes[i + sizeAt]!;
    sum[1]++;
    sums.set(key, sum);
  }
  // BENCH_HEAP_HELD_BY=<key of the table>: what holds the nodes of that key, by the edge's name and its holder's key
  const heldBy = process.env.BENCH_HEAP_HELD_BY;
  if (heldBy) {
    const toAt = meta.edge_fields.indexOf('to_node');
    const holders = new Map<string, number>();
    let e2 = 0;
    for (let i = 0; i < snap.nodes.length; i += nf)
      for (let k = 0; k < snap.nodes[i + edgesAt]!; k++, e2 += ef)
        if (keys[snap.edges[e2 + toAt]! / nf] === heldBy) {
          const t = meta.edge_types[0][snap.edges[e2 + edgeTypeAt]!]!;
          const edgeName = t === 'element' || t === 'hidden' ? `[${t}]` : snap.strings[snap.edges[e2 + edgeNameAt]!];
          const key = `${keys[i / nf]} .${edgeName}`;
          holders.set(key, (holders.get(key) ?? 0) + 1);
        }
    for (const [k, n] of [...holders].sort((a, b) => b[1] - a[1]).slice(0, 12)) say(`${String(n).padStart(9)}  ${k}`);
  }
  if (process.env.BENCH_HEAP_BIGGEST) {
    // the biggest single nodes, each with what holds it (the first edge met that points at it)
    const sizes: [number, number][] = [];
    for (let i = 0; i < snap.nodes.length; i += nf) sizes.push([i, snap.nodes[i + sizeAt]!]);
    sizes.sort((a, b) => b[1] - a[1]);
    const biggest = new Map(sizes.slice(0, Number(process.env.BENCH_HEAP_BIGGEST)).map(([i]) => [i, '']));
    const toAt = meta.edge_fields.indexOf('to_node');
    let e = 0;
    for (let i = 0; i < snap.nodes.length; i += nf) {
      for (let k = 0; k < snap.nodes[i + edgesAt]!; k++, e += ef) {
        const to = snap.edges[e + toAt]!;
        if (biggest.get(to) === '') {
          const edgeName = snap.edges[e + edgeNameAt]!;
          const named =
            meta.edge_types[0][snap.edges[e + edgeTypeAt]!] === 'element' ? `[${edgeName}]` : snap.strings[edgeName];
          biggest.set(to, `${snap.strings[snap.nodes[i + nameAt]!]!.slice(0, 40)} .${named}`);
        }
      }
    }
    for (const [i, by] of biggest)
      say(
        `${mb(snap.nodes[i + sizeAt]!)
          .toFixed(2)
          .padStart(
            8,
          )}  ${types[snap.nodes[i + typeAt]!]} ${snap.strings[snap.nodes[i + nameAt]!]!.slice(0, 30)}  <- ${by}`,
      );
  }
  return [...sums]
    .map(([k, [size, count]]) => [k, size, count] as [string, number, number])
    .sort((a, b) => b[1] - a[1]);
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  let dataDir = process.env.BENCH_DATA;
  if (!dataDir || !existsSync(join(dataDir, 'adplane.sqlite'))) {
    dataDir ??= mkdtempSync(join(tmpdir(), 'adplane-snapshot-heap-'));
    say(`filling ${dataDir}...`);
    const filled = await fill(dataDir, 'http://127.0.0.1:9');
    say(`filled in ${filled.fillMs} ms (BENCH_DATA=${dataDir} reuses it)`);
  }
  const settings = loadSettings({
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ADPLANE_DEMO: '0',
    ADPLANE_WEB_DIST: join(dataDir, 'none'),
    ADPLANE_HOST: 'http://127.0.0.1:1',
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
  });
  const store = await openStore(settings);
  const app = await buildApp({ settings, store, role: 'edge' });
  // the first build runs when the app starts listening (as the bench's server does)
  await app.listen({ port: 0, host: '127.0.0.1' });
  const snap = app.edge.snapshots.current!;
  gc();
  gc();
  const u = process.memoryUsage();
  say(
    `campaigns ${snap.campaigns.size}, channels ${snap.channels.size}, tags ${snap.tags.size}; build ${snap.buildMs} ms`,
  );
  say(
    `live heap ${mb(u.heapUsed)} MB (external ${mb(u.external)} MB, array buffers ${mb(u.arrayBuffers)} MB, rss ${mb(u.rss)} MB)`,
  );
  const top: [string, number, number][] = [];
  if (process.env.BENCH_HEAP_TOP !== '0') {
    const file = writeHeapSnapshot(join(tmpdir(), `adplane-snapshot-heap-${process.pid}.heapsnapshot`));
    say('-- self size by constructor (MB, count)');
    for (const [name, size, count] of bySelfSize(file).slice(0, Number(process.env.BENCH_HEAP_TOP ?? 30))) {
      say(`${mb(size).toFixed(1).padStart(8)} ${String(count).padStart(9)}  ${name}`);
      top.push([name, mb(size), count]);
    }
    rmSync(file);
  }
  writeResult('snapshot-heap', {
    at: new Date().toISOString(),
    machine: machineFacts(loadBefore, 'under tsx: its transformed sources and source maps are on the heap too'),
    campaigns: snap.campaigns.size,
    channels: snap.channels.size,
    tags: snap.tags.size,
    buildMs: snap.buildMs,
    liveHeapMb: mb(u.heapUsed),
    externalMb: mb(u.external),
    arrayBuffersMb: mb(u.arrayBuffers),
    rssMb: mb(u.rss),
    target: 'live heap <= 60 MB (docs/performance.md)',
    bySelfSizeMb: top,
  });
  await app.close();
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
