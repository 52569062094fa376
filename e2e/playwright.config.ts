import { defineConfig } from '@playwright/test';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { E2E_WORKERS, EDITION_SERVERS } from './support/servers.js';

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
runDataDir();

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
    // The console honours prefers-reduced-motion (drawers, modals, menus and charts appear without
    // animating): what a test waits on is there at once, and no frames of an animation are drawn.
    reducedMotion: 'reduce',
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
  // the test servers of every worker slot, started at once (support/startServers.ts)
  globalSetup: './support/startServers.ts',
});
