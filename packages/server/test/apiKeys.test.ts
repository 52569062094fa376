import { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyList, type CreatedApiKey, RESOURCES } from '@adplane/shared';
import { hashApiKey, newApiKey } from '../src/auth/apiKeys.js';
import { TestClock } from '../src/clock.js';
import { createUser } from '../src/store/users.js';
import { findLiveApiKey, insertApiKey, listApiKeys, revokeApiKey, touchApiKey } from '../src/store/apiKeys.js';
import { as, buildTestApp, forEachStore, freshAddress, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

const START = Date.parse('2026-11-20T10:00:00.000Z');

forEachStore((t) => {
  describe('the api_keys repository', () => {
    it('stores the hash and prefix, finds a live key by hash, and forgets a revoked one', async () => {
      const { key, secretHash, prefix } = newApiKey();
      expect(key).toMatch(/^adp_[A-Za-z0-9_-]{43}$/);
      expect(prefix).toBe(key.slice(0, 12));
      expect(secretHash).toBe(hashApiKey(key));
      const userId = t.users.demand.id;
      const made = await insertApiKey(t.store.db, {
        userId,
        tenantId: userId,
        name: 'repo test',
        secretHash,
        prefix,
        readOnly: true,
        at: '2026-11-20T10:00:00.000Z',
      });
      expect(made).toMatchObject({ userId, tenantId: userId, name: 'repo test', prefix, readOnly: true });
      expect(made.createdAt).toBe('2026-11-20T10:00:00.000Z');
      expect(made.lastUsedAt).toBeNull();
      expect(JSON.stringify(made)).not.toContain(key);

      expect((await findLiveApiKey(t.store.db, secretHash))?.id).toBe(made.id);
      expect(await findLiveApiKey(t.store.db, hashApiKey(`${key}x`))).toBeNull();
      await touchApiKey(t.store.db, made.id, '2026-11-20T10:05:00.000Z');
      expect((await findLiveApiKey(t.store.db, secretHash))?.lastUsedAt).toBe('2026-11-20T10:05:00.000Z');

      expect(await revokeApiKey(t.store.db, t.users.acme.id, made.id, '2026-11-20T11:00:00.000Z')).toBe(false);
      expect(await revokeApiKey(t.store.db, userId, made.id, '2026-11-20T11:00:00.000Z')).toBe(true);
      expect(await revokeApiKey(t.store.db, userId, made.id, '2026-11-20T11:00:00.000Z')).toBe(false);
      expect(await findLiveApiKey(t.store.db, secretHash)).toBeNull();
      const listed = (await listApiKeys(t.store.db, userId)).find((k) => k.id === made.id);
      expect(listed?.revokedAt).toBe('2026-11-20T11:00:00.000Z');
    });
  });

  describe('API keys over HTTP', () => {
    let app: FastifyInstance;
    const clock = new TestClock(START);
    beforeAll(async () => {
      app = await buildTestApp(t.store, { apiKeyRatePerMinute: 5 }, { clock });
    });
    afterAll(async () => {
      await app.close();
    });

    const signIn = (username: string) => login(app, username, undefined, freshAddress());
    const bearer = (key: string, options: InjectOptions) =>
      app.inject({ ...options, headers: { ...(options.headers ?? {}), authorization: `Bearer ${key}` } });
    async function makeKey(cookie: string, name: string, readOnly = false): Promise<CreatedApiKey> {
      const res = await as(app, cookie, { method: 'POST', url: '/api/apiKeys', payload: { name, readOnly } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<CreatedApiKey>();
    }
    const campaignsList = `${RESOURCES.campaigns.api}/list`;
    const idsOf = (res: LightMyRequestResponse) => (res.json() as { id: number }[]).map((r) => r.id).sort();
    // each test gets a fresh minute of the rate limit
    const nextMinute = () => clock.advance(60_000);

    it('makes a key shown once, lists it without the key, and refuses a bad name naming the field', async () => {
      nextMinute();
      const cookie = await signIn('demand');
      const made = await makeKey(cookie, ' CI deploys ');
      expect(made.key.startsWith(made.apiKey.prefix)).toBe(true);
      expect(made.apiKey).toMatchObject({ name: 'CI deploys', readOnly: false, lastUsedAt: null, revokedAt: null });
      expect(made.apiKey.createdAt).toBe(new Date(clock.now()).toISOString());
      const list = await as(app, cookie, { method: 'GET', url: '/api/apiKeys' });
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain(made.key);
      expect(list.json<ApiKeyList>().keys.find((k) => k.id === made.apiKey.id)).toEqual(made.apiKey);

      const bad = await as(app, cookie, { method: 'POST', url: '/api/apiKeys', payload: { name: '  ' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ field: 'name' });
      // another user's list does not hold it
      const acme = await as(app, await signIn('acme'), { method: 'GET', url: '/api/apiKeys' });
      expect(acme.json<ApiKeyList>().keys.map((k) => k.id)).not.toContain(made.apiKey.id);
    });

    it("acts with exactly the owner's rights: the same tenant's rows, the same refusals", async () => {
      nextMinute();
      const demandCookie = await signIn('demand');
      const demandKey = (await makeKey(demandCookie, 'reader')).key;
      const acmeCookie = await signIn('acme');
      const acmeKey = (await makeKey(acmeCookie, 'acme reader')).key;
      const bySession = await as(app, demandCookie, { method: 'GET', url: campaignsList });
      const byKey = await bearer(demandKey, { method: 'GET', url: campaignsList });
      expect(byKey.statusCode, byKey.body).toBe(200);
      expect(idsOf(byKey)).toEqual(idsOf(bySession));
      expect(idsOf(byKey).length).toBeGreaterThan(0);
      // another tenant's key sees what that tenant's session sees (acme's view does not show campaigns)
      const acmeBySession = await as(app, acmeCookie, { method: 'GET', url: campaignsList });
      const acmeByKey = await bearer(acmeKey, { method: 'GET', url: campaignsList });
      expect(acmeByKey.statusCode).toBe(acmeBySession.statusCode);
      expect(acmeByKey.body).toBe(acmeBySession.body);
      expect(acmeByKey.body).not.toBe(byKey.body);
      // the owner's user, as /api/auth/user shows it
      const me = await bearer(demandKey, { method: 'GET', url: '/api/auth/user' });
      expect(me.json()).toMatchObject({ id: t.users.demand.id, type: 'demand' });
      // an admin-only route refuses a demand user's key as it refuses their session
      expect((await bearer(demandKey, { method: 'GET', url: '/api/admin/config' })).statusCode).toBe(403);
    });

    it('writes without a cookie or the console origin; a read-only key only reads', async () => {
      nextMinute();
      const cookie = await signIn('demand');
      const writer = (await makeKey(cookie, 'writer')).key;
      const reader = (await makeKey(cookie, 'reader', true)).key;
      const made = await bearer(writer, {
        method: 'POST',
        url: RESOURCES.campaigns.api,
        payload: sampleBody('campaigns', 901),
      });
      expect(made.statusCode, made.body).toBe(201);
      const id = made.json<{ id: number }>().id;
      expect(idsOf(await as(app, cookie, { method: 'GET', url: campaignsList }))).toContain(id);

      const refused = await bearer(reader, {
        method: 'POST',
        url: RESOURCES.campaigns.api,
        payload: sampleBody('campaigns', 902),
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ message: string }>().message).toMatch(/read-only/);
      expect((await bearer(reader, { method: 'GET', url: campaignsList })).statusCode).toBe(200);
    });

    it('answers 401 to an unknown or revoked key, and to the key of an account that may no longer sign in', async () => {
      nextMinute();
      const cookie = await signIn('demand');
      const made = await makeKey(cookie, 'short-lived');
      expect((await bearer(made.key, { method: 'GET', url: campaignsList })).statusCode).toBe(200);

      const unknown = await bearer(`${made.key.slice(0, -2)}zz`, { method: 'GET', url: campaignsList });
      expect(unknown.statusCode).toBe(401);
      expect(unknown.headers['www-authenticate']).toBe('Bearer');
      expect((await bearer('not-a-key', { method: 'GET', url: '/api/auth/session' })).statusCode).toBe(401);

      const revoke = await as(app, cookie, { method: 'DELETE', url: `/api/apiKeys/${made.apiKey.id}` });
      expect(revoke.statusCode, revoke.body).toBe(200);
      expect((await bearer(made.key, { method: 'GET', url: campaignsList })).statusCode).toBe(401);
      // a revoked key stays listed, marked revoked; another user cannot revoke it (404, as a missing one)
      const listed = (await as(app, cookie, { method: 'GET', url: '/api/apiKeys' })).json<ApiKeyList>();
      expect(listed.keys.find((k) => k.id === made.apiKey.id)?.revokedAt).toBe(new Date(clock.now()).toISOString());
      const other = (await makeKey(cookie, 'other')).apiKey.id;
      const foreign = await as(app, await signIn('acme'), { method: 'DELETE', url: `/api/apiKeys/${other}` });
      expect(foreign.statusCode).toBe(404);

      // a sub account with a key, then disabled
      const sub = await createUser(t.store.db, {
        type: 'sub',
        username: 'keyed-sub',
        passwordHash: 'x',
        name: 'Keyed',
        tenantId: t.users.demand.id,
      });
      const subKey = newApiKey();
      await insertApiKey(t.store.db, {
        userId: sub.id,
        tenantId: t.users.demand.id,
        name: 'sub key',
        secretHash: subKey.secretHash,
        prefix: subKey.prefix,
        readOnly: true,
        at: new Date(clock.now()).toISOString(),
      });
      const subMe = await bearer(subKey.key, { method: 'GET', url: '/api/auth/user' });
      expect(subMe.json()).toMatchObject({ id: sub.id, type: 'sub' });
      await t.store.db.updateTable('users').set({ status: 0 }).where('id', '=', sub.id).execute();
      expect((await bearer(subKey.key, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(401);
    });

    it('stamps the last use at most once a minute, on the injected clock', async () => {
      nextMinute();
      const cookie = await signIn('acme');
      const made = await makeKey(cookie, 'stamped');
      const lastUsed = async () =>
        (await as(app, cookie, { method: 'GET', url: '/api/apiKeys' }))
          .json<ApiKeyList>()
          .keys.find((k) => k.id === made.apiKey.id)?.lastUsedAt;
      const first = clock.now();
      await bearer(made.key, { method: 'GET', url: campaignsList });
      expect(await lastUsed()).toBe(new Date(first).toISOString());
      clock.advance(59_000);
      await bearer(made.key, { method: 'GET', url: campaignsList });
      expect(await lastUsed()).toBe(new Date(first).toISOString());
      clock.advance(1_000);
      await bearer(made.key, { method: 'GET', url: campaignsList });
      expect(await lastUsed()).toBe(new Date(first + 60_000).toISOString());
    });

    it('limits each key to its rate a minute: 429 with Retry-After, then the key earns requests back', async () => {
      nextMinute();
      const cookie = await signIn('demand');
      const limited = (await makeKey(cookie, 'busy')).key;
      const spare = (await makeKey(cookie, 'spare')).key;
      for (let i = 0; i < 5; i++)
        expect((await bearer(limited, { method: 'GET', url: campaignsList })).statusCode).toBe(200);
      const over = await bearer(limited, { method: 'GET', url: campaignsList });
      expect(over.statusCode).toBe(429);
      // 5 a minute: one is earned back every 12 s
      expect(over.headers['retry-after']).toBe('12');
      // the limit is the key's: another key of the same user and the session are not slowed
      expect((await bearer(spare, { method: 'GET', url: campaignsList })).statusCode).toBe(200);
      expect((await as(app, cookie, { method: 'GET', url: campaignsList })).statusCode).toBe(200);
      clock.advance(11_000);
      expect((await bearer(limited, { method: 'GET', url: campaignsList })).statusCode).toBe(429);
      clock.advance(1_000);
      expect((await bearer(limited, { method: 'GET', url: campaignsList })).statusCode).toBe(200);
    });

    it('keeps key management and session routes to the console sign-in', async () => {
      nextMinute();
      const cookie = await signIn('admin');
      const key = (await makeKey(cookie, 'admin automation')).key;
      expect((await bearer(key, { method: 'GET', url: '/api/apiKeys' })).statusCode).toBe(200);
      const more = await bearer(key, { method: 'POST', url: '/api/apiKeys', payload: { name: 'more' } });
      expect(more.statusCode).toBe(403);
      const sw = await bearer(key, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` });
      expect(sw.statusCode).toBe(403);
      // an admin impersonating a user cannot make a key in that user's name
      await as(app, cookie, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` });
      const asUser = await as(app, cookie, { method: 'POST', url: '/api/apiKeys', payload: { name: 'theirs' } });
      expect(asUser.statusCode).toBe(403);
    });
  });
});
