import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordActivity } from '../src/store/activity.js';
import { readConfigVersion } from '../src/store/configVersion.js';
import { inTransaction } from '../src/store/db.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

forEachStore((t) => {
  describe('config version', () => {
    let app: FastifyInstance;
    let demand: string;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      demand = await login(app, 'demand');
    });
    afterAll(() => app.close());

    it('moves on every write made through the API', async () => {
      const v0 = await readConfigVersion(t.store.db);
      const created = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/targetings',
        payload: { name: 'Version probe' },
      });
      expect(created.statusCode).toBe(201);
      const v1 = await readConfigVersion(t.store.db);
      expect(v1).toBeGreaterThan(v0);
      const id = created.json().id as number;
      const updated = await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/targetings/${id}`,
        payload: { name: 'Version probe 2' },
      });
      expect(updated.statusCode).toBe(200);
      expect(await readConfigVersion(t.store.db)).toBeGreaterThan(v1);
    });

    it('does not move for a refused write', async () => {
      const v0 = await readConfigVersion(t.store.db);
      const refused = await as(app, demand, { method: 'POST', url: '/api/demand/targetings', payload: { name: '' } });
      expect(refused.statusCode).toBe(400);
      expect(await readConfigVersion(t.store.db)).toBe(v0);
    });

    it('is bumped in the same transaction as the write: a rolled-back write leaves it alone', async () => {
      const v0 = await readConfigVersion(t.store.db);
      await expect(
        inTransaction(t.store.db, async (trx) => {
          await recordActivity(trx, {
            tenantId: null,
            userId: null,
            adminId: null,
            kind: 'probe',
            entityId: null,
            action: 'update',
            before: null,
            after: null,
          });
          expect(await readConfigVersion(trx)).toBe(v0 + 1);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await readConfigVersion(t.store.db)).toBe(v0);
    });
  });
});
