/**
 * The pre-bid IVT check alone, in one process (it runs on every ad request; target: a few
 * microseconds):
 *
 *   npx tsx bench/ivt.bench.ts            (or: npm run bench:ivt; BENCH_OPS=2000000 for longer runs)
 *
 * Prints ns per check for clean traffic (CTV, mobile app, web; with the per-device rate counter,
 * over 10,000 devices and addresses) and for flagged traffic (datacenter address, crawler, private
 * address, bundle and OS contradictions), plus the time to load the shipped lists. User agents
 * repeat as they do in real traffic (a handful per device family), so their profiles come from the
 * cache after the first sight; one case sends a new user agent every time, the worst case.
 * Nothing is written: timings on a shared machine are noise (docs/performance.md).
 */
import { performance } from 'node:perf_hooks';
import { checkTraffic, createTrafficCheckState, type TrafficFacts } from '../packages/server/src/ivt/checkTraffic.js';
import { loadTrafficLists } from '../packages/server/src/ivt/trafficLists.js';

const OPS = Number(process.env.BENCH_OPS ?? 500_000);
const DEVICES = 10_000;

const UA = {
  roku: 'Roku/DVP-12.5 (12.5.0.4178)',
  tizen:
    'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36',
  android:
    'Mozilla/5.0 (Linux; Android 13; SM-S918B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile Safari/537.36',
  chrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const ids = Array.from({ length: DEVICES }, (_, i) => `${hex((i * 2654435761) >>> 0, 8)}-8246-4ba4-ae5b-${hex(i, 12)}`);
const homeV4 = Array.from({ length: DEVICES }, (_, i) => `73.${162 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);
const homeV6 = Array.from({ length: DEVICES }, (_, i) => `2601:600:${hex(i, 4)}:41::1b`);

const base: TrafficFacts = {
  origin: 'vast',
  source: 'channel-1',
  ip: '',
  ipFromConnection: false,
  ua: '',
  environment: '',
  bundle: '',
  storeUrl: '',
  deviceId: '',
  deviceIdType: '',
  lmt: null,
  deviceType: 0,
  os: '',
  now: Date.now(),
};

interface Case {
  name: string;
  /** The facts of request i (objects built up front: the loop times the check, not the building). */
  facts: TrafficFacts[];
  expect: string;
}

const make = (name: string, expect: string, f: (i: number) => Partial<TrafficFacts>, count = DEVICES): Case => ({
  name,
  expect,
  facts: Array.from({ length: count }, (_, i) => ({
    ...base,
    ...f(i % DEVICES),
    ...(count > DEVICES ? { ua: `${UA.android} build/${i}` } : {}),
  })),
});
const WORST = 100_000;

const CASES: Case[] = [
  make('clean CTV (Roku, device id)', '', (i) => ({
    ua: UA.roku,
    ip: homeV4[i],
    environment: 'ctv',
    bundle: '151908',
    deviceId: ids[i],
    deviceType: 3,
  })),
  make('clean CTV over OpenRTB (Tizen, IPv6)', '', (i) => ({
    origin: 'openrtb',
    ua: UA.tizen,
    ip: homeV6[i],
    environment: 'ctv',
    bundle: 'G15147002586',
    deviceId: ids[i],
    lmt: false,
    deviceType: 3,
    os: 'Tizen',
  })),
  make('clean mobile app (Android)', '', (i) => ({
    origin: 'openrtb',
    ua: UA.android,
    ip: homeV4[i],
    environment: 'app',
    bundle: 'com.king.candycrushsaga',
    storeUrl: 'https://play.google.com/store/apps/details?id=com.king.candycrushsaga',
    deviceId: ids[i],
    deviceType: 4,
    os: 'Android',
  })),
  make('clean web (no device id: IP + UA rate key)', '', (i) => ({ ua: UA.chrome, ip: homeV4[i], environment: 'web' })),
  make('flagged: datacenter IPv4', 'datacenter_ip', (i) => ({
    ua: UA.chrome,
    ip: `52.94.236.${i & 255}`,
    environment: 'web',
  })),
  make('flagged: datacenter IPv6', 'datacenter_ip', (i) => ({
    ua: UA.chrome,
    ip: `2600:1f18:4a3:${hex(i, 4)}::1`,
    environment: 'web',
  })),
  make('flagged: known crawler', 'known_crawler', (i) => ({ ua: UA.googlebot, ip: homeV4[i], environment: 'web' })),
  make('flagged: private address', 'private_ip', (i) => ({
    ua: UA.roku,
    ip: `192.168.${(i >> 8) & 255}.${i & 255}`,
    environment: 'ctv',
    bundle: '151908',
  })),
  make('flagged: stated iOS, Android UA', 'ua_os_mismatch', (i) => ({
    origin: 'openrtb',
    ua: UA.android,
    ip: homeV4[i],
    environment: 'app',
    bundle: 'com.vendor.app',
    deviceId: ids[i],
    os: 'iOS',
  })),
  make(
    'worst case: a new user agent every request',
    '',
    (i) => ({ ip: homeV4[i], environment: 'app', bundle: 'com.vendor.app', deviceId: ids[i] }),
    2 * WORST,
  ),
];

/** `ops` checks of the case's requests from `from` on (cycling), on a fresh rate counter. */
function run(c: Case, from: number, ops: number): number {
  const state = createTrafficCheckState({ lists });
  const n = c.facts.length;
  let flagged = 0;
  const start = performance.now();
  for (let i = 0; i < ops; i++) {
    const f = c.facts[(from + i) % n]!;
    // 10 requests per device per 10 s: under the rate limits, so the clean cases stay clean
    f.now = base.now + i * 0.1;
    if (checkTraffic(f, state).reason !== c.expect) flagged++;
  }
  const ns = ((performance.now() - start) * 1e6) / ops;
  if (flagged) throw new Error(`${c.name}: ${flagged} of ${ops} checks did not answer '${c.expect}'`);
  return ns;
}

const started = performance.now();
const lists = loadTrafficLists();
const loadMs = performance.now() - started;
process.stdout.write(`lists loaded in ${loadMs.toFixed(0)} ms: ${JSON.stringify(lists.summary)}\n\n`);

const rows: [string, string][] = [];
for (const c of CASES) {
  // warm-up (JIT, caches), then the measured run; the worst case measures user agents never seen
  const worst = c.facts.length > DEVICES;
  run(c, 0, worst ? WORST : Math.min(OPS, 50_000));
  const ns = worst ? run(c, WORST, WORST) : run(c, 0, OPS);
  rows.push([c.name, ns.toFixed(0)]);
}
const width = Math.max(...rows.map((r) => r[0].length));
process.stdout.write(`${'case'.padEnd(width)}  ns/op\n`);
for (const [name, ns] of rows) process.stdout.write(`${name.padEnd(width)}  ${ns.padStart(5)}\n`);
