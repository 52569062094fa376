/** `npm run docs:routes -w @adplane/server`: rewrite docs/routes.md from the app's route registry. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app.js';
import { renderRouteTable, ROUTES_DOC_PATH } from '../api/routeTable.js';
import { loadSettings } from '../settings.js';
import { openStore } from '../store/db.js';

const dataDir = mkdtempSync(join(tmpdir(), 'adplane-routes-'));
try {
  // Routes do not depend on the data: an empty throw-away SQLite store is enough to register them.
  // The api role registers every /api route without the edge (which needs a migrated store to start).
  const settings = loadSettings({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const store = await openStore(settings);
  const app = await buildApp({ settings, store, role: 'api' });
  await app.ready();
  writeFileSync(ROUTES_DOC_PATH, renderRouteTable(app.guardedRoutes));
  await app.close();
  await store.close();
  process.stdout.write(`wrote ${ROUTES_DOC_PATH} (${app.guardedRoutes.length} routes)\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
