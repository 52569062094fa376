import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStatsStore, STATS_TABLE } from '../src/stats/statsStore.js';
import { callProgram, probeUntil, type RunningAdplane, startAdplane } from './adplaneCommand.js';
import { programArgs } from './program.js';
import { seedDemoStore } from './demoStore.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * What a shutdown and a crash may lose of the answered requests and events, on the real program
 * (main.ts) under paced load, its processes run one after the other on one DATA_DIR (the embedded
 * stores, the replay guard kept in its files):
 * - SIGTERM mid-load: every VAST request and impression beacon answered 200 is counted, exactly.
 * - SIGKILL mid-load: nothing answered is counted twice, even when the next process is sent every
 *   beacon again; what is lost is at most what was answered in the last flush interval and the
 *   flush's own time.
 * The program runs with a flush interval of 1 s (ADPLANE_STATS_FLUSH_SECONDS) instead of the default
 * 5 s: the same code on a shorter period, so the load before a kill spans several flushes in a few
 * seconds, and the loss bound is one (shorter) interval.
 * Each run serves a channel of its own, so each run's counts are read apart; after every fault
 * the next process is sent all the impression beacons the last one answered.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'adplane-faults-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const RUNS = ['SIGTERM', 'SIGKILL', 'SIGTERM', 'SIGKILL'] as const;
/** VAST requests a second, each filled answer's impression beacon sent at once. */
const RATE = 60;
/** The counters' flush interval the program is given (ADPLANE_STATS_FLUSH_SECONDS). */
const FLUSH_S = 1;
/** Load before SIGTERM; before SIGKILL (longer than the loss window, so the bound means something). */
const LOAD_MS = { SIGTERM: 3_000, SIGKILL: 5_000 } as const;
/** The counters' flush interval and room for a flush under way when the process dies. */
const LOSS_WINDOW_MS = FLUSH_S * 1000 + 2_000;

interface Answered {
  /** When each VAST 200 was received. */
  vast: number[];
  /** Each impression URL answered 200, with when. */
  impressions: Map<string, number>;
}

const start = () =>
  startAdplane(
    programArgs(),
    {
      DATA_DIR: dataDir,
      ADPLANE_DEMO: '0',
      ADPLANE_WEB_DIST: join(dataDir, 'none'),
      ADPLANE_STATS_FLUSH_SECONDS: String(FLUSH_S),
    },
    { cwd: ROOT, workers: 1 },
  );

const impressionUrls = (xml: string) =>
  [...xml.matchAll(/<Impression><!\[CDATA\[([^\]]+)\]\]>/g)]
    .map((m) => m[1]!)
    .filter((u) => u.includes('/ev?e=impression&'));

/**
 * Sends RATE VAST requests a second to `tag` (keep-alive connections, as players' libraries use),
 * and each filled answer's impression URLs, until `stop` is called; records every 200 with its time.
 * Requests the dying process does not answer fail, and are not recorded.
 */
function pacedLoad(tag: string) {
  const answered: Answered = { vast: [], impressions: new Map() };
  const inFlight = new Set<Promise<void>>();
  const send = async () => {
    const res = await fetch(tag);
    const body = await res.text();
    if (res.status !== 200) return;
    answered.vast.push(Date.now());
    for (const url of impressionUrls(body)) {
      const imp = await fetch(url);
      await imp.arrayBuffer();
      if (imp.status === 200) answered.impressions.set(url, Date.now());
    }
  };
  const timer = setInterval(() => {
    const p = send().catch(() => undefined);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }, 1000 / RATE);
  return {
    answered,
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight]);
    },
  };
}

/**
 * Sends every beacon in `urls` again to the process at `base`, a few at a time (as many players
 * would), and expects each answered 200.
 */
async function replayBeacons(urls: Iterable<string>, base: string) {
  const queue = [...urls];
  const sender = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      const replayed = await fetch(url.replace(/^http:\/\/127\.0\.0\.1:\d+/, base));
      await replayed.arrayBuffer();
      expect(replayed.status).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
}

