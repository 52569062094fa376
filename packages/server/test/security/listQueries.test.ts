import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { as, buildEditionApps, type EditionApps, forEachStore, login } from '../helpers.js';

/**
 * A list's `sort` (and the other list parameters) never reaches an object prototype: sorted by a
 * prototype name (`sort=constructor`) a list answers in its default order or a 400, never a 500.
 * Every list page, as the users who may read it.
 */
const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__proto__',
  'prototype',
  '__defineGetter__',
  'toLocaleString',
];

forEachStore((t) => {
  // Each list where its edition opens it (Creative and Publisher Lists: V2V; Managers: CTVMediaV2V).
  let apps: EditionApps;
  const cookies: Record<string, string> = {};
  beforeAll(async () => {
    apps = await buildEditionApps(t.store);
    for (const u of ['admin', 'demand', 'sdk']) cookies[u] = await login(apps.apps.default, u);
  });
  afterAll(async () => apps.close());

  const listPaths = Object.values(RESOURCES).map((def) => ({
    path: def.api,
    reader: def.audience === 'sdk' ? 'sdk' : def.audience === 'admin' || def.kind === 'demands' ? 'admin' : 'demand',
  }));

  it('answers every list page sorted by a prototype name with the default order, never a 500', async () => {
    expect(listPaths.length).toBeGreaterThanOrEqual(18);
    for (const { path, reader } of listPaths) {
      for (const name of PROTOTYPE_NAMES) {
        const response = await as(apps.for(path), cookies[reader], {
          method: 'GET',
          url: `${path}?sort=${encodeURIComponent(name)}&order=asc`,
        });
        expect(response.statusCode, `${path}?sort=${name}: ${response.body}`).toBeLessThan(500);
        expect([200, 400], `${path}?sort=${name}`).toContain(response.statusCode);
      }
    }
  });

  it('refuses prototype names in the other list parameters with a 400 naming the field, or ignores them', async () => {
    for (const { path, reader } of listPaths) {
      for (const param of ['status', 'order', 'pageSize', 'page']) {
        const response = await as(apps.for(path), cookies[reader], {
          method: 'GET',
          url: `${path}?${param}=constructor`,
        });
        expect(response.statusCode, `${path}?${param}=constructor`).toBe(400);
        expect(response.json()).toMatchObject({ field: param });
      }
      const search = await as(apps.for(path), cookies[reader], {
        method: 'GET',
        url: `${path}?search=__proto__&sort=toString`,
      });
      expect(search.statusCode, `${path}?search=__proto__`).toBe(200);
    }
  });
});
