import { defineConfig } from '@playwright/test';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { E2E_WORKERS, EDITION_SERVERS, editionServers } from './support/servers.js';

/**
 * One folder of fresh stores per run, made when the runner reads this file; its workers read it too,
 * and find the folder in the environment they inherit instead of making their own. Folders of runs
 * more than a day old are removed then, so repeated runs do not fill the temp folder.
 */
function runDataDir(): string {
  const given = process.env.ADPLANE_E2E_RUN_DIR;
  if (given) return given;
  const prefix = 'adplane-e2e-run-';
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(tmpdir(), name);
    try {
      if (Date.now() - statSync(dir).mtimeMs > 86_400_000) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run's folder, gone meanwhile
    }
  }
  const made = mkdtempSync(join(tmpdir(), prefix));
  process.env.ADPLANE_E2E_RUN_DIR = made;
  return made;
}
const runDir = runDataDir();
const dataDirOf = (slot: number, edition: string): string => {
  const dir = join(runDir, `${slot}-${edition}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/**
 * One real adplane process per edition (the database setting changes the navigation), each on its
 * own fresh SQLite store with the demo workspace, for each worker slot (support/servers.ts). The V2V
 * one encrypts its responses, so the console's json-encrypt path is exercised in a real browser too.
 */
const slots = Array.from({ length: E2E_WORKERS }, (_, slot) => slot);

export default defineConfig({
  testDir: './specs',
  outputDir: '../test-results',
  // files run side by side, each slot on its own servers; the tests of one file run in order
  fullyParallel: false,
  workers: E2E_WORKERS,
  // A test that fails fails the run, on CI too: none is run again.
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: EDITION_SERVERS.default.url,
    viewport: { width: 1366, height: 860 },
    launchOptions: {
      // Debian's Chromium (e2e/run.sh installs it when missing); CHROMIUM_PATH names another
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
    // Recording a trace of every test (DOM snapshots at each action, a screencast) took a third of the
    // run's time; a failure still leaves its screenshot and the page's ARIA snapshot
    // (test-results/*/error-context.md). `E2E_TRACE=1` records traces and keeps those of failed tests.
    trace: process.env.E2E_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: slots
    .flatMap((slot) => Object.values(editionServers(slot)).map((s) => ({ slot, ...s })))
    .map((s) => ({
      // the production bundle, as `npm start` runs it (e2e/run.sh builds it first)
      command: 'node packages/server/dist/main.mjs',
      cwd: '..',
      url: `${s.url}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        PORT: String(s.port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDirOf(s.slot, s.edition),
        ADPLANE_EDITION: s.edition,
        ADPLANE_DEMO: '1',
        ADPLANE_DEMO_PASSWORD: 'demo',
        // The ads.txt check may read the local test host specs/adsTxt.spec.ts starts.
        ADPLANE_ADSTXT_ALLOW_PRIVATE: '1',
        // the specs' demand servers (a Prebid Server, bidders) listen on 127.0.0.1
        ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
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
