import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUser } from '@adplane/shared';
import { LoginThrottle } from '../../src/auth/loginThrottle.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { createUser } from '../../src/store/users.js';
import { as, buildTestApp, DEMO_PASSWORD, forEachStore, freshAddress, login } from '../helpers.js';

/**
 * Sign-in, through the real app: throttling per account and per address, no user name that would
 * capture another account's e-mail sign-in, no sign-in for archived accounts, no password that is
 * too common, and a password change ends the account's other sessions.
 */
const GOOD_PASSWORD = 'correct-horse-battery';

forEachStore((t) => {
  let app: FastifyInstance;
  let slept: number[];
  let demand: string;
  let admin: string;
  beforeAll(async () => {
    slept = [];
    // Slowed-down attempts record their delay instead of sleeping, so that the test stays quick.
    const loginThrottle = new LoginThrottle({ sleep: async (ms) => void slept.push(ms) });
    app = await buildTestApp(t.store, {}, { loginThrottle });
    demand = await login(app, 'demand', DEMO_PASSWORD, freshAddress());
    admin = await login(app, 'admin', DEMO_PASSWORD, freshAddress());
  });
  afterAll(async () => app.close());

  const signIn = (username: string, password: string, remoteAddress: string) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress });

  let serial = 0;
  const newAdv = async (password = GOOD_PASSWORD) => {
    const username = `sec-adv-${++serial}`;
    const body = { name: `Security adv ${serial}`, username, email: '', password };
    const created = await as(app, demand, { method: 'POST', url: '/api/demand/advs', payload: body });
    expect(created.statusCode, created.body).toBe(201);
    return { id: created.json<{ id: number }>().id, username, body };
  };

  describe('throttling', () => {
    it("is not cleared by the attacker's own good sign-ins interleaved with guesses, and slows down before refusing", async () => {
      const attacker = await newAdv();
      const address = freshAddress();
      slept.length = 0;
      const codes: number[] = [];
      for (let i = 0; i < 40; i++) {
        expect((await signIn(attacker.username, GOOD_PASSWORD, address)).statusCode).toBe(200);
        codes.push((await signIn('sub', `guess-${i}`, address)).statusCode);
      }
      const firstRefusal = codes.indexOf(429);
      expect(firstRefusal).toBeGreaterThan(0);
      expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(30);
      // Slowed down (1 s, 2 s, 4 s...) before the first refusal.
      expect(slept.slice(0, 3)).toEqual([1_000, 2_000, 4_000]);
      // The victim is refused from anywhere, even with the right password, until the window passes.
      const refused = await signIn('sub', DEMO_PASSWORD, freshAddress());
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const metrics = await app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/adplane_login_failures_total\{reason="throttled"\} [1-9]/);
    });

    it('does not lock out everyone behind one address (office, carrier NAT) after one person fails five times', async () => {
      const office = freshAddress();
      for (let i = 0; i < 5; i++) expect((await signIn('adv', `typo-${i}`, office)).statusCode).toBe(401);
      expect((await signIn('manager', DEMO_PASSWORD, office)).statusCode).toBe(200);
      expect((await signIn('adv', DEMO_PASSWORD, office)).statusCode).toBe(200);
    });
    // A guessing run over many names from one address: src/auth/loginThrottle.test.ts.
  });

  describe('user names and e-mails', () => {
    it("refuses a user name that is another account's e-mail, in any case and from any tenant", async () => {
      const acme = await login(app, 'acme', DEMO_PASSWORD, freshAddress());
      const response = await as(app, acme, {
        method: 'POST',
        url: '/api/demand/subs',
        payload: { name: 'Takeover', username: 'DEMAND@DEMO.ADPLANE.TEST', email: '', password: GOOD_PASSWORD },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ field: 'username' });
      expect((await signIn('demand@demo.adplane.test', DEMO_PASSWORD, freshAddress())).json<AuthUser>().id).toBe(
        t.users.demand.id,
      );
    });

    it("signs an e-mail in as the e-mail's owner even when an older user name equals it, and refuses that name as an e-mail", async () => {
      // A row from before the rule: its user name is the demand user's e-mail, in upper case.
      await createUser(t.store.db, {
        type: 'sub',
        username: 'MANAGER@DEMO.ADPLANE.TEST',
        passwordHash: await hashPassword(DEMO_PASSWORD),
        name: 'Legacy capture',
        tenantId: t.users.acme.id,
      });
      const response = await signIn('manager@demo.adplane.test', DEMO_PASSWORD, freshAddress());
      expect(response.json<AuthUser>().id).toBe(t.users.manager.id);
      const mail = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/advs',
        payload: {
          name: 'Mail clash',
          username: 'mail-clash',
          email: 'manager@demo.adplane.test',
          password: GOOD_PASSWORD,
        },
      });
      expect(mail.statusCode).toBe(400);
      expect(mail.json()).toMatchObject({ field: 'email' });
    });
  });

  describe('archived accounts', () => {
    it('cannot sign in, keep a session, or be impersonated', async () => {
      const adv = await newAdv();
      const own = await login(app, adv.username, GOOD_PASSWORD, freshAddress());
      expect(
        (await as(app, demand, { method: 'POST', url: `/api/demand/advs/${adv.id}/archive`, payload: {} })).statusCode,
      ).toBe(200);
      expect((await signIn(adv.username, GOOD_PASSWORD, freshAddress())).statusCode).toBe(401);
      expect((await as(app, own, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      const impersonate = await as(app, admin, {
        method: 'GET',
        url: `/api/switch?type=adv&id=${adv.id}`,
        headers: { accept: 'application/json' },
      });
      expect(impersonate.statusCode).toBe(404);
      // Restored, it signs in again.
      expect(
        (await as(app, demand, { method: 'POST', url: `/api/demand/advs/${adv.id}/restore`, payload: {} })).statusCode,
      ).toBe(200);
      expect((await signIn(adv.username, GOOD_PASSWORD, freshAddress())).statusCode).toBe(200);
    });
  });

  describe('passwords', () => {
    it('refuses whitespace-only and the commonest passwords, naming the field', async () => {
      for (const password of ['        ', 'password', 'Password1', '12345678', ' qwertyuiop ']) {
        const response = await as(app, demand, {
          method: 'POST',
          url: '/api/demand/advs',
          payload: { name: 'Weak', username: `weak-${password.trim().length}-${serial++}`, email: '', password },
        });
        expect(response.statusCode, JSON.stringify(password)).toBe(400);
        expect(response.json()).toMatchObject({ field: 'password' });
      }
    });

    it("ends the account's other sessions when its password changes", async () => {
      const adv = await newAdv();
      const first = await login(app, adv.username, GOOD_PASSWORD, freshAddress());
      const second = await login(app, adv.username, GOOD_PASSWORD, freshAddress());
      const changed = await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/advs/${adv.id}`,
        payload: { ...adv.body, password: 'a-brand-new-passphrase' },
      });
      expect(changed.statusCode, changed.body).toBe(200);
      for (const cookie of [first, second])
        expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      expect((await signIn(adv.username, GOOD_PASSWORD, freshAddress())).statusCode).toBe(401);
      expect((await signIn(adv.username, 'a-brand-new-passphrase', freshAddress())).statusCode).toBe(200);
      // An edit that keeps the password (empty) keeps the sessions.
      const third = await login(app, adv.username, 'a-brand-new-passphrase', freshAddress());
      expect(
        (
          await as(app, demand, {
            method: 'PUT',
            url: `/api/demand/advs/${adv.id}`,
            payload: { ...adv.body, password: '', name: 'Renamed' },
          })
        ).statusCode,
      ).toBe(200);
      expect((await as(app, third, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(200);
    });
  });
});
