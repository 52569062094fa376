#!/usr/bin/env node
/**
 * `npm run traffic`: bounded synthetic traffic through the real edge endpoints of a running adplane
 * on 127.0.0.1, so the dashboard and reports move while a person watches. It signs in as a demand
 * user (the demo's by default) to find its VAST channels, then plays tag requests with varied
 * contexts (user agents, client addresses, apps, domains, player sizes) and, for each ad answered,
 * the impression and quartile events a player sends, some clicks and some VAST errors.
 *
 *   npm run traffic -- --requests 2000 --rate 20 [--url http://127.0.0.1:8080] [--user demand --password demo]
 */
import { parseArgs } from 'node:util';
import { vastTagPath } from '@adplane/shared';
import { PLAYED_EVENTS, readVast, withErrorCode } from './trafficVast.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: `http://127.0.0.1:${process.env.PORT ?? '8080'}` },
    requests: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '20' },
    user: { type: 'string', default: 'demand' },
    password: { type: 'string', default: process.env.ADPLANE_DEMO_PASSWORD ?? 'demo' },
  },
  strict: true,
});
const base = values.url.replace(/\/+$/, '');
if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(base)) {
  process.stderr.write('traffic only plays against a server on this machine (http://127.0.0.1:PORT)\n');
  process.exit(1);
}
const total = Math.min(Math.max(Number(values.requests) || 0, 1), 100_000);
const rate = Math.min(Math.max(Number(values.rate) || 1, 1), 500);

const USER_AGENTS = [
  'Roku/DVP-12.0 (12.0.0.4182-88)',
  'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
];
/** Public addresses of a few countries (documentation-free, stable allocations) for geo lookups. */
const ADDRESSES = ['8.8.8.8', '24.48.0.1', '81.2.69.142', '85.214.132.117', '99.224.0.1', '200.160.2.3', '133.242.0.1'];
const APPS = ['com.harbor.tv', 'com.lakeside.stream', 'tv.pinecrest.sports', ''];
const DOMAINS = ['harborvideo.test', 'pinecrestsports.test', 'dailyharbor.test'];
const SIZES = [
  [1920, 1080],
  [1280, 720],
  [640, 360],
  [300, 250],
];
const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];

async function signIn(): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: values.user, password: values.password }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!res.ok || !cookie)
    throw new Error(
      `sign-in as ${values.user} failed: HTTP ${res.status} (is adplane running at ${base} with the demo workspace?)`,
    );
  return cookie;
}

async function vastChannels(cookie: string): Promise<string[]> {
  const res = await fetch(`${base}/api/demand/channels?pageSize=100`, { headers: { cookie } });
  if (!res.ok) throw new Error(`listing channels failed: HTTP ${res.status}`);
  const page = (await res.json()) as {
    items: { uid: string | null; status: number; archived?: boolean; integration?: string }[];
  };
  return page.items
    .filter((c) => c.uid && c.status === 1 && !c.archived && (c.integration ?? 'VAST') === 'VAST')
    .map((c) => c.uid!);
}

const counts = { requests: 0, filled: 0, empty: 0, failed: 0, events: 0, clicks: 0, vastErrors: 0 };

async function call(url: string, headers: Record<string, string>): Promise<Response | null> {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  } catch {
    return null;
  }
}

async function playOne(uid: string): Promise<void> {
  const [w, h] = pick(SIZES);
  const app = pick(APPS);
  const query = new URLSearchParams({
    w: String(w),
    h: String(h),
    cb: String(Math.floor(Math.random() * 1e12)),
    ...(app ? { app_bundle: app } : { domain: pick(DOMAINS) }),
  });
  const headers = { 'user-agent': pick(USER_AGENTS), 'x-forwarded-for': pick(ADDRESSES) };
  counts.requests++;
  const res = await call(`${base}${vastTagPath(uid)}?${query}`, headers);
  if (!res || !res.ok) {
    counts.failed++;
    return;
  }
  const play = readVast(await res.text());
  if (!play.filled) {
    counts.empty++;
    return;
  }
  counts.filled++;
  // Some players fail to play the file: they call the Error URL and nothing else.
  if (Math.random() < 0.03) {
    for (const url of play.errors) await call(withErrorCode(url, 405), headers);
    counts.vastErrors++;
    return;
  }
  const fire = async (urls: readonly string[] = []) => {
    for (const url of urls) if ((await call(url, headers))?.ok) counts.events++;
  };
  await fire(play.impressions);
  // Viewers drop off as the ad plays.
  let watching = 1;
  for (const event of PLAYED_EVENTS) {
    watching *= event === 'start' ? 0.97 : 0.92;
    if (Math.random() > watching) break;
    await fire(play.events[event]);
  }
  if (Math.random() < 0.01) {
    await fire(play.clicks);
    counts.clicks++;
  }
}

async function main(): Promise<void> {
  const cookie = await signIn();
  const channels = await vastChannels(cookie);
  if (channels.length === 0) throw new Error(`${values.user} has no active VAST channel to call`);
  process.stdout.write(
    `Playing ${total} tag requests at ${rate}/s over ${channels.length} VAST channels of ${base}...\n`,
  );
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    // Paced: request i leaves at i / rate seconds, at most 50 in flight.
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= 50) await Promise.race(inFlight);
    const p = playOne(pick(channels)).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if ((i + 1) % (rate * 10) === 0)
      process.stdout.write(`  ${i + 1} requests, ${counts.filled} filled, ${counts.events} events\n`);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`Done in ${seconds.toFixed(1)} s: ${JSON.stringify(counts)}\n`);
  if (counts.failed === counts.requests) {
    process.stdout.write(
      'Every tag request failed: is the edge (the /vast route) served by this adplane (--role all or edge)?\n',
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
