import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleServer } from '../src/scripts/buildServer.js';
import { loadSettings } from '../src/settings.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { seedIfEmpty } from '../src/store/seed.js';
import { freePort } from './deliveryEngines.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * What `npm start` serves: the bundle `src/scripts/buildServer.ts` writes (dist/main.mjs), run by plain node
 * without the TypeScript loader. It must find the files the server reads beside its sources (the IVT
 * lists the edge loads at start, the demo video), fork its workers from the bundle, and serve the
 * demo channel's VAST.
 */
const SERVER = fileURLToPath(new URL('..', import.meta.url));

describe('the production build (dist/main.mjs)', () => {
  let proc: ChildProcess;
  let exited: Promise<number | null>;
  let port = 0;
  let dataDir = '';
  let bundle = '';
  let channelUid = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adplane-build-'));
    bundle = join(SERVER, 'dist', `test-${process.pid}.mjs`);
    await bundleServer(join(SERVER, 'src/main.ts'), bundle);

    const settings = loadSettings({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, ADPLANE_DEMO: '1', ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD });
    const store = await openStore(settings);
    await migrateToLatest(store);
    await seedIfEmpty(store, settings);
    const row = await store.db.selectFrom('supply_channels' as never).select('uid' as never).where('name' as never, '=', 'Demo player - auction' as never).executeTakeFirstOrThrow();
    channelUid = (row as { uid: string }).uid;
    await store.close();

    port = await freePort();
    proc = spawn(process.execPath, [bundle, '--role', 'edge', '--workers', '2'], {
      cwd: tmpdir(),
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), ADPLANE_HOST: `http://127.0.0.1:${port}`, ADPLANE_DEMO: '1', ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD, LOG_LEVEL: 'warn', ADPLANE_WEB_DIST: join(dataDir, 'none'), REDIS_URL: '', CLICKHOUSE_URL: '', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the bundle did not listen within 90 s')), 90_000);
      void exited.then((code) => reject(new Error(`the bundle exited (${code}) before listening`)));
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        if (line.includes('2 workers) listening on')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }, 120_000);

  afterAll(async () => {
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(bundle, { force: true });
    rmSync(`${bundle}.map`, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers health, fills the demo channel with the demo video it serves, and stops cleanly on SIGTERM', async () => {
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const vast = await fetch(`${base}/vast/${channelUid}?w=640&h=360&ip=8.8.8.8`);
    expect(vast.status).toBe(200);
    const xml = await vast.text();
    expect(xml).toContain('<InLine>');
    expect(xml).toContain('/media/demo-ad.mp4');
    const video = await fetch(`${base}/media/demo-ad.mp4`, { headers: { range: 'bytes=0-99' } });
    expect(video.status).toBe(206);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    await video.arrayBuffer();
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
