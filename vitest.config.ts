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

const server = {
  root: 'packages/server',
  environment: 'node',
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  test: {
    // Two test files at once (vitest's default on CI's two cores is one): the server files take 14
    // minutes instead of 21-29 with the real PostgreSQL, ClickHouse and Redis. Files share nothing:
    // each opens its own PostgreSQL schema or database, ClickHouse database, Redis key prefix, or
    // redis-server of its own on its own port when it kills Redis, data folder and ports
    // (packages/server/test/helpers.ts, statsEngines.ts, deliveryEngines.ts), and PostgreSQL schema
    // changes take turns (kysely's migrator reads every schema's tables: helpers.ts
    // PG_SCHEMA_CHANGES_LOCK). `--maxWorkers=1` runs them one at a time.
    maxWorkers: 2,
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
          exclude: [...configDefaults.exclude, ...SERVER_ALONE],
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
          root: 'packages/web',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['src/testSetup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
