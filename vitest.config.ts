import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Server test files that run alone, one after another, once every other file has finished (vitest
 * puts the files of a project with `maxWorkers: 1` and the default `sequence.groupOrder` in a group
 * of their own, run last with one worker). Each starts the real program or edge processes of its
 * own (a primary and two workers, or three nodes, or two edge processes, plus Redis) and asserts
 * what they do in wall-clock time on this two-core CI machine: an API write served by every
 * process within a second, a config change heard within a second, a lease or an allowance going
 * back after a few idle seconds. A test file beside them, in the other worker, would take a core
 * from processes that already fill both.
 */
const SERVER_ALONE = [
  'test/workers.test.ts',
  'test/postbidCapWorkers.test.ts',
  'test/rolesOnRedis.test.ts',
  'test/deliveryProcesses.test.ts',
];

/**
 * Server test files that replace a module or a global (`vi.mock`, `vi.stubGlobal`, ...: the fetch
 * under the ads.txt checks), found by reading the files. The other server files share their worker's
 * modules (`isolate: false`): each file imports the app's few hundred modules once per worker
 * instead of once per file (import time 300 s -> 20 s, the server files in 5 minutes instead of 11),
 * which is safe because the server's modules keep no state a test reads across files (caches of what
 * they computed, never of a test's rows) and every file opens and closes its own stores, apps and
 * servers. A replaced module would leak into the files after it, so those files run isolated.
 */
const SERVER_ROOT = 'packages/server';
const REPLACES = /\bvi\.(mock|doMock|stubGlobal|stubEnv)\(/;
const SERVER_MOCKS = ['src', 'test']
  .flatMap((dir) => readdirSync(join(SERVER_ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
  .filter(
    (f) =>
      f.endsWith('.test.ts') && !SERVER_ALONE.includes(f) && REPLACES.test(readFileSync(join(SERVER_ROOT, f), 'utf8')),
  )
  .sort();

/**
 * Console test files that need no browser: `.test.ts` files that name no DOM global and render
 * nothing (pure functions of the console: conversions, form values, report state). They run in
 * node's environment instead of jsdom's, which costs about a second of a worker to set up per file;
 * found by reading the files, as the server's mocks are. A file that does need a DOM says so in a
 * `@vitest-environment jsdom` comment, or names one of the words below, and runs in jsdom.
 */
const WEB_ROOT = 'packages/web';
const NEEDS_DOM =
  /document|window|localStorage|sessionStorage|navigator|render|screen|HTMLElement|location|Blob|createObjectURL|jsdom|@vitest-environment/;
const WEB_NODE = readdirSync(join(WEB_ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .map((f) => join('src', f))
  .filter((f) => f.endsWith('.test.ts') && !NEEDS_DOM.test(readFileSync(join(WEB_ROOT, f), 'utf8')))
  .sort();

const server = {
  root: SERVER_ROOT,
  environment: 'node',
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // the program's bundle, built once per run, that the tests starting it in child processes run;
  // the test stores' PostgreSQL databases, dropped when the run ends
  globalSetup: [
    fileURLToPath(new URL('packages/server/test/programBundle.ts', import.meta.url)),
    fileURLToPath(new URL('packages/server/test/testDatabases.ts', import.meta.url)),
  ],
} as const;

export default defineConfig({
  test: {
    // Three test files at once on CI's two cores (vitest's default there is one): many files wait on
    // sockets, child processes, PostgreSQL and ClickHouse a good part of their time, and with two at
    // once the cores stood a fifth idle (10.6 min); a third file fills them (8.9 min). Files share nothing:
    // each opens its own PostgreSQL database, ClickHouse database, Redis key prefix, or
    // redis-server of its own on its own port when it kills Redis, data folder and ports
    // (packages/server/test/helpers.ts, storeTemplates.ts, statsEngines.ts, deliveryEngines.ts).
    // `--maxWorkers=1` runs them one at a time.
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: 'shared',
          root: 'packages/shared',
          include: ['src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          ...server,
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SERVER_ALONE, ...SERVER_MOCKS],
          isolate: false,
        },
      },
      {
        test: {
          ...server,
          name: 'server-mocks',
          include: SERVER_MOCKS,
        },
      },
      {
        test: {
          ...server,
          name: 'server-alone',
          include: SERVER_ALONE,
          maxWorkers: 1,
        },
      },
      {
        test: {
          name: 'web',
          root: WEB_ROOT,
          include: ['src/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, ...WEB_NODE],
          environment: 'jsdom',
          setupFiles: ['src/testSetup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'web-node',
          root: WEB_ROOT,
          include: WEB_NODE,
          environment: 'node',
          setupFiles: ['src/testSetup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
