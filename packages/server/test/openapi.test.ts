import { Validator } from '@seriousme/openapi-schema-validator';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { buildTestApp, onSqliteStore } from './helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed JSON document, read by path in assertions
type Json = Record<string, any>;

// The document is built from the route registry and the shared contract; the store engine does not change it.
onSqliteStore(
  (t) => {
    let app: FastifyInstance;
    let doc: Json;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
      expect(res.statusCode).toBe(200);
      doc = res.json<Json>();
    });
    afterAll(async () => {
      await app.close();
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
      const result = await new Validator().validate(doc as never);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    });

    it('holds every route of the registry with its guard, and nothing else', () => {
      const listed = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
        Object.entries(item).map(
          ([method, op]) => `${method.toUpperCase()} ${path} ${(op as Json)['x-adplane-guard']}`,
        ),
      );
      const registry = app.guardedRoutes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')} ${r.guard}`);
      expect(registry.length).toBeGreaterThan(100);
      expect(listed.sort()).toEqual([...registry].sort());
      expect(registry).toContain('GET /api/openapi.json public');
    });

    it('carries the contract schemas: bodies, queries, path parameters and answers', () => {
      const campaigns = RESOURCES.campaigns.api;
      const create = doc.paths[campaigns].post;
      const body = create.requestBody.content['application/json'].schema;
      expect(body.type).toBe('object');
      expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['name', 'startDate', 'endDate']));
      expect(create.responses['201']).toBeDefined();
      const list = doc.paths[campaigns].get;
      expect(list.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['page', 'pageSize', 'search']));
      const one = doc.paths[`${campaigns}/{id}`].put;
      expect(one.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
      // where a campaign runs is asked on create; an update that leaves it out keeps the stored choice
      expect(body.required).toEqual(expect.arrayContaining(['name', 'startDate', 'bidCpm', 'channelScope']));
      const edit = one.requestBody.content['application/json'].schema;
      expect(edit.required).toEqual(expect.arrayContaining(['name', 'startDate', 'bidCpm']));
      expect(edit.required).not.toContain('channelScope');
      expect(edit.properties.channelScope.enum).toEqual(['all', 'include', 'exclude']);
      const made = doc.paths['/api/apiKeys'].post.responses['201'].content['application/json'].schema;
      expect(made.properties.key.type).toBe('string');
      expect(doc.paths['/api/auth/login'].post.security).toEqual([]);
      expect(doc.paths['/api/apiKeys'].get.security).toEqual([{ apiKey: [] }, { session: [] }]);
      // every path parameter of every route is declared
      for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
        for (const op of Object.values(item) as Json[])
          for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))
            expect(op.parameters, `${path} ${name}`).toContainEqual(expect.objectContaining({ name, in: 'path' }));
    });

    it('names only routes that exist in its table of contract schemas', async () => {
      const { knownRouteKeys } = await import('../src/api/openapi.js');
      const registry = new Set(app.guardedRoutes.map((r) => `${r.method} ${r.url}`));
      expect(knownRouteKeys().filter((key) => !registry.has(key))).toEqual([]);
    });

    it('serves a browsable reference without scripts or outside resources', async () => {
      const res = await app.inject({ method: 'GET', url: '/api/docs' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('/api/apiKeys');
      expect(res.body).toContain(`${RESOURCES.campaigns.api}/{id}`);
      expect(res.body).not.toMatch(/<script|https?:\/\/(?!json-schema)/);
    });
  },
  { seed: false },
);
