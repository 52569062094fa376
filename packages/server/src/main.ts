#!/usr/bin/env node
/**
 * The `adplane` command: `node packages/server/dist/main.mjs [--role api|edge|all] [--workers N]` (the
 * bundle `npm run build` writes; `tsx packages/server/src/main.ts` runs the sources the same way).
 * Settings, store, migrations, first-start seed, then HTTP until SIGINT/SIGTERM. With N > 1 this
 * process is the cluster primary (cluster/primary.ts) and N workers serve (docs/delivery.md, "Workers").
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type FastifyInstance } from 'fastify';
import { buildApp, type Role, ROLES } from './app.js';
import { systemClock } from './clock.js';
import { logLine, runPrimary } from './cluster/primary.js';
import { WORKER_HEADER } from './cluster/protocol.js';
import { workerServices } from './cluster/worker.js';
import { COUNTERS_FILE } from './delivery/savedCounters.js';
import { REPLAY_FILE } from './edge/tracking/savedReplay.js';
import { openStatsStore, type StatsStore } from './stats/statsStore.js';
import { ensureSessionSecret } from './store/sessionSecret.js';
import { drainAndClose } from './ops/shutdown.js';
import { tuneHeap } from './ops/heapTuning.js';
import { loadSettings, type Settings, SettingsError } from './settings.js';
import { keepServingThreadFirst } from './ops/threadPriority.js';
import { startedAsCommand } from './serverRoot.js';
import { writeDemoHistoryIfEmpty } from './stats/demoHistory.js';
import { openStore, redactUrl, SQLITE_FILE_NAME, type Store } from './store/db.js';
import { migrateToLatest } from './store/migrations/index.js';
import { type SeedResult, seedIfEmpty } from './store/seed.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const fail = (text: string): never => {
  process.stderr.write(`${text}\n`);
  process.exit(1);
};

export const MAX_WORKERS = 64;

/**
 * `--role` (default all) and `--workers` (default: one per core for the edge role, else 1). Throws a
 * TypeError naming the flag and the reason.
 */
export function readArgs(args: string[], cores = availableParallelism()): { role: Role; workers: number } {
  const { values } = parseArgs({
    args,
    options: { role: { type: 'string', default: 'all' }, workers: { type: 'string' } },
    strict: true,
  });
  const role = values.role as Role;
  if (!ROLES.includes(role)) throw new TypeError(`--role must be one of ${ROLES.join(', ')} (got '${values.role}')`);
  if (values.workers === undefined) return { role, workers: role === 'edge' ? Math.min(cores, MAX_WORKERS) : 1 };
  const workers = /^\d+$/.test(values.workers) ? Number(values.workers) : NaN;
  if (!(workers >= 1 && workers <= MAX_WORKERS))
    throw new TypeError(`--workers must be a whole number from 1 to ${MAX_WORKERS} (got '${values.workers}')`);
  return { role, workers };
}

function printSeed(seed: SeedResult, settings: Settings): void {
  if (!seed.seeded) return;
  if (seed.demo) {
    out(`Demo workspace created. Sign in with any of these users, password '${settings.demoPassword}':`);
    for (const u of seed.users) out(`  ${u.username.padEnd(8)} ${u.type.padEnd(6)} ${u.name}`);
    for (const line of seed.notes) out(line);
  } else {
    for (const u of seed.users) {
      const given = settings.adminPassword !== null;
      out(
        `Admin created: user '${u.username}', password ${given ? 'from ADPLANE_ADMIN_PASSWORD' : `'${u.password}' (shown once: change it)`}`,
      );
    }
  }
}

