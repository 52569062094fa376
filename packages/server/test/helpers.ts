import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Edition, EDITION_ONLY, type Feature, RESOURCE_KINDS, RESOURCES } from '@adplane/shared';
import { buildApp, type BuildAppOptions } from '../src/app.js';
import { loadSettings, type Settings } from '../src/settings.js';
import { type Dialect, type Store } from '../src/store/db.js';
import { type SeededUser } from '../src/store/seed.js';
import { openTemplateStore, type TemplateStore } from './storeTemplates.js';

export const DEMO_PASSWORD = 'demo';

/** Settings for tests: silent logs, no console bundle, a throw-away data folder. */
export function testSettings(env: Record<string, string> = {}): Settings {
  return loadSettings({
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'adplane-test-')),
    ADPLANE_WEB_DIST: join(tmpdir(), 'adplane-test-no-console'),
    ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD,
    // the tests' demand (VAST tags, bidders, a Prebid Server) is on 127.0.0.1; the guard's own tests turn it off
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
    ...env,
  });
}

/** One store under test; fields are filled by the describe block's beforeAll. */
export interface TestStore {
  readonly dialect: Dialect;
  readonly store: Store;
  readonly settings: Settings;
  /** Demo users by username (empty when the block was opened with `seed: false`). */
  readonly users: Record<string, SeededUser>;
}

const settingsOfStore = new WeakMap<Store, Settings>();

/** One statement on the PostgreSQL server of `serverUrl`, on a connection of its own: a database made or dropped for a run of its own. */
export async function onPgServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A migrated (and, with `seed`, seeded) test store of `dialect`, opened in the block's beforeAll,
 * dropped in its afterAll: a copy of the worker's template (storeTemplates.ts), in a PostgreSQL
 * database of its own.
 */
