import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { as, buildTestApp, forEachStore, login } from '../helpers.js';

/**
 * Finding 5 of issue 6: a list's `sort` (and the other list parameters) reached an object prototype
 * (`sort=constructor` was a 500 on 18 lists). Every list page, as the users who may read it.
 */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__proto__', 'prototype', '__defineGetter__', 'toLocaleString'];

forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    for (const u of ['admin', 'demand', 'sdk']) cookies[u] = await login(app, u);
  });
  afterAll(async () => app.close());

  const listPaths = Object.values(RESOURCES).map((def) => ({ path: def.api, reader: def.audience === 'sdk' ? 'sdk' : def.audience === 'admin' || def.kind === 'demands' ? 'admin' : 'demand' }));

  it('answers every list page sorted by a prototype name with the default order, never a 500', async () => {
    expect(listPaths.length).toBeGreaterThanOrEqual(18);
    for (const { path, reader } of listPaths) {
      for (const name of PROTOTYPE_NAMES) {
        const response = await as(app, cookies[reader], { method: 'GET', url: `${path}?sort=${encodeURIComponent(name)}&order=asc` });
        expect(response.statusCode, `${path}?sort=${name}: ${response.body}`).toBeLessThan(500);
        expect([200, 400], `${path}?sort=${name}`).toContain(response.statusCode);
      }
    }
  });

  it('refuses prototype names in the other list parameters with a 400 naming the field, or ignores them', async () => {
    for (const { path, reader } of listPaths) {
      for (const param of ['status', 'order', 'pageSize', 'page']) {
        const response = await as(app, cookies[reader], { method: 'GET', url: `${path}?${param}=constructor` });
        expect(response.statusCode, `${path}?${param}=constructor`).toBe(400);
        expect(response.json()).toMatchObject({ field: param });
      }
      const search = await as(app, cookies[reader], { method: 'GET', url: `${path}?search=__proto__&sort=toString` });
      expect(search.statusCode, `${path}?search=__proto__`).toBe(200);
    }
  });
});
