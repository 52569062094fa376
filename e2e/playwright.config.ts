import { defineConfig } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EDITION_SERVERS } from './support/servers.js';

/**
 * One real adplane process per edition (the database setting changes the navigation), each on its
 * own fresh SQLite store with the demo workspace. The V2V one encrypts its responses, so the
 * console's json-encrypt path is exercised in a real browser too.
 */
export default defineConfig({
  testDir: './specs',
  outputDir: '../test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: EDITION_SERVERS.default.url,
    viewport: { width: 1366, height: 860 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: Object.values(EDITION_SERVERS).map((s) => ({
    command: 'npx tsx packages/server/src/main.ts',
    cwd: '..',
    url: `${s.url}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(s.port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), `adplane-e2e-${s.edition}-`)),
      ADPLANE_EDITION: s.edition,
      ADPLANE_DEMO: '1',
      ADPLANE_DEMO_PASSWORD: 'demo',
      // The ads.txt check may read the local test host specs/adsTxt.spec.ts starts.
      ADPLANE_ADSTXT_ALLOW_PRIVATE: '1',
      ADPLANE_ENCRYPT_RESPONSES: s.encrypt ? '1' : '0',
      ADPLANE_LANDING_URL: s.landing,
      ADPLANE_INSIGHT_HUB_URL: s.insightHub,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      // Each edition's server keeps its stats in its own DuckDB file, also where CI sets CLICKHOUSE_URL.
      CLICKHOUSE_URL: '',
    },
  })),
});
