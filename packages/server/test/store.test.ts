import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantIdOf } from '../src/auth/guards.js';
import { verifyPassword } from '../src/auth/passwords.js';
import { CONFIG_KEYS, getConfigValue, setConfigValueOnce } from '../src/store/appConfig.js';
import { MIGRATIONS, migrateToLatest } from '../src/store/migrations/index.js';
import { ADMIN_ONLY_SEED, seedIfEmpty } from '../src/store/seed.js';
import { ensureSessionSecret, SESSION_SECRET_FILE } from '../src/store/sessionSecret.js';
import { deleteExpiredSessions, findLiveSession, insertSession } from '../src/store/sessions.js';
import {
  countUsers,
  createUser,
  findUserById,
  findUserForLogin,
  findUserInTenant,
  setUserStatus,
} from '../src/store/users.js';
import { as, buildTestApp, forEachStore, freshAddress, login } from './helpers.js';

forEachStore((t) => {
  describe('migrations', () => {
    it('are applied once; running them again changes nothing', async () => {
      expect(await migrateToLatest(t.store)).toEqual([]);
      const names = await t.store.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect(names.map((r) => (r as { name: string }).name)).toEqual(Object.keys(MIGRATIONS).sort());
    });
  });

  describe('users', () => {
    it('gives every demo user the right tenant', () => {
      const demand = t.users.demand.id;
      expect(tenantIdOf({ id: t.users.admin.id, type: 'admin', managerId: null, tenantId: null })).toBeNull();
      expect(tenantIdOf({ id: demand, type: 'demand', managerId: null, tenantId: demand })).toBe(demand);
      expect(tenantIdOf({ id: t.users.manager.id, type: 'demand', managerId: demand, tenantId: demand })).toBe(demand);
      expect(tenantIdOf({ id: t.users.sub.id, type: 'sub', managerId: null, tenantId: demand })).toBe(demand);
      expect(() => tenantIdOf({ id: 1, type: 'adv', managerId: null, tenantId: null })).toThrow(/belongs to no tenant/);
    });

    it('stores a demand account as its own tenant, with prices as numbers and ISO timestamps', async () => {
      const acme = await findUserById(t.store.db, t.users.acme.id);
      expect(acme).toMatchObject({
        tenantId: t.users.acme.id,
        priceReq: 20_000,
        priceImp: 40_000,
        priceDsp: 12.5,
        showDsp: false,
      });
      expect(acme?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      for (const name of ['manager', 'sub', 'adv', 'sdk']) {
        expect((await findUserById(t.store.db, t.users[name].id))?.tenantId).toBe(t.users.demand.id);
      }
    });

    it('finds a sign-in by username or e-mail in any case, with an argon2id hash', async () => {
      const byName = await findUserForLogin(t.store.db, ' ADMIN ');
      const byMail = await findUserForLogin(t.store.db, 'Admin@Demo.Adplane.Test');
      expect(byName?.user.id).toBe(t.users.admin.id);
      expect(byMail?.user.id).toBe(t.users.admin.id);
      expect(byName?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword(byName!.passwordHash, 'demo')).toBe(true);
      expect(await findUserForLogin(t.store.db, 'nobody')).toBeNull();
    });

    it('refuses a second username or e-mail that differs only in case', async () => {
      await expect(
        createUser(t.store.db, { type: 'admin', username: 'OPS', passwordHash: 'x', name: 'Dup' }),
      ).rejects.toThrow();
      await expect(
        createUser(t.store.db, {
          type: 'admin',
          username: 'ops2',
          email: 'OPS@demo.adplane.test',
          passwordHash: 'x',
          name: 'Dup',
        }),
      ).rejects.toThrow();
    });

    it('keeps tenants apart: a tenant sees only its own accounts', async () => {
      const northwind = t.users.demand.id;
      const acme = t.users.acme.id;
      expect((await findUserInTenant(t.store.db, northwind, t.users.sub.id))?.username).toBe('sub');
      expect(await findUserInTenant(t.store.db, acme, t.users.sub.id)).toBeNull();
      expect((await findUserInTenant(t.store.db, null, t.users.sub.id))?.username).toBe('sub');
      expect(await setUserStatus(t.store.db, acme, t.users.adv.id, 0)).toBe(false);
      expect((await findUserById(t.store.db, t.users.adv.id))?.status).toBe(1);
    });
  });

  describe('app config and the session secret', () => {
    it('keeps the first value written by setConfigValueOnce', async () => {
      expect(await setConfigValueOnce(t.store.db, 'test.once', 'first')).toBe('first');
      expect(await setConfigValueOnce(t.store.db, 'test.once', 'second')).toBe('first');
      expect(await getConfigValue(t.store.db, 'test.missing', 42)).toBe(42);
    });

    it('generates the session secret once and keeps it where the data lives', async () => {
      const settings = { sessionSecret: null, dataDir: t.settings.dataDir };
      const first = await ensureSessionSecret(t.store, settings);
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(await ensureSessionSecret(t.store, settings)).toBe(first);
      if (t.dialect === 'sqlite') {
        expect(statSync(join(t.settings.dataDir, SESSION_SECRET_FILE)).mode & 0o777).toBe(0o600);
      } else {
        expect(await getConfigValue(t.store.db, CONFIG_KEYS.sessionSecret, '')).toBe(first);
      }
      expect(await ensureSessionSecret(t.store, { ...settings, sessionSecret: 'x'.repeat(40) })).toBe('x'.repeat(40));
    });
  });

  describe('sessions', () => {
    it('finds only live sessions and sweeps expired ones', async () => {
      const at = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const base = {
        userId: t.users.sdk.id,
        adminId: null,
        ip: null,
        userAgent: null,
        createdAt: iso(at),
        lastSeenAt: iso(at),
      };
      await insertSession(t.store.db, { ...base, id: 'live-session', expiresAt: iso(at + 60_000) });
      await insertSession(t.store.db, { ...base, id: 'old-session', expiresAt: iso(at - 1000) });
      expect((await findLiveSession(t.store.db, 'live-session', iso(at)))?.expiresAt).toBe(iso(at + 60_000));
      expect(await findLiveSession(t.store.db, 'old-session', iso(at))).toBeNull();
      expect(await deleteExpiredSessions(t.store.db, iso(at))).toBeGreaterThanOrEqual(1);
      expect(await findLiveSession(t.store.db, 'live-session', iso(at))).not.toBeNull();
    });

    describe('through the app', () => {
      let app: FastifyInstance;
      beforeAll(async () => {
        app = await buildTestApp(t.store);
      });
      afterAll(async () => {
        await app.close();
      });

      it('slides the expiry forward when a session is used', async () => {
        const cookie = await login(app, 'demand');
        const longAgo = new Date(Date.now() - 10 * 60_000).toISOString();
        const soon = new Date(Date.now() + 60_000).toISOString();
        await t.store.db
          .updateTable('sessions')
          .set({ last_seen_at: longAgo, expires_at: soon })
          .where('user_id', '=', t.users.demand.id)
          .execute();
        const response = await as(app, cookie, { method: 'GET', url: '/api/auth/user' });
        expect(response.statusCode).toBe(200);
        expect(String(response.headers['set-cookie'])).toMatch(/^adplane_sid=.*Max-Age=604800/);
        const rows = await t.store.db
          .selectFrom('sessions')
          .select(['expires_at', 'last_seen_at'])
          .where('user_id', '=', t.users.demand.id)
          .execute();
        expect(rows.some((r) => Date.parse(r.expires_at) > Date.now() + 6 * 24 * 3600_000)).toBe(true);
      });

      it('ends an expired session', async () => {
        const cookie = await login(app, 'manager');
        await t.store.db
          .updateTable('sessions')
          .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('user_id', '=', t.users.manager.id)
          .execute();
        expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      });

      it('refuses a disabled user at sign-in and drops its open sessions', async () => {
        const cookie = await login(app, 'adv');
        expect(await setUserStatus(t.store.db, t.users.demand.id, t.users.adv.id, 0)).toBe(true);
        try {
          expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
          const response = await app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { username: 'adv', password: 'demo' },
            remoteAddress: freshAddress(),
          });
          expect(response.statusCode).toBe(401);
          expect(response.json()).toEqual({ message: 'Bad credentials' });
        } finally {
          await setUserStatus(t.store.db, null, t.users.adv.id, 1);
        }
      });

      it('cascades: sessions of a removed impersonation target disappear with it', async () => {
        const cookie = await login(app, 'admin');
        const temp = await createUser(t.store.db, {
          type: 'adv',
          username: 'temp-adv',
          passwordHash: 'x',
          name: 'Temp',
          tenantId: t.users.demand.id,
        });
        expect((await as(app, cookie, { method: 'GET', url: `/api/switch?type=adv&id=${temp.id}` })).statusCode).toBe(
          302,
        );
        await t.store.db.deleteFrom('users').where('id', '=', temp.id).execute();
        expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      });
    });
  });

  describe('seed', () => {
    it('does nothing on a store that has users', async () => {
      const before = await countUsers(t.store.db);
      expect(await seedIfEmpty(t.store, t.settings)).toEqual({ seeded: false, demo: true, users: [], notes: [] });
      expect(await countUsers(t.store.db)).toBe(before);
    });

    it('created the demo workspace with every user type and two tenants', async () => {
      expect(Object.keys(t.users).sort()).toEqual(['acme', 'admin', 'adv', 'demand', 'manager', 'ops', 'sdk', 'sub']);
      expect(new Set(Object.values(t.users).map((u) => u.type))).toEqual(
        new Set(['admin', 'demand', 'sub', 'adv', 'sdk']),
      );
      const tenants = await t.store.db
        .selectFrom('users')
        .select('id')
        .where('type', '=', 'demand')
        .where('manager_id', 'is', null)
        .execute();
      expect(tenants.map((r) => r.id).sort()).toEqual([t.users.demand.id, t.users.acme.id].sort());
    });
  });
});

forEachStore(
  (t) => {
    it('without the demo, creates only the admin with a generated password that works', async () => {
      const result = await seedIfEmpty(t.store, { ...t.settings, demo: false, adminPassword: null }, ADMIN_ONLY_SEED);
      expect(result.seeded).toBe(true);
      expect(result.users).toHaveLength(1);
      const [admin] = result.users;
      expect(admin).toMatchObject({ username: 'admin', type: 'admin' });
      expect(admin.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
      const found = await findUserForLogin(t.store.db, 'admin');
      expect(found?.user.uid).toBe('super');
      expect(await verifyPassword(found!.passwordHash, admin.password)).toBe(true);
      expect(await countUsers(t.store.db)).toBe(1);
      const rows = await sql<{ n: number }>`select count(*) as n from users where type <> 'admin'`.execute(t.store.db);
      expect(Number(rows.rows[0].n)).toBe(0);
    });
  },
  { seed: false },
);
