#!/usr/bin/env node
/**
 * The `adplane` command: `tsx packages/server/src/main.ts [--role api|edge|all]`.
 * Settings, store, migrations, first-start seed, then HTTP until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { buildApp, type Role, ROLES } from './app.js';
import { drainAndClose } from './ops/shutdown.js';
import { loadSettings, type Settings, SettingsError } from './settings.js';
import { writeDemoHistoryIfEmpty } from './stats/demoHistory.js';
import { openStore, redactUrl, SQLITE_FILE_NAME } from './store/db.js';
import { migrateToLatest } from './store/migrations/index.js';
import { type SeedResult, seedIfEmpty } from './store/seed.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const fail = (text: string): never => {
  process.stderr.write(`${text}\n`);
  process.exit(1);
};

function readRole(): Role {
  const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } }, strict: true });
  const role = values.role as Role;
  if (!ROLES.includes(role)) fail(`--role must be one of ${ROLES.join(', ')} (got '${values.role}')`);
  return role;
}

function printSeed(seed: SeedResult, settings: Settings): void {
  if (!seed.seeded) return;
  if (seed.demo) {
    out(`Demo workspace created. Sign in with any of these users, password '${settings.demoPassword}':`);
    for (const u of seed.users) out(`  ${u.username.padEnd(8)} ${u.type.padEnd(6)} ${u.name}`);
  } else {
    for (const u of seed.users) {
      const given = settings.adminPassword !== null;
      out(`Admin created: user '${u.username}', password ${given ? 'from ADPLANE_ADMIN_PASSWORD' : `'${u.password}' (shown once: change it)`}`);
    }
  }
}

async function main(): Promise<void> {
  let role: Role;
  let settings: Settings;
  try {
    role = readRole();
    settings = loadSettings();
  } catch (error) {
    return fail(error instanceof SettingsError || error instanceof TypeError ? error.message : String(error));
  }

  const store = await openStore(settings);
  try {
    await migrateToLatest(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  const seed = role === 'edge' ? null : await seedIfEmpty(store, settings);
  const app = await buildApp({ settings, store, role });
  if (settings.demo && role !== 'edge') {
    const rows = await writeDemoHistoryIfEmpty(app.stats, store.db);
    if (rows > 0) out(`Demo history: ${rows.toLocaleString('en-US')} hourly stats rows over the last 30 days.`);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    try {
      // Stop accepting, finish the requests in flight (cut after the grace period), then close the stores.
      const drained = await drainAndClose(app, { graceMs: settings.shutdownGraceMs, closeStores: () => store.close() });
      process.exit(drained ? 0 : 1);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: settings.port, host: settings.host });
  const where = settings.databaseUrl ? redactUrl(settings.databaseUrl) : `${settings.dataDir}/${SQLITE_FILE_NAME}`;
  out(`adplane (${role}, edition ${settings.edition}) listening on http://${settings.host}:${settings.port}  store: ${where}`);
  if (seed) printSeed(seed, settings);
}

main().catch((error: unknown) => fail(`adplane failed to start: ${error instanceof Error ? error.message : String(error)}`));
