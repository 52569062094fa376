import { writeFileSync } from 'node:fs';
import { type FastifyInstance, type InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GuardedRoute } from '../../src/auth/guards.js';
import { LoginThrottle } from '../../src/auth/loginThrottle.js';
import { buildTestApp, DEMO_PASSWORD, onSqliteStore, login } from '../helpers.js';
import { BODY_CASES, PATH_VALUES, PROTOTYPE_NAMES, QUERY_NAMES, QUERY_VALUES, type BodyCase } from './fuzzCases.js';

/**
 * The route fuzzer: it walks the live route registry (the one docs/routes.md is rendered
 * from, so a new route is fuzzed the day it is added) and sends every route, as every role and
 * signed out, malformed bodies, wrong types, oversized and deeply nested values, prototype names and
 * injection strings in every query parameter and path parameter. Whatever it sends: never a 5xx,
 * and a refused write leaves every table as it was (no half-written row).
 *
 * Bounded for CI (2 cores): the full set of cases goes to one role that passes the route's guard,
 * two cases to each other role; on SQLite only (the store code is the same Kysely on PostgreSQL).
 */
const ROLES = ['admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk', 'acme'] as const;
type Role = (typeof ROLES)[number] | 'anonymous';

/** The role that passes a guard, to whom the full set of cases goes. */
const PRIMARY: Record<GuardedRoute['guard'], Role> = {
  public: 'anonymous',
  auth: 'demand',
  admin: 'admin',
  demand: 'demand',
  sdk: 'sdk',
};

/** Routes that end or move the caller's own session: fuzzed signed out and with malformed input only. */
const SESSION_ROUTES = new Set(['/api/auth/logout', '/api/auth/login', '/api/switch']);

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function fillPath(url: string, value: string): string {
  return url.replace(/:[A-Za-z]+\??/g, value);
}