async function main(): Promise<void> {
  // before anything large is built: the heap stays near its live size (ops/heapTuning.ts)
  tuneHeap();
  let role: Role;
  let workers: number;
  let settings: Settings;
  try {
    ({ role, workers } = readArgs(process.argv.slice(2)));
    settings = loadSettings();
  } catch (error) {
    return fail(error instanceof SettingsError || error instanceof TypeError ? error.message : String(error));
  }
  if (cluster.isWorker) return serveWorker(role, settings);

  const store = await openStore(settings);
  try {
    await migrateToLatest(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  const seed = role === 'edge' ? null : await seedIfEmpty(store, settings);
  const where = settings.databaseUrl ? redactUrl(settings.databaseUrl) : `${settings.dataDir}/${SQLITE_FILE_NAME}`;
  if (workers > 1) return startPrimary({ role, workers, settings, store, seed, where });

  const app = await buildApp({ settings, store, role });
  await writeDemoHistory(app.stats, store, settings, role);
  serveUntilSignalled(app, settings, () => store.close());
  await app.listen({ port: settings.port, host: settings.host });
  // the process's other threads (stats, DuckDB's work, report files) yield the core to the serving one
  keepServingThreadFirst();
  out(
    `adplane (${role}, edition ${settings.edition}) listening on http://${settings.host}:${settings.port}  store: ${where}`,
  );
  if (seed) printSeed(seed, settings);
}

async function writeDemoHistory(stats: StatsStore, store: Store, settings: Settings, role: Role): Promise<void> {
  if (!settings.demo || role === 'edge') return;
  const rows = await writeDemoHistoryIfEmpty(stats, store.db, systemClock.now());
  if (rows > 0) out(`Demo history: ${rows.toLocaleString('en-US')} hourly stats rows over the last 30 days.`);
}

/** SIGINT/SIGTERM: stop accepting, finish the requests in flight (cut after the grace period), then close the stores. */
function serveUntilSignalled(app: FastifyInstance, settings: Settings, closeStores: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    try {
      const drained = await drainAndClose(app, { graceMs: settings.shutdownGraceMs, closeStores });
      process.exit(drained ? 0 : 1);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // a worker whose primary is gone has no one to share counters and stats with: it drains and exits
  if (cluster.isWorker) process.on('disconnect', () => void shutdown('primary gone'));
}

/**
 * The primary of `--workers N`: the store is migrated and seeded once (above), the session secret
 * made before the workers race for it, and the stats store (DuckDB) opened here only.
 */
async function startPrimary(o: {
  role: Role;
  workers: number;
  settings: Settings;
  store: Store;
  seed: SeedResult | null;
  where: string;
}): Promise<void> {
  const { role, workers, settings, store, seed, where } = o;
  await ensureSessionSecret(store, settings);
  const stats = await openStatsStore({ dataDir: settings.dataDir, clickhouseUrl: settings.clickhouseUrl });
  await writeDemoHistory(stats, store, settings, role);
  runPrimary({
    workers,
    logLevel: settings.logLevel,
    // with ClickHouse each worker writes and reads it directly; the primary kept it for the demo history only
    stats: settings.clickhouseUrl ? null : stats,
    // the workers' delivery counters and replay guard, when they live in the primary (no Redis): kept across a restart
    kept: settings.redisUrl
      ? null
      : { counters: join(settings.dataDir, COUNTERS_FILE), replay: join(settings.dataDir, REPLAY_FILE) },
    drainMs: settings.shutdownGraceMs + 10_000,
    onListening: () => {
      out(
        `adplane (${role}, edition ${settings.edition}, ${workers} workers) listening on http://${settings.host}:${settings.port}  store: ${where}`,
      );
      if (seed) printSeed(seed, settings);
    },
    closeStores: async () => {
      await stats.close();
      await store.close();
    },
  });
}

/** A worker of `--workers N`: the store is ready (the primary migrated it); what must be shared comes from the primary. */
async function serveWorker(role: Role, settings: Settings): Promise<void> {
  const services = workerServices(settings);
  const store = await openStore(settings);
  // which worker answered, on every answer (operators and tests tell the workers apart by it)
  const app = await buildApp({
    settings,
    store,
    role,
    edge: services.edge,
    serverHeaders: { [WORKER_HEADER]: String(cluster.worker?.id ?? 0) },
    ...(services.stats ? { stats: services.stats } : {}),
    ...(services.configBus ? { configBus: services.configBus } : {}),
  });
  serveUntilSignalled(app, settings, () => store.close());
  await app.listen({ port: settings.port, host: settings.host });
  // the process's other threads (stats, DuckDB's work, report files) yield the core to the serving one
  keepServingThreadFirst();
}

const isMain = startedAsCommand(import.meta.url);
if (isMain) {
  main().catch((error: unknown) => {
    if (cluster.isWorker)
      logLine('error', { err: error instanceof Error ? error.message : String(error) }, 'worker failed to start');
    fail(`adplane failed to start: ${error instanceof Error ? error.message : String(error)}`);
  });
}
