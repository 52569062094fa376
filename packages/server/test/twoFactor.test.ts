import { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthUser,
  type EnrolledSignIn,
  type RecoveryCodes,
  type SecondStepPending,
  type SignInEntry,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '@adplane/shared';
import { LoginThrottle } from '../src/auth/loginThrottle.js';
import { TestClock } from '../src/clock.js';
import { as, buildTestApp, forEachStore, freshAddress, login, sessionCookieOf } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * Two-factor sign-in through the real app and store: enrolment, the second step with a TOTP code
 * (computed here from the secret the server showed, by the same library) or a recovery code, no
 * replay, the sign-in brakes, turning it off, a tenant's requirement enforced before any session,
 * an admin's reset, and API keys left as they are.
 */
const START = Date.parse('2026-11-20T10:00:10.000Z');
const STEP_MS = 30_000;
const PASSWORD = 'two-factor-pass-1';

forEachStore((t) => {
  let app: FastifyInstance;
  const clock = new TestClock(START);
  let admin: string;
  let demand: string;
  beforeAll(async () => {
    // Slowed-down attempts do not sleep here; the throttle's window runs on the test clock.
    const loginThrottle = new LoginThrottle({ now: () => clock.now(), sleep: async () => {} });
    app = await buildTestApp(t.store, {}, { clock, loginThrottle });
    admin = await login(app, 'admin', undefined, freshAddress());
    demand = await login(app, 'demand', undefined, freshAddress());
  });
  afterAll(() => app.close());

  const codeOf = (secret: string, at = clock.now()) => generateSync({ secret, epoch: Math.floor(at / 1000) });
  const post = (url: string, payload: object, cookie: string | null = null, remoteAddress = '127.0.0.1') =>
    as(app, cookie, { method: 'POST', url, payload, remoteAddress });
  const password = (username: string, pw = PASSWORD, remoteAddress = freshAddress()) =>
    post('/api/auth/login', { username, password: pw }, null, remoteAddress);

  let serial = 0;
  /** A new advertiser of the demo tenant, made by its demand user; signs in with PASSWORD. */
  async function newAdv(): Promise<{ id: number; username: string; cookie: string }> {
    const username = `tf-adv-${++serial}-${t.dialect}`;
    const body = { name: `Two-factor adv ${serial}`, username, email: '', password: PASSWORD };
    const made = await as(app, demand, { method: 'POST', url: '/api/demand/advs', payload: body });
    expect(made.statusCode, made.body).toBe(201);
    return {
      id: made.json<{ id: number }>().id,
      username,
      cookie: await login(app, username, PASSWORD, freshAddress()),
    };
  }

  /** Enrol a signed-in user: the secret, and the recovery codes shown once. */
  async function enrol(cookie: string): Promise<{ secret: string; codes: string[] }> {
    const setup = await post('/api/auth/twoFactor/setup', {}, cookie);
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret } = setup.json<TwoFactorSetup>();
    const confirmed = await post('/api/auth/twoFactor/confirm', { code: codeOf(secret) }, cookie);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    return { secret, codes: confirmed.json<RecoveryCodes>().recoveryCodes };
  }

  const pendingOf = (res: LightMyRequestResponse): SecondStepPending => {
    expect(res.statusCode, res.body).toBe(200);
    expect(sessionCookieOf(res)).toBeNull();
    return res.json<SecondStepPending>();
  };

  describe('enrolment', () => {
    it('shows a secret and its otpauth URI, turns on only with a right code, and stores the secret sealed', async () => {
      const user = await newAdv();
      const before = await as(app, user.cookie, { method: 'GET', url: '/api/auth/twoFactor' });
      expect(before.json<TwoFactorStatus>()).toEqual({
        enabled: false,
        enabledAt: null,
        required: false,
        recoveryCodesLeft: 0,
      });

      const setup = (await post('/api/auth/twoFactor/setup', {}, user.cookie)).json<TwoFactorSetup>();
      expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(setup.uri).toBe(`otpauth://totp/adplane:${user.username}?secret=${setup.secret}&issuer=adplane`);
      const row = await t.store.db
        .selectFrom('two_factor')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.secret_enc).not.toContain(setup.secret);
      expect(row.enabled_at).toBeNull();
      // still off until confirmed: the password alone signs in
      expect(sessionCookieOf(await password(user.username))).not.toBeNull();

      const wrong = await post('/api/auth/twoFactor/confirm', { code: '000000' }, user.cookie);
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toMatchObject({ field: 'code' });
      const empty = await post('/api/auth/twoFactor/confirm', { code: '' }, user.cookie);
      expect(empty.json()).toMatchObject({ field: 'code' });

      const ok = await post('/api/auth/twoFactor/confirm', { code: codeOf(setup.secret) }, user.cookie);
      expect(ok.statusCode, ok.body).toBe(200);
      const { recoveryCodes } = ok.json<RecoveryCodes>();
      expect(recoveryCodes).toHaveLength(10);
      const stored = await t.store.db
        .selectFrom('recovery_codes')
        .select('digest')
        .where('user_id', '=', user.id)
        .execute();
      expect(stored).toHaveLength(10);
      expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]);
      const after = (await as(app, user.cookie, { method: 'GET', url: '/api/auth/twoFactor' })).json<TwoFactorStatus>();
      expect(after).toMatchObject({ enabled: true, required: false, recoveryCodesLeft: 10 });
      expect(after.enabledAt).toBe(new Date(clock.now()).toISOString());
      // A second enrolment while it is on is refused.
      expect((await post('/api/auth/twoFactor/setup', {}, user.cookie)).statusCode).toBe(409);
    });
  });

  describe('sign-in with a second step', () => {
    it('answers the password with a pending token, not a session, then signs in with the current code once', async () => {
      const user = await newAdv();
      const { secret } = await enrol(user.cookie);
      const pending = pendingOf(await password(user.username));
      expect(pending.twoFactor).toBe('code');
      // the pending token is no session
      const probe = await app.inject({
        method: 'GET',
        url: '/api/auth/user',
        headers: { authorization: `Bearer ${pending.pendingToken}` },
      });
      expect(probe.statusCode).toBe(401);

      // the code that confirmed enrolment was taken: the same step again is a replay
      const replay = await post('/api/auth/login/code', { pendingToken: pending.pendingToken, code: codeOf(secret) });
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toMatchObject({ field: 'code' });

      clock.advance(STEP_MS);
      const code = codeOf(secret);
      const signedIn = await post('/api/auth/login/code', {
        pendingToken: pending.pendingToken,
        code: ` ${code.slice(0, 3)} ${code.slice(3)} `,
      });
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      expect(signedIn.json<AuthUser>()).toMatchObject({ id: user.id, type: 'adv' });
      const cookie = sessionCookieOf(signedIn);
      expect(cookie).not.toBeNull();
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(200);

      // the same code, with a new password step, is refused within its window
      const again = pendingOf(await password(user.username));
      expect((await post('/api/auth/login/code', { pendingToken: again.pendingToken, code })).statusCode).toBe(400);

      const log = (await as(app, cookie, { method: 'GET', url: '/api/auth/signIns' })).json<{ items: SignInEntry[] }>();
      expect(log.items.filter((e) => e.reason === 'bad_code')).toHaveLength(2);
      expect(log.items[0]).toMatchObject({ outcome: 'failure', reason: 'bad_code' });
    });

    it('signs in with a recovery code once, in any case and spacing', async () => {
      const user = await newAdv();
      const { codes } = await enrol(user.cookie);
      const first = pendingOf(await password(user.username));
      const typed = codes[3].toUpperCase().replaceAll('-', ' ');
      const ok = await post('/api/auth/login/code', { pendingToken: first.pendingToken, code: typed });
      expect(ok.statusCode, ok.body).toBe(200);
      const cookie = sessionCookieOf(ok)!;
      const second = pendingOf(await password(user.username));
      const spent = await post('/api/auth/login/code', { pendingToken: second.pendingToken, code: codes[3] });
      expect(spent.statusCode).toBe(400);
      const status = (await as(app, cookie, { method: 'GET', url: '/api/auth/twoFactor' })).json<TwoFactorStatus>();
      expect(status.recoveryCodesLeft).toBe(9);

      // new codes (the password asked again): the old ones stop working
      const wrongPw = await post('/api/auth/twoFactor/recoveryCodes', { password: 'nope' }, cookie);
      expect(wrongPw.json()).toMatchObject({ field: 'password' });
      const renewed = await post('/api/auth/twoFactor/recoveryCodes', { password: PASSWORD }, cookie);
      const fresh = renewed.json<RecoveryCodes>().recoveryCodes;
      expect(fresh).toHaveLength(10);
      const third = pendingOf(await password(user.username));
      expect(
        (await post('/api/auth/login/code', { pendingToken: third.pendingToken, code: codes[0] })).statusCode,
      ).toBe(400);
      expect(
        (await post('/api/auth/login/code', { pendingToken: third.pendingToken, code: fresh[0] })).statusCode,
      ).toBe(200);
    });

    it('refuses an expired, forged or wrong-step token, and brakes code guessing like password guessing', async () => {
      const user = await newAdv();
      const { secret } = await enrol(user.cookie);
      const pending = pendingOf(await password(user.username));
      for (const token of ['', 'garbage', `${pending.pendingToken}x`]) {
        const res = await post('/api/auth/login/code', { pendingToken: token, code: '123456' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ field: 'pendingToken' });
      }
      // a 'code' token does not open the enrolment steps
      expect((await post('/api/auth/login/setup', { pendingToken: pending.pendingToken })).json()).toMatchObject({
        field: 'pendingToken',
      });
      clock.advance(5 * 60_000);
      expect(
        (await post('/api/auth/login/code', { pendingToken: pending.pendingToken, code: codeOf(secret) })).json(),
      ).toMatchObject({ field: 'pendingToken' });

      const fresh = pendingOf(await password(user.username));
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await post(
          '/api/auth/login/code',
          { pendingToken: fresh.pendingToken, code: '000000' },
          null,
          freshAddress(),
        );
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
      // even the right code waits out the window
      clock.advance(STEP_MS);
      expect(
        (await post('/api/auth/login/code', { pendingToken: fresh.pendingToken, code: codeOf(secret) })).statusCode,
      ).toBe(429);
      clock.advance(16 * 60_000);
    });

    it('turns off with the password, after which the password alone signs in', async () => {
      const user = await newAdv();
      await enrol(user.cookie);
      const wrong = await post('/api/auth/twoFactor/disable', { password: 'wrong-one' }, user.cookie);
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toMatchObject({ field: 'password' });
      expect((await post('/api/auth/twoFactor/disable', { password: PASSWORD }, user.cookie)).statusCode).toBe(200);
      expect(sessionCookieOf(await password(user.username))).not.toBeNull();
      expect(
        await t.store.db.selectFrom('recovery_codes').select('id').where('user_id', '=', user.id).execute(),
      ).toEqual([]);
    });

    it('leaves API keys as they are: a key works without a code, but cannot change two-factor sign-in', async () => {
      const user = await newAdv();
      await enrol(user.cookie);
      const made = await post('/api/apiKeys', { name: 'script' }, user.cookie);
      expect(made.statusCode, made.body).toBe(201);
      const headers = { authorization: `Bearer ${made.json<{ key: string }>().key}` };
      expect((await app.inject({ method: 'GET', url: '/api/auth/user', headers })).statusCode).toBe(200);
      expect(
        (
          await app.inject({
            method: 'POST',
            url: '/api/auth/twoFactor/disable',
            headers,
            payload: { password: PASSWORD },
          })
        ).statusCode,
      ).toBe(403);
    });
  });

  describe("a tenant's requirement", () => {
    it('leads its users to enrol before any session, ends sessions without it, and cannot be turned off by them', async () => {
      const tenantBody = { ...sampleBody('demands', 900 + serial++), password: PASSWORD };
      const tenant = await as(app, admin, { method: 'POST', url: '/api/demands', payload: tenantBody });
      expect(tenant.statusCode, tenant.body).toBe(201);
      const tenantId = tenant.json<{ id: number }>().id;
      const subBody = { ...(sampleBody('subs', 901) as { username: string }), password: PASSWORD, tenantId };
      const sub = await as(app, admin, { method: 'POST', url: '/api/demand/subs', payload: subBody });
      expect(sub.statusCode, sub.body).toBe(201);
      const subCookie = await login(app, subBody.username, PASSWORD, freshAddress());

      const current = (await as(app, admin, { method: 'GET', url: `/api/demands/${tenantId}` })).json<
        Record<string, unknown>
      >();
      expect(current.requireTwoFactor).toBe(false);
      const on = await as(app, admin, {
        method: 'PUT',
        url: `/api/demands/${tenantId}`,
        payload: { ...current, password: '', requireTwoFactor: true },
      });
      expect(on.statusCode, on.body).toBe(200);
      expect(on.json()).toMatchObject({ requireTwoFactor: true });
      // the sub's session began without two-factor: it is over
      expect((await as(app, subCookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);

      const pending = pendingOf(await password(subBody.username));
      expect(pending.twoFactor).toBe('enrol');
      // the enrol token is no code step, and no code step is possible before enrolment
      expect(
        (await post('/api/auth/login/code', { pendingToken: pending.pendingToken, code: '123456' })).json(),
      ).toMatchObject({ field: 'pendingToken' });
      const setup = await post('/api/auth/login/setup', { pendingToken: pending.pendingToken });
      expect(setup.statusCode, setup.body).toBe(200);
      const { secret } = setup.json<TwoFactorSetup>();
      expect(
        (await post('/api/auth/login/confirm', { pendingToken: pending.pendingToken, code: '000000' })).statusCode,
      ).toBe(400);
      const confirmed = await post('/api/auth/login/confirm', {
        pendingToken: pending.pendingToken,
        code: codeOf(secret),
      });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
      const enrolled = confirmed.json<EnrolledSignIn>();
      expect(enrolled.user).toMatchObject({ type: 'sub' });
      expect(enrolled.recoveryCodes).toHaveLength(10);
      const cookie = sessionCookieOf(confirmed)!;
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/twoFactor' })).json()).toMatchObject({
        enabled: true,
        required: true,
      });
      // required: the user cannot turn it off
      expect((await post('/api/auth/twoFactor/disable', { password: PASSWORD }, cookie)).statusCode).toBe(403);
      // from now on the password step asks for a code
      expect(pendingOf(await password(subBody.username)).twoFactor).toBe('code');

      // An admin resets it (a lost phone): the next sign-in enrols again; a non-admin may not.
      const subId = sub.json<{ id: number }>().id;
      expect((await post(`/api/users/${subId}/twoFactor/reset`, {}, demand)).statusCode).toBe(403);
      expect((await as(app, demand, { method: 'GET', url: `/api/users/${subId}/twoFactor` })).statusCode).toBe(403);
      const reset = await post(`/api/users/${subId}/twoFactor/reset`, {}, admin);
      expect(reset.json()).toEqual({ ok: true, reset: true });
      expect((await as(app, admin, { method: 'GET', url: `/api/users/${subId}/twoFactor` })).json()).toMatchObject({
        enabled: false,
        required: true,
      });
      expect(pendingOf(await password(subBody.username)).twoFactor).toBe('enrol');
      expect((await post('/api/users/999999/twoFactor/reset', {}, admin)).statusCode).toBe(404);
    });

    it('lets an admin reset a user whose tenant does not require it: the password alone signs in again', async () => {
      const user = await newAdv();
      await enrol(user.cookie);
      expect(pendingOf(await password(user.username)).twoFactor).toBe('code');
      expect((await post(`/api/users/${user.id}/twoFactor/reset`, {}, admin)).statusCode).toBe(200);
      expect(sessionCookieOf(await password(user.username))).not.toBeNull();
    });
  });
});
