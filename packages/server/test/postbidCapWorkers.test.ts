import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAdplane, startAdplane, callProgram } from './adplaneCommand.js';
import { programArgs } from './program.js';
import { hasRedisServer, type OwnRedis, redisForProgram } from './deliveryEngines.js';
import { seedDemoStore } from './demoStore.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * The post-bid monthly cap (postbidMaxImps) across the processes of a deployment: `adplane
 * --workers 2` as an operator runs it, real /vast requests spread over both workers (node's cluster
 * hands each new connection to the next worker) on an account whose every answer would carry its
 * post-bid pixel. The month's post-bid decisions of both together stop at the cap: with the counters
 * reachable the stated bound adds nothing (docs/traffic-quality.md). Once on the in-process counters
 * (the primary holds them), once on Redis (a redis-server of its own, else REDIS_URL).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const PIXEL_HOST = 'https://scan.cap-vendor.test/p';
const CAP = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = callProgram;

const redisPresent = hasRedisServer() || !!process.env.REDIS_URL;
const ENGINES = ['memory', ...(redisPresent ? ['redis'] : [])] as const;

describe.each(ENGINES)('post-bid monthly cap over adplane --workers 2 (%s counters)', (engine) => {
  let cluster: RunningAdplane | null = null;
  let own: OwnRedis | null = null;
  let dataDir = '';

  beforeAll(async () => {
    let redisUrl = '';
    if (engine === 'redis') ({ url: redisUrl, own } = await redisForProgram());
    dataDir = mkdtempSync(join(tmpdir(), 'adplane-pbcap-'));
    // the demo workspace (users; Northwind is granted post-bid), without the demo history
    await seedDemoStore(dataDir);
    cluster = await startAdplane(
      programArgs('--workers', '2'),
      { DATA_DIR: dataDir, ADPLANE_DEMO: '0', ADPLANE_WEB_DIST: join(dataDir, 'none'), REDIS_URL: redisUrl },
      { cwd: ROOT, workers: 2 },
    );
  }, 55_000);

  afterAll(async () => {
    if (cluster?.proc.exitCode === null) await cluster.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await own?.stop();
  });

  it('stops post-bid pixels at postbidMaxImps across both workers, with real /vast requests on both', {
    timeout: 55_000,
  }, async () => {
    const port = cluster!.port;
    const loginAs = async (username: string) => {
      const res = await call(port, '/api/auth/login', { method: 'POST', body: { username, password: DEMO_PASSWORD } });
      expect(res.status, res.body).toBe(200);
      return res.cookie!;
    };
    const [admin, demand] = [await loginAs('admin'), await loginAs('demand')];
    const api = async (
      method: string,
      path: string,
      cookie: string,
      body?: unknown,
      status = 200,
    ): Promise<Record<string, unknown>> => {
      const res = await call(port, path, { method, cookie, body });
      expect(res.status, res.body).toBe(status);
      return JSON.parse(res.body || '{}') as Record<string, unknown>;
    };
    // the admin's cap; the account: every answer sampled, all its post-bid pixels on every channel
    await api('PUT', '/api/admin/config', admin, { postbidMaxImps: CAP, postbidMaxReps: 0 });
    await api(
      'POST',
      '/api/demand/ivts',
      demand,
      {
        name: 'Cap scan',
        vendor: 'Cap Vendor',
        stage: 'postbid',
        samplePercent: 100,
        urlTemplate: `${PIXEL_HOST}?cb={{cachebuster}}`,
      },
      201,
    );
    const info = await api('GET', '/api/demand/info', demand);
    await api('PUT', '/api/demand/info', demand, { ...info, postbidPercent: 100, setPostbidAll: 1 });
    const spot = await api(
      'POST',
      '/api/demand/creatives',
      demand,
      {
        name: 'cap-spot',
        format: 'video',
        videoSource: 'media',
        approval: 'approved',
        clickUrl: 'https://brand.example.com/',
        mediaFiles: [
          {
            url: 'https://cdn.example.com/cap-spot.mp4',
            mime: 'video/mp4',
            duration: 15,
            width: 640,
            height: 360,
            bitrate: 800,
          },
        ],
      },
      201,
    );
    await api(
      'POST',
      '/api/demand/campaigns',
      demand,
      {
        name: 'Post-bid cap',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 50_000_000,
        channelScope: 'all',
        pacing: 'asap',
        creativeIds: [spot.id],
      },
      201,
    );
    const channel = await api(
      'POST',
      '/api/demand/channels',
      demand,
      { name: 'Cap CTV', vastVersion: '4.2', demandMode: 'auction', timeoutMs: 1000, demand: [] },
      201,
    );

    // decisions on both workers until neither has carried a pixel for 6 s (an idle worker's allowance
    // goes back after 5 s: docs/delivery.md), at most 400 requests
    const filled = new Map<string, number>();
    const carried = new Map<string, number>();
    /** Pixels carried by UTC month (the cap's): two months when one turned within the test. */
    const byMonth = new Map<string, number>();
    let total = 0;
    for (let i = 0, last = Date.now(); Date.now() - last < 6_000 && i < 400; i++) {
      const res = await call(port, `/vast/${String(channel.uid)}?w=640&h=360&ip=8.8.8.8&device_id=pb${i}`);
      // the account's writes reach a worker within a second: until then the channel is unknown there (404)
      expect([200, 404]).toContain(res.status);
      if (res.status === 404 || !res.body.includes('cap-spot.mp4')) {
        // and the campaign may not fill yet
        await sleep(20);
        continue;
      }
      filled.set(res.worker, (filled.get(res.worker) ?? 0) + 1);
      if (res.body.includes(PIXEL_HOST)) {
        carried.set(res.worker, (carried.get(res.worker) ?? 0) + 1);
        const month = new Date().toISOString().slice(0, 7);
        byMonth.set(month, (byMonth.get(month) ?? 0) + 1);
        total++;
        last = Date.now();
      } else await sleep(20); // a worker without an allowance asks the primary (or Redis) in the background
    }
    // both workers filled answers, and both carried pixels: the cap is one count for the two
    expect(filled.size).toBe(2);
    expect(carried.size).toBe(2);
    // each month's post-bid decisions of both together: never over the cap (the stated bound adds
    // nothing while the counters answer and no worker dies), and the last month's cap was reached
    const months = [...byMonth.keys()].sort().map((m) => byMonth.get(m)!);
    for (const n of months) expect(n).toBeLessThanOrEqual(CAP);
    expect(months.at(-1)).toBeGreaterThanOrEqual(CAP - 2);
    // filled answers went on without pixels past the cap
    expect([...filled.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(total);
  });
});
