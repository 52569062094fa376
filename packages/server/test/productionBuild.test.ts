import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleServer } from '../src/scripts/buildServer.js';
import { loadSettings } from '../src/settings.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { seedIfEmpty } from '../src/store/seed.js';
import { type RunningAdplane, startAdplane } from './adplaneCommand.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * What `npm start` serves: the bundle `src/scripts/buildServer.ts` writes (dist/main.mjs), run by plain node
 * without the TypeScript loader. It must find the files the server reads beside its sources (the IVT
 * lists the edge loads at start, the demo video), fork its workers from the bundle, and serve the
 * demo channel's VAST.
 */
const SERVER = fileURLToPath(new URL('..', import.meta.url));

describe('the production build (dist/main.mjs)', () => {
  let running: RunningAdplane | undefined;
  let dataDir = '';
  let bundle = '';
  let channelUid = '';
  let demoTagLine = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adplane-build-'));
    bundle = join(SERVER, 'dist', `test-${process.pid}.mjs`);
    await bundleServer(join(SERVER, 'src/main.ts'), bundle);

    const settings = loadSettings({
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ADPLANE_DEMO: '1',
      ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD,
    });
    const store = await openStore(settings);
    await migrateToLatest(store);
    const seed = await seedIfEmpty(store, settings);
    const row = await store.db
      .selectFrom('supply_channels' as never)
      .select('uid' as never)
      .where('name' as never, '=', 'Demo player - auction' as never)
      .executeTakeFirstOrThrow();
    channelUid = (row as { uid: string }).uid;
    // the start prints the demo's tag URLs to try at once (main.ts prints the seed's notes)
    demoTagLine = seed.notes.find((line) => line.includes('Demo player - auction')) ?? '';
    await store.close();

    running = await startAdplane(
      [bundle, '--role', 'edge', '--workers', '2'],
      {
        DATA_DIR: dataDir,
        ADPLANE_DEMO: '1',
        ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD,
        ADPLANE_WEB_DIST: join(dataDir, 'none'),
      },
      { cwd: tmpdir(), workers: 2 },
    );
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    rmSync(bundle, { force: true });
    rmSync(`${bundle}.map`, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers health, fills the demo channel with the demo video it serves, and stops cleanly on SIGTERM', async () => {
    const base = `http://127.0.0.1:${running!.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const printed = /'https?:\/\/[^/]+(\/vast\/[^']+)'/.exec(demoTagLine)?.[1];
    expect(printed).toBe(`/vast/${channelUid}?w=640&h=360&ip=8.8.8.8`);
    const vast = await fetch(`${base}${printed}`);
    expect(vast.status).toBe(200);
    const xml = await vast.text();
    expect(xml).toContain('<InLine>');
    expect(xml).toContain('/media/demo-ad.mp4');
    const video = await fetch(`${base}/media/demo-ad.mp4`, { headers: { range: 'bytes=0-99' } });
    expect(video.status).toBe(206);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    await video.arrayBuffer();
    expect(await running!.stop()).toBe(0);
  });
});

describe('the benches’ server bundle (bench/edge.bench.ts --serve)', () => {
  it('holds no program entry point: main.ts run where it is bundled parses the bench’s arguments and exits', async () => {
    const { readFileSync } = await import('node:fs');
    const out = join(SERVER, 'dist', `bench-test-${process.pid}.mjs`);
    try {
      await bundleServer(fileURLToPath(new URL('../../../bench/edge.bench.ts', import.meta.url)), out);
      const sources = readFileSync(out, 'utf8').match(/^\/\/ (\S+\.ts)$/gm) ?? [];
      expect(sources.length).toBeGreaterThan(100);
      expect(sources.filter((line) => line.endsWith('packages/server/src/main.ts'))).toEqual([]);
    } finally {
      rmSync(out, { force: true });
      rmSync(`${out}.map`, { force: true });
    }
  }, 60_000);
});