describe('counts across a shutdown and a crash, under load', () => {
  it('counts every answered request and impression once: exactly through SIGTERM, never twice and within the flush window through SIGKILL', {
    timeout: 240_000,
  }, async () => {
    await seedDemoStore(dataDir);
    let running: RunningAdplane = await start();
    const login = await callProgram(running.port, '/api/auth/login', {
      method: 'POST',
      body: { username: 'demand', password: DEMO_PASSWORD },
    });
    expect(login.status, login.body).toBe(200);
    const channels: { id: number; uid: string }[] = [];
    for (const signal of RUNS) {
      const created = await callProgram(running.port, '/api/demand/channels', {
        method: 'POST',
        cookie: login.cookie!,
        body: { name: `Fault probe ${channels.length + 1} (${signal})` },
      });
      expect(created.status, created.body).toBe(201);
      channels.push(JSON.parse(created.body) as { id: number; uid: string });
    }

    const runs: { signal: (typeof RUNS)[number]; answered: Answered; killedAt: number }[] = [];
    for (const [i, signal] of RUNS.entries()) {
      const base = `http://127.0.0.1:${running.port}`;
      const tag = `${base}/vast/${channels[i]!.uid}?w=640&h=360&ip=8.8.8.8`;
      // the beacons the last process answered, sent to this one: none may count again
      await replayBeacons(runs.at(-1)?.answered.impressions.keys() ?? [], base);
      // (a 200 here is an answered request too: counted with the load's)
      const probed = await probeUntil('the channel in the snapshot', async () => {
        const res = await fetch(tag);
        await res.arrayBuffer();
        return res.status === 200 ? Date.now() : null;
      });
      const load = pacedLoad(tag);
      load.answered.vast.push(probed);
      const loadFrom = Date.now();
      await probeUntil(
        'load on the channel',
        async () => (Date.now() - loadFrom >= LOAD_MS[signal] ? true : null),
        LOAD_MS[signal] + 5_000,
      );
      const killedAt = Date.now();
      running.proc.kill(signal);
      const code = await running.exited;
      await load.stop();
      if (signal === 'SIGTERM') expect(code).toBe(0);
      runs.push({ signal, answered: load.answered, killedAt });
      running = await start();
    }
    await replayBeacons(runs.at(-1)!.answered.impressions.keys(), `http://127.0.0.1:${running.port}`);
    expect(await running.stop()).toBe(0);

    const stats = await openStatsStore({ dataDir, clickhouseUrl: null });
    try {
      for (const [i, run] of runs.entries()) {
        const [sums] = await stats.select(
          `SELECT sum(reqs) AS reqs, sum(imps) AS imps FROM ${STATS_TABLE} WHERE channel_id = ${channels[i]!.id}`,
        );
        const counted = { reqs: Number(sums!.reqs ?? 0), imps: Number(sums!.imps ?? 0) };
        const answered = { reqs: run.answered.vast.length, imps: run.answered.impressions.size };
        const what = `run ${i + 1} (${run.signal}): answered ${JSON.stringify(answered)}, counted ${JSON.stringify(counted)}`;
        expect(answered.imps, what).toBeGreaterThan(50);
        if (run.signal === 'SIGTERM') {
          expect(counted, what).toEqual(answered);
          continue;
        }
        // never more than answered: a beacon sent again after the crash counted at most once in all
        expect(counted.reqs, what).toBeLessThanOrEqual(answered.reqs);
        expect(counted.imps, what).toBeLessThanOrEqual(answered.imps);
        // lost: at most what was answered in the last flush window before the kill
        const recent = (times: Iterable<number>) => [...times].filter((t) => t >= run.killedAt - LOSS_WINDOW_MS).length;
        expect(answered.reqs - counted.reqs, what).toBeLessThanOrEqual(recent(run.answered.vast));
        expect(answered.imps - counted.imps, what).toBeLessThanOrEqual(recent(run.answered.impressions.values()));
      }
    } finally {
      await stats.close();
    }
  });
});
