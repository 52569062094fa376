import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStatsStore, STATS_TABLE } from '../src/stats/statsStore.js';
import { probeUntil } from './adplaneCommand.js';
import { programArgs } from './program.js';
import { freePort } from './localServer.js';

/**
 * The edge's counters live in memory and reach the stats store every few seconds: a SIGTERM between
 * two flushes must lose nothing. The real program (main.ts) runs in a child process on a fresh
 * store; requests and events are sent over HTTP, SIGTERM comes before the first timed flush, and the
 * stats store read after the exit holds exactly what was sent.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'adplane-sigterm-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SIGTERM', () => {
  it('flushes the edge counters: requests, impressions (a replay once) and video events all reach the stats store', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn(process.execPath, programArgs(), {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        // none of the machine's servers (REDIS_URL too: the program's default key prefix on the one
        // Redis would be shared with other test files and earlier runs, which spent the demo budgets)
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        CLICKHOUSE_URL: '',
        REDIS_URL: '',
        ADPLANE_DEMO: '1',
        ADPLANE_DEMO_PASSWORD: 'demo',
        LOG_LEVEL: 'warn',
        ADPLANE_HOST: base,
        ADPLANE_WEB_DIST: join(dataDir, 'no-console'),
      },
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await probeUntil('the server', async () => ((await fetch(`${base}/healthz`)).ok ? true : null), 60_000);

      // a channel of its own, so that the demo history's rows are not in the sums
      const json = { 'content-type': 'application/json', origin: base };
      const login = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: 'demand', password: 'demo' }),
      });
      expect(login.status, await login.clone().text()).toBe(200);
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const created = await fetch(`${base}/api/demand/channels`, {
        method: 'POST',
        headers: { ...json, cookie },
        body: JSON.stringify({ name: 'SIGTERM probe' }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const channel = (await created.json()) as { id: number; uid: string };

      const tag = `${base}/vast/${channel.uid}?w=640&h=360&ip=8.8.8.8`;
      let requests = 0;
      const first = await probeUntil(
        'the channel in the snapshot',
        async () => {
          const res = await fetch(tag);
          if (res.status === 404) return null;
          requests++;
          return res.text();
        },
        60_000,
      );
      const answers = [first];
      for (let i = 0; i < 6; i++) {
        answers.push(await (await fetch(tag)).text());
        requests++;
      }
      const urls = (xml: string, event: string) =>
        [...xml.matchAll(/<!\[CDATA\[([^\]]+)\]\]>/g)].map((m) => m[1]!).filter((u) => u.includes(`/ev?e=${event}&`));
      const impressions = answers.flatMap((a) => urls(a, 'impression')).slice(0, 5);
      const starts = answers.flatMap((a) => urls(a, 'start')).slice(0, 3);
      expect(impressions.length, 'the demo campaigns fill the new channel').toBe(5);
      for (const u of [...impressions, impressions[0]!, ...starts]) expect((await fetch(u)).status).toBe(200);

      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);

      const stats = await openStatsStore({ dataDir, clickhouseUrl: null });
      try {
        const [sums] = await stats.select(
          `SELECT sum(reqs) AS reqs, sum(imps) AS imps, sum(starts) AS starts FROM ${STATS_TABLE} WHERE channel_id = ${channel.id}`,
        );
        expect({ reqs: Number(sums!.reqs), imps: Number(sums!.imps), starts: Number(sums!.starts) }).toEqual({
          reqs: requests,
          imps: 5,
          starts: 3,
        });
      } finally {
        await stats.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
