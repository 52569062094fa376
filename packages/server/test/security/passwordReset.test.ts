import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGOT_PASSWORD_ANSWER, type SignInEntry } from '@adplane/shared';
import { TestClock } from '../../src/clock.js';
import { LoginThrottle } from '../../src/auth/loginThrottle.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { createUser } from '../../src/store/users.js';
import { as, buildTestApp, DEMO_PASSWORD, eventually, forEachStore, freshAddress, login } from '../helpers.js';
import { startMailServer } from '../mailServer.js';

/**
 * Password change, password reset by an e-mailed link through a real SMTP server on loopback, and
 * the sign-in log, through the real app on both stores.
 */
const OLD_PASSWORD = 'old-horse-battery';
const NEW_PASSWORD = 'new-staple-battery';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let mailServer: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  mailServer = await startMailServer();
});
afterAll(async () => mailServer.close());

forEachStore((t) => {
  let app: FastifyInstance;
  let clock: TestClock;
  let slept: number[];
  beforeAll(async () => {
    clock = new TestClock(Date.now(), { running: true });
    slept = [];
    const loginThrottle = new LoginThrottle({ now: () => clock.now(), sleep: async (ms) => void slept.push(ms) });
    app = await buildTestApp(
      t.store,
      { mail: { smtpUrl: mailServer.url, from: 'adplane <noreply@example.com>' } },
      { clock, loginThrottle },
    );
  });
  afterAll(async () => app.close());

  let serial = 0;
  /** An account of its own per test (its e-mail, or only a contact e-mail), signed in nowhere yet. */
  const newAccount = async (mail: 'email' | 'contact' = 'email') => {
    const n = `${t.dialect}-${++serial}-${Date.now().toString(36)}`;
    const address = `pw-${n}@example.com`;
    const user = await createUser(t.store.db, {
      type: 'demand',
      username: `pw-${n}`,
      name: `Password ${n}`,
      passwordHash: await hashPassword(OLD_PASSWORD),
      ...(mail === 'email' ? { email: address } : { contacts: [{ type: 'general', contactEmail: address }] }),
    });
    return { user, address };
  };
  const forgot = (loginName: string, remoteAddress = freshAddress()) =>
    app.inject({ method: 'POST', url: '/api/auth/forgotPassword', payload: { login: loginName }, remoteAddress });
  const reset = (token: string, password: string, remoteAddress = freshAddress()) =>
    app.inject({ method: 'POST', url: '/api/auth/resetPassword', payload: { token, password }, remoteAddress });
  const signIn = (username: string, password: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username, password },
      remoteAddress: freshAddress(),
      headers,
    });
  const whoAmI = (cookie: string) => as(app, cookie, { method: 'GET', url: '/api/auth/user' });
  /** The token of the newest reset link mailed to `address` once there are `count` of them. */
  const mailedToken = async (address: string, count = 1) => {
    const mails = await eventually(
      `reset mail ${count} to ${address}`,
      () => Promise.resolve(mailServer.received.filter((r) => r.envelopeTo.includes(address))),
      (got) => got.length >= count,
    );
    const mail = mails[count - 1].mail;
    expect(mail.subject).toBe('Set a new adplane password');
    const link = /(http\S+\/reset-password\?token=\S+)/.exec(mail.text ?? '')?.[1];
    expect(link, mail.text).toBeDefined();
    const url = new URL(link as string);
    expect(url.origin).toBe(app.settings.publicHost);
    expect(mail.html).toContain(url.search.replace(/&/g, '&#38;'));
    return url.searchParams.get('token') as string;
  };

  describe('reset by an e-mailed link', () => {
    it('mails a link whose token sets a new password once, ends every session, and lets the new password sign in', async () => {
      const { user, address } = await newAccount();
      const first = await login(app, user.username, OLD_PASSWORD, freshAddress());
      const second = await login(app, user.username, OLD_PASSWORD, freshAddress());

      const asked = await forgot(address.toUpperCase());
      expect(asked.statusCode).toBe(200);
      expect(asked.json()).toEqual({ ok: true, message: FORGOT_PASSWORD_ANSWER });
      const token = await mailedToken(address);

      const weak = await reset(token, 'password1');
      expect(weak.statusCode).toBe(400);
      expect(weak.json<{ field: string }>().field).toBe('password');
      // a refused password does not spend the link
      const done = await reset(token, NEW_PASSWORD);
      expect(done.statusCode, done.body).toBe(200);

      expect((await whoAmI(first)).statusCode).toBe(403);
      expect((await whoAmI(second)).statusCode).toBe(403);
      expect((await signIn(user.username, OLD_PASSWORD)).statusCode).toBe(401);
      const fresh = await login(app, user.username, NEW_PASSWORD, freshAddress());
      expect((await whoAmI(fresh)).statusCode).toBe(200);

      const again = await reset(token, 'another-good-passphrase');
      expect(again.statusCode).toBe(400);
      expect(again.json<{ field: string }>().field).toBe('token');
      expect((await signIn(user.username, NEW_PASSWORD)).statusCode).toBe(200);

      const log = await as(app, fresh, { method: 'GET', url: '/api/auth/signIns' });
      expect(log.json<{ items: SignInEntry[] }>().items.map((e) => e.outcome)).toEqual([
        'success',
        'success',
        'failure',
        'password_reset',
        'success',
        'success',
      ]);
    });

    it('refuses a link an hour after it was asked for, by the app clock', async () => {
      const { user, address } = await newAccount();
      expect((await forgot(user.username)).statusCode).toBe(200);
      const token = await mailedToken(address);
      clock.advance(60 * MINUTE + 1_000);
      const late = await reset(token, NEW_PASSWORD);
      expect(late.statusCode).toBe(400);
      expect(late.json<{ field: string }>().field).toBe('token');
      expect((await signIn(user.username, OLD_PASSWORD)).statusCode).toBe(200);
    });

    it("mails an account without an e-mail of its own at its contact's address", async () => {
      const { user, address } = await newAccount('contact');
      expect((await forgot(user.username)).statusCode).toBe(200);
      const token = await mailedToken(address);
      expect((await reset(token, NEW_PASSWORD)).statusCode).toBe(200);
      expect((await signIn(user.username, NEW_PASSWORD)).statusCode).toBe(200);
    });

    it('answers an unknown address exactly as a known one, and mails nothing', async () => {
      const { address } = await newAccount();
      const before = mailServer.received.length;
      const known = await forgot(address);
      const unknown = await forgot(`nobody-${serial}@example.com`);
      expect([unknown.statusCode, unknown.body]).toEqual([known.statusCode, known.body]);
      await mailedToken(address);
      // the known address's mail came; the unknown one's never does (its job ended with the known one's or before)
      expect(mailServer.received.length - before).toBe(1);
      expect(mailServer.received.some((r) => r.envelopeTo.includes(`nobody-${serial}@example.com`))).toBe(false);
    });

    it('is refused after 5 requests an hour for one address, and 30 from one client, known or not', async () => {
      const { address } = await newAccount();
      for (let i = 0; i < 5; i++) expect((await forgot(address)).statusCode).toBe(200);
      const known = await forgot(address);
      expect(known.statusCode).toBe(429);
      expect(Number(known.headers['retry-after'])).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) expect((await forgot('nobody@nowhere.example')).statusCode).toBe(200);
      expect((await forgot('nobody@nowhere.example')).statusCode).toBe(429);
      const client = freshAddress();
      for (let i = 0; i < 30; i++) expect((await forgot(`many-${i}@example.com`, client)).statusCode).toBe(200);
      expect((await forgot('one-more@example.com', client)).statusCode).toBe(429);
      clock.advance(61 * MINUTE);
      expect((await forgot(address)).statusCode).toBe(200);
    });

    it('refuses bad input naming the field', async () => {
      const empty = await forgot('  ');
      expect([empty.statusCode, empty.json<{ field: string }>().field]).toEqual([400, 'login']);
      const noToken = await reset('', NEW_PASSWORD);
      expect([noToken.statusCode, noToken.json<{ field: string }>().field]).toEqual([400, 'token']);
    });
  });

  describe('password change', () => {
    it('asks the current password, ends every other session, keeps this one, and brakes guessing like sign-in', async () => {
      const { user } = await newAccount();
      const here = await login(app, user.username, OLD_PASSWORD, freshAddress());
      const elsewhere = await login(app, user.username, OLD_PASSWORD, freshAddress());
      const change = (currentPassword: string, newPassword: string) =>
        as(app, here, { method: 'POST', url: '/api/auth/password', payload: { currentPassword, newPassword } });

      const weak = await change(OLD_PASSWORD, 'short');
      expect([weak.statusCode, weak.json<{ field: string }>().field]).toEqual([400, 'newPassword']);
      const wrong = await change('not-it-at-all', NEW_PASSWORD);
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json<{ field: string; message: string }>()).toMatchObject({ field: 'currentPassword' });

      const done = await change(OLD_PASSWORD, NEW_PASSWORD);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json()).toEqual({ ok: true, sessionsEnded: 1 });
      expect((await whoAmI(here)).statusCode).toBe(200);
      expect((await whoAmI(elsewhere)).statusCode).toBe(403);
      expect((await signIn(user.username, OLD_PASSWORD)).statusCode).toBe(401);
      expect((await signIn(user.username, NEW_PASSWORD)).statusCode).toBe(200);

      // Guessing through a session is slowed down, then refused, as sign-in is.
      slept.length = 0;
      const codes: number[] = [];
      for (let i = 0; i < 11; i++) codes.push((await change(`guess-${i}`, 'yet-another-passphrase')).statusCode);
      expect(codes.slice(0, 10)).toEqual(Array(10).fill(400));
      expect(codes[10]).toBe(429);
      expect(slept.slice(0, 3)).toEqual([1_000, 2_000, 4_000]);
      // and sign-in shares the count
      expect((await signIn(user.username, NEW_PASSWORD)).statusCode).toBe(429);
      clock.advance(16 * MINUTE);
    });

    it('is refused to an API key of the account', async () => {
      const { user } = await newAccount();
      const cookie = await login(app, user.username, OLD_PASSWORD, freshAddress());
      const made = await as(app, cookie, { method: 'POST', url: '/api/apiKeys', payload: { name: 'script' } });
      expect(made.statusCode, made.body).toBe(201);
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/password',
        headers: { authorization: `Bearer ${made.json<{ key: string }>().key}` },
        payload: { currentPassword: OLD_PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(res.statusCode, res.body).toBe(403);
      expect((await whoAmI(cookie)).statusCode).toBe(200);
    });

    it('is refused to an admin acting as the account', async () => {
      const { user } = await newAccount();
      const admin = await login(app, 'admin', DEMO_PASSWORD, freshAddress());
      const sw = await as(app, admin, { method: 'GET', url: `/api/switch?type=demand&id=${user.id}` });
      expect(sw.statusCode, sw.body).toBe(302);
      const res = await as(app, admin, {
        method: 'POST',
        url: '/api/auth/password',
        payload: { currentPassword: OLD_PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('sign-in log', () => {
    it('records each attempt with its address, agent and reason; the user reads their own, an admin any', async () => {
      const { user } = await newAccount();
      expect((await signIn(user.username, 'wrong-one', { 'user-agent': 'Guesser/1.0' })).statusCode).toBe(401);
      const res = await signIn(user.username, OLD_PASSWORD, { 'user-agent': 'Browser/2.0' });
      expect(res.statusCode).toBe(200);
      const cookie = (res.headers['set-cookie'] as string | string[]).toString().split(';')[0];
      const own = (await as(app, cookie, { method: 'GET', url: '/api/auth/signIns' })).json<{ items: SignInEntry[] }>();
      expect(own.items.map((e) => [e.outcome, e.reason, e.userAgent])).toEqual([
        ['success', null, 'Browser/2.0'],
        ['failure', 'bad_password', 'Guesser/1.0'],
      ]);
      expect(own.items[0].ip).toMatch(/^10\.0\./);
      expect(Date.parse(own.items[0].at)).toBeGreaterThanOrEqual(Date.parse(own.items[1].at));

      const admin = await login(app, 'admin', DEMO_PASSWORD, freshAddress());
      const seen = await as(app, admin, { method: 'GET', url: `/api/users/${user.id}/signIns` });
      expect(seen.json<{ items: SignInEntry[] }>().items).toEqual(own.items);
      expect((await as(app, cookie, { method: 'GET', url: `/api/users/${user.id}/signIns` })).statusCode).toBe(403);
      expect((await as(app, admin, { method: 'GET', url: '/api/users/999999/signIns' })).statusCode).toBe(404);
      expect((await as(app, admin, { method: 'GET', url: '/api/users/x/signIns' })).statusCode).toBe(400);

      // Kept 90 days by the app clock: the rows are gone from reads, and from the table at the next write.
      clock.advance(91 * DAY);
      const later = await login(app, user.username, OLD_PASSWORD, freshAddress());
      const after = (await as(app, later, { method: 'GET', url: '/api/auth/signIns' })).json<{
        items: SignInEntry[];
      }>();
      expect(after.items.map((e) => e.outcome)).toEqual(['success']);
      const rows = await t.store.db.selectFrom('sign_in_log').select('id').where('user_id', '=', user.id).execute();
      expect(rows).toHaveLength(1);
    });
  });
});

describe('without mail settings', () => {
  forEachStore((t) => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store, { mail: null });
    });
    afterAll(async () => app.close());

    it('says mail is off, before and when a reset is asked for', async () => {
      expect((await app.inject({ method: 'GET', url: '/api/auth/passwordReset' })).json()).toEqual({ mail: false });
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/forgotPassword',
        payload: { login: 'demand@example.com' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json<{ message: string }>().message).toMatch(/Mail is off/);
    });
  });
});
