import { type FastifyInstance } from 'fastify';
import { RESOURCES } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotCompiler } from '../src/edge/snapshot/compileSnapshot.js';
import { as, buildTestApp, forEachStore, grantDsp, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * Blocked ad categories (brand safety), a targeting rule: saved and read back through the API on
 * both config stores, an unknown code refused with the field named, and compiled by the snapshot into
 * the creatives a channel's and a supplier's targeting refuse.
 */
forEachStore((t) => {
  describe('blocked ad categories of a targeting', () => {
    let app: FastifyInstance;
    let demand: string;
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
      as(app, demand, { method, url, payload: payload ?? (method === 'GET' ? undefined : {}) });
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      await grantDsp(t.store, t.users.demand.id);
      demand = await login(app, 'demand');
    });
    afterAll(() => app.close());

    it('saves, reads back and updates the rule, deduped, beside the content-category rule it differs from', async () => {
      const api = RESOURCES.targetings.api;
      const created = await call('POST', api, {
        name: 'Brand safe',
        rules: {
          iabCategories: { mode: 'include', values: ['IAB17'] },
          blockedAdCategories: ['IAB7', 'IAB25-3', 'IAB7'],
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as number;
      const read = (await call('GET', `${api}/${id}`)).json();
      expect(read.rules.blockedAdCategories).toEqual(['IAB7', 'IAB25-3']);
      expect(read.rules.iabCategories).toEqual({ mode: 'include', values: ['IAB17'] });
      const updated = await call('PUT', `${api}/${id}`, {
        name: 'Brand safe',
        rules: { blockedAdCategories: ['IAB26'] },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect((await call('GET', `${api}/${id}`)).json().rules.blockedAdCategories).toEqual(['IAB26']);
      // a targeting saved without the rule blocks nothing
      const plain = await call('POST', api, { name: 'Plain' });
      expect(plain.json().rules.blockedAdCategories).toEqual([]);
    });

    it('refuses a code the IAB reference list does not know with a 400 naming the field', async () => {
      const res = await call('POST', RESOURCES.targetings.api, {
        name: 'Bad',
        rules: { blockedAdCategories: ['IAB7', 'IAB99'] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toBe('rules.blockedAdCategories');
      expect(JSON.stringify(res.json())).toContain('IAB99');
    });

    it("compiles into the snapshot the creatives a channel's and a supplier's targeting block", async () => {
      const targeting = (
        await call('POST', RESOURCES.targetings.api, { name: 'No health', rules: { blockedAdCategories: ['IAB7'] } })
      ).json();
      const channel = (
        await call('POST', RESOURCES.channels.api, { ...sampleBody('channels', 31), targetingId: targeting.id })
      ).json();
      const supplier = await call('POST', RESOURCES.sups.api, { ...sampleBody('sups', 31), targetingId: targeting.id });
      expect(supplier.statusCode, supplier.body).toBe(201);
      // (only approved creatives serve)
      const blocked = (
        await call('POST', RESOURCES.creatives.api, {
          ...sampleBody('creatives', 31),
          approval: 'approved',
          iabCategories: ['IAB7-39'],
        })
      ).json();
      const clean = (
        await call('POST', RESOURCES.creatives.api, {
          ...sampleBody('creatives', 32),
          approval: 'approved',
          iabCategories: ['IAB17'],
        })
      ).json();
      const snapshot = await new SnapshotCompiler().compile(t.store.db);
      expect(snapshot.creatives.has(blocked.id) && snapshot.creatives.has(clean.id)).toBe(true);
      const blocks = snapshot.channels.get(channel.id)?.categoryBlocks;
      expect(blocks?.categories).toEqual(['IAB7']);
      expect(blocks?.creatives.has(blocked.id)).toBe(true);
      expect(blocks?.creatives.has(clean.id)).toBe(false);
      // the supplier's, one set shared with the channel using the same targeting
      expect(snapshot.suppliersByUid.get(supplier.json().uid)?.categoryBlocks).toBe(blocks);
    });
  });
});
