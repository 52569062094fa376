import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * The SSP/DSP switch (PUT /api/ui/mode): admins and the demand users of a tenant with the DSP view
 * may switch, a team member included (its own showDsp flag is off: the tenant's counts); a tenant
 * without the DSP view, and sub, adv and sdk users, are refused with a 403 saying why. The console
 * shows the switch by the user's showDsp, which the server sets by the same shared rule
 * (entitlements.ts, modeSwitchRefusal): each role's flag agrees with its answer here.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    for (const who of ['admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk', 'acme'])
      cookies[who] = await login(app, who);
  });
  afterAll(async () => {
    await app.close();
  });

  const switchTo = (who: string, payload: unknown) =>
    as(app, cookies[who], { method: 'PUT', url: '/api/ui/mode', payload: payload as object });

  describe('PUT /api/ui/mode', () => {
    it.each(['admin', 'ops', 'demand', 'manager'])('lets %s switch to DSP and back', async (who) => {
      for (const mode of ['dsp', 'ssp']) {
        const res = await switchTo(who, { mode });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ mode });
      }
    });

    it.each([
      ['admin', true],
      ['ops', true],
      ['demand', true],
      ['manager', true],
      ['sub', false],
      ['adv', false],
      ['sdk', false],
      ['acme', false],
    ])('sends %s the flag the switch obeys (showDsp %s) in the session and GET /api/auth/user', async (who, may) => {
      const session = (await as(app, cookies[who], { method: 'GET', url: '/api/auth/session' })).json() as {
        user: { showDsp: boolean };
      };
      const user = (await as(app, cookies[who], { method: 'GET', url: '/api/auth/user' })).json() as {
        showDsp: boolean;
      };
      expect(session.user.showDsp).toBe(may);
      expect(user.showDsp).toBe(may);
      expect((await switchTo(who, { mode: 'dsp' })).statusCode).toBe(may ? 200 : 403);
    });

    it("reads the tenant's flag for a team member, whose own stored flag is off", async () => {
      const manager = await app.store.db
        .selectFrom('users')
        .select(['show_dsp', 'manager_id'])
        .where('id', '=', t.users.manager.id)
        .executeTakeFirstOrThrow();
      expect(manager.manager_id).not.toBeNull();
      expect(Number(manager.show_dsp)).toBe(0);
      const user = (await as(app, cookies.manager, { method: 'GET', url: '/api/auth/user' })).json() as {
        showDsp: boolean;
        tenantShowDsp: boolean;
      };
      expect(user).toMatchObject({ showDsp: true, tenantShowDsp: true });
    });

    it("answers an admin acting as a user (GET /api/switch) with that user's flag", async () => {
      const adminCookie = await login(app, 'ops');
      const acting = async (id: number) =>
        (
          await as(app, adminCookie, {
            method: 'GET',
            url: `/api/switch?type=demand&id=${id}`,
            headers: { accept: 'application/json' },
          })
        ).json() as { showDsp: boolean; adminId: number };
      expect(await acting(t.users.manager.id)).toMatchObject({ showDsp: true });
      expect(await acting(t.users.acme.id)).toMatchObject({ showDsp: false });
      const refused = await as(app, adminCookie, { method: 'PUT', url: '/api/ui/mode', payload: { mode: 'dsp' } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toMatch(/DSP view is not enabled/);
    });

    it.each([
      ['sub', /account \(sub\) works in the SSP view/],
      ['adv', /account \(adv\) works in the SSP view/],
      ['sdk', /account \(sdk\) works in the SSP view/],
      ['acme', /DSP view is not enabled for this account/],
    ])('refuses %s with 403 saying why, whatever the body', async (who, why) => {
      for (const payload of [{ mode: 'dsp' }, { mode: 'ssp' }, {}]) {
        const res = await switchTo(who, payload);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json().message).toMatch(why);
      }
    });

    it('names the field of a mode that does not exist', async () => {
      const res = await switchTo('demand', { mode: 'xsp' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ field: 'mode', errors: [{ field: 'mode', message: 'must be ssp or dsp' }] });
    });

    it('is refused signed out', async () => {
      expect((await as(app, null, { method: 'PUT', url: '/api/ui/mode', payload: { mode: 'dsp' } })).statusCode).toBe(
        403,
      );
    });
  });
});
