import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderRouteTable, ROUTES_DOC_PATH } from '../src/api/routeTable.js';
import { buildTestApp, forEachStore } from './helpers.js';

forEachStore(
  (t) => {
    it('docs/routes.md is the table of the running routes (regenerate: npm run docs:routes -w @adplane/server)', async () => {
      const app = await buildTestApp(t.store);
      try {
        const table = renderRouteTable(app.guardedRoutes);
        expect(table).toContain('| POST | `/api/auth/login` | public |');
        expect(table).toContain('| PUT | `/api/admin/config` | admin |');
        expect(readFileSync(ROUTES_DOC_PATH, 'utf8')).toBe(table);
      } finally {
        await app.close();
      }
    });
  },
  { seed: false },
);