function queryOf(value: string): string {
  return QUERY_NAMES.map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

// on SQLite only: the heavy part of the suite
onSqliteStore((t) => {
  let app: FastifyInstance;
  const cookies: Partial<Record<Role, string>> = {};
  let tables: string[] = [];

  beforeAll(async () => {
    // The fuzzer signs in wrongly on purpose: no slow-down, no refusals of the roles' own sign-ins.
    const loginThrottle = new LoginThrottle({
      sleep: async () => undefined,
      account: { refuseAfter: 1e9 },
      address: { refuseAfter: 1e9 },
    });
    app = await buildTestApp(t.store, {}, { loginThrottle });
    for (const role of ROLES) cookies[role] = await login(app, role, DEMO_PASSWORD);
    const all = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(
      t.store.db,
    );
    // Sessions change on every request (sliding expiry); config_version moves only with a write.
    tables = all.rows.map((r) => r.name).filter((name) => name !== 'sessions');
    const parts = [];
    for (const name of tables) {
      const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(t.store.db);
      const changed = columns.rows.some((c) => c.name === 'updated_at') ? sql`max(updated_at)` : sql`null`;
      parts.push(sql`select ${name} as t, count(*) as n, max(rowid) as m, ${changed} as u from ${sql.table(name)}`);
    }
    fingerprintQuery = sql.join(parts, sql` union all `);
  });
  afterAll(async () => app.close());

  /**
   * Row count, highest rowid and last change of every table, in one query: equal before and after a
   * refused write (every repository stamps `updated_at` on an update; the activity log and the config
   * version only grow).
   */
  let fingerprintQuery = sql`select 1`;
  async function fingerprint(): Promise<string> {
    return JSON.stringify((await fingerprintQuery.execute(t.store.db)).rows);
  }

  /** The tables as they were after the last checked write (null: read again before the next one). */
  let known: string | null = null;

  async function send(role: Role, route: GuardedRoute, url: string, body?: BodyCase, checkRows = true): Promise<void> {
    const options: InjectOptions = { method: route.method as InjectOptions['method'], url, headers: {} };
    const cookie = role === 'anonymous' ? undefined : cookies[role];
    if (cookie) options.headers!.cookie = cookie;
    if (body) {
      options.headers!['content-type'] = body.contentType;
      options.payload = body.payload;
    }
    const write = WRITE_METHODS.has(route.method) && checkRows;
    const before = write ? (known ?? (await fingerprint())) : '';
    const response = await app.inject(options);
    const what = `${role} ${route.method} ${url.slice(0, 200)}${body ? ` body ${body.name}` : ''}`;
    expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
    if (!write) return;
    if (response.statusCode >= 400) {
      known = await fingerprint();
      expect(known, `${what} answered ${response.statusCode} but changed a table`).toBe(before);
    } else {
      known = null;
    }
  }

  /** Every case for one route as one role: path values, query values in every parameter, bodies. */
  async function fuzzFully(role: Role, route: GuardedRoute, index: number): Promise<void> {
    const hasParams = route.url.includes(':');
    const paths = hasParams ? PATH_VALUES.map((v) => fillPath(route.url, v)) : [route.url];
    if (route.method === 'GET') {
      for (const path of paths) await send(role, route, path);
      // Prototype names on every route; the other values rotate over the routes (each is sent many times).
      const rest = QUERY_VALUES.filter((v) => !PROTOTYPE_NAMES.includes(v));
      const values = [...PROTOTYPE_NAMES, ...Array.from({ length: 4 }, (_, i) => rest[(index * 4 + i) % rest.length])];
      for (const value of values) await send(role, route, `${fillPath(route.url, '1')}?${queryOf(value)}`);
      await send(
        role,
        route,
        `${fillPath(route.url, '1')}?sort=a&sort=b&page[x]=1&__proto__[admin]=1&constructor[prototype][x]=1`,
      );
      return;
    }
    // Writes: malformed path values with an empty JSON body, then every body on a real-looking id.
    for (const path of paths.slice(1)) await send(role, route, path, BODY_CASES[0]);
    for (const body of BODY_CASES) await send(role, route, fillPath(route.url, '1'), body);
    await send(role, route, `${fillPath(route.url, '1')}?${queryOf("' OR 1=1 --")}`, BODY_CASES[0]);
  }

  it('never answers a 5xx nor half-writes a row, on any route, as any role', async () => {
    const routes = [...app.guardedRoutes].sort(
      (a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method),
    );
    expect(routes.length).toBeGreaterThan(100);
    const timings: [number, string][] = [];
    for (const [index, route] of routes.entries()) {
      const sessionRoute = SESSION_ROUTES.has(route.url);
      const primary: Role = sessionRoute ? 'anonymous' : PRIMARY[route.guard];
      const started = Date.now();
      await fuzzFully(primary, route, index);
      if (process.env.FUZZ_TIMING) timings.push([Date.now() - started, `${route.method} ${route.url}`]);
      if (sessionRoute) continue;
      // Two cases for everyone else: the route's own shape, and the nastiest body or query.
      for (const role of [...ROLES, 'anonymous'] as const) {
        if (role === primary) continue;
        if (route.method === 'GET') {
          await send(role, route, fillPath(route.url, '1'));
          await send(role, route, `${fillPath(route.url, 'constructor')}?${queryOf('__proto__')}`);
        } else {
          // Rows are checked on the primary role's cases; these answer no 5xx (a success moves the baseline).
          await send(role, route, fillPath(route.url, '1'), BODY_CASES[0], false);
          await send(
            role,
            route,
            fillPath(route.url, '__proto__'),
            BODY_CASES.find((b) => b.name === 'prototype keys')!,
            false,
          );
          known = null;
        }
      }
    }
    if (process.env.FUZZ_TIMING)
      writeFileSync(process.env.FUZZ_TIMING, JSON.stringify(timings.sort((a, b) => b[0] - a[0]).slice(0, 15), null, 1));
    // The roles are still signed in: the fuzzer exercised the routes, not the sign-in.
    for (const role of ROLES)
      expect(
        (await app.inject({ method: 'GET', url: '/api/auth/user', headers: { cookie: cookies[role]! } })).statusCode,
        role,
      ).toBe(200);
  }, 240_000);
});