export function openTestStore(dialect: Dialect, seed: boolean): TestStore {
  let opened: TemplateStore | undefined;
  const users: Record<string, SeededUser> = {};

  beforeAll(async () => {
    opened = await openTemplateStore(dialect, seed, testSettings);
    settingsOfStore.set(opened.store, opened.settings);
    for (const u of opened.users) users[u.username] = u;
  });

  afterAll(async () => {
    await opened?.store.close();
    await opened?.drop();
    if (opened) rmSync(opened.settings.dataDir, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is opened in beforeAll: use it inside a test or hook`);
    return value;
  };
  return {
    dialect,
    get store() {
      return ready(opened?.store, 'The test store');
    },
    get settings() {
      return ready(opened?.settings, 'The test settings');
    },
    users,
  };
}

/**
 * Run `fn`'s tests on the embedded SQLite store and, when DATABASE_URL is set, on PostgreSQL (a
 * database per block, dropped after). With CI=true and no DATABASE_URL, the PostgreSQL block fails.
 * Each store is migrated and, unless `seed: false`, holds the demo workspace.
 */
export function forEachStore(fn: (t: TestStore) => void, options: { seed?: boolean } = {}): void {
  const seed = options.seed ?? true;
  describe('sqlite', () => fn(openTestStore('sqlite', seed)));
  if (process.env.DATABASE_URL) {
    describe('postgres', () => fn(openTestStore('postgres', seed)));
  } else {
    postgresMissingOnCi();
  }
}

/** With CI=true and no DATABASE_URL, a block whose one test fails, saying how to start PostgreSQL. */
export function postgresMissingOnCi(): void {
  if (process.env.CI !== 'true') return;
  describe('postgres', () => {
    it('needs DATABASE_URL on CI', () => {
      throw new Error(
        'CI=true but DATABASE_URL is unset: the PostgreSQL store tests cannot run. Start PostgreSQL and set DATABASE_URL=postgres://user:pass@host:5432/db (see .ci/run).',
      );
    });
  });
}

/**
 * `fn`'s tests on SQLite alone: for suites whose subject does not depend on the store engine, too
 * heavy to run twice on CI's two cores. The fuzzers: the routes' queries are the same Kysely on both.
 * The edge's suites (VAST, OpenRTB in and out, the Prebid endpoints, events, the tag test): the edge
 * answers from its in-memory snapshot, and what the engine changes is only how the snapshot is read,
 * which the snapshot's own suites prove on both stores (supplyRead, campaignDelta, snapshotRebuild).
 * A suite that saves something the edge then serves through a store path of its own (a list kind,
 * an entity's new columns) stays on forEachStore.
 */
export function onSqliteStore(fn: (t: TestStore) => void, options: { seed?: boolean } = {}): void {
  describe('sqlite', () => fn(openTestStore('sqlite', options.seed ?? true)));
}

/** The app over a test store, silent; close it in afterAll. */
export async function buildTestApp(
  store: Store,
  settingsOverrides: Partial<Settings> = {},
  options: Omit<BuildAppOptions, 'settings' | 'store'> = {},
): Promise<FastifyInstance> {
  const base = settingsOfStore.get(store) ?? testSettings();
  const app = await buildApp({ settings: { ...base, logLevel: 'silent', ...settingsOverrides }, store, ...options });
  await app.ready();
  return app;
}

/** The `name=value` part of the session cookie a response sets, or null. */
export function sessionCookieOf(response: LightMyRequestResponse): string | null {
  const header = response.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  const cookie = all.find((c) => c.startsWith('adplane_sid=') && !c.startsWith('adplane_sid=;'));
  return cookie ? cookie.split(';')[0] : null;
}

/** Sign in through the real route; returns the Cookie header to send with later requests. */
export async function login(
  app: FastifyInstance,
  username: string,
  password = DEMO_PASSWORD,
  remoteAddress = '127.0.0.1',
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username, password },
    remoteAddress,
  });
  const cookie = sessionCookieOf(response);
  if (response.statusCode !== 200 || !cookie)
    throw new Error(`login ${username} failed: ${response.statusCode} ${response.body}`);
  return cookie;
}

/** `app.inject` with the session cookie. */
export function as(
  app: FastifyInstance,
  cookie: string | null,
  options: InjectOptions,
): Promise<LightMyRequestResponse> {
  return app.inject({ ...options, headers: { ...(options.headers ?? {}), ...(cookie ? { cookie } : {}) } });
}

/** Create a row of `kind` through the demand API as the signed-in user; fails the test unless it answers 201. */
export async function createAs(
  app: FastifyInstance,
  cookie: string,
  kind: string,
  body: Record<string, unknown>,
): Promise<{ id: number; uid: string }> {
  const res = await as(app, cookie, { method: 'POST', url: `/api/demand/${kind}`, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; uid: string };
}

/** A client address no other test uses, so login throttling of one test never hits another. */
let nextAddress = 1;
export const freshAddress = () => `10.0.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

/** The feature (kind, or 'activity') whose route a URL is, or null for routes without a mode or edition rule's feature. */
function featureOfUrl(url: string): Feature | null {
  const path = url.split('?')[0];
  if (path === '/api/activity') return 'activity';
  for (const kind of RESOURCE_KINDS) {
    const def = RESOURCES[kind];
    if (path === def.api || path.startsWith(`${def.api}/`) || path === def.namesApi) return kind;
  }
  return null;
}

/** The edition that opens a URL (Creative and Publisher Lists: V2V; Managers and User Activity: CTVMediaV2V), else the default. */
function editionOfUrl(url: string): Edition {
  const feature = featureOfUrl(url);
  return (feature && EDITION_ONLY[feature]?.[0]) || 'default';
}

export interface EditionApps {
  apps: Record<Edition, FastifyInstance>;
  /** The app whose edition opens the URL: tests of every kind reach each kind where it exists. */
  for(url: string): FastifyInstance;
  close(): Promise<void>;
}

/**
 * One app per edition over the same store (sessions live in the store: a cookie works on each), for
 * tests that walk every kind; each request goes to the app whose edition opens its feature.
 */
export async function buildEditionApps(
  store: Store,
  settingsOverrides: Partial<Settings> = {},
  options: Omit<BuildAppOptions, 'settings' | 'store'> = {},
): Promise<EditionApps> {
  const apps = {} as Record<Edition, FastifyInstance>;
  for (const edition of ['default', 'V2V', 'CTVMediaV2V'] as const)
    apps[edition] = await buildTestApp(store, { ...settingsOverrides, edition }, options);
  return {
    apps,
    for: (url) => apps[editionOfUrl(url)],
    close: async () => {
      for (const app of Object.values(apps)) await app.close();
    },
  };
}

/** Give a demo tenant the DSP view (acme has none): for tests of tenant isolation on DSP kinds. */
export async function grantDsp(store: Store, userId: number): Promise<void> {
  await store.db.updateTable('users').set({ show_dsp: 1 }).where('id', '=', userId).execute();
}

/** Polls `read` until `ok` holds of its answer (work that ends when it ends, not at a time), failing after `ms` with its last answer. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  ms = 20_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
