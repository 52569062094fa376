import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * The SSP/DSP switch (PUT /api/ui/mode): admins and the demand users of a tenant with the DSP view
 * may switch, a team member included (its own showDsp flag is off: the tenant's counts); a tenant
 * without the DSP view, and sub, adv and sdk users, are refused with a 403 saying why. The console
 * shows the switch by the same shared rule (entitlements.ts, modeSwitchRefusal), which AuthUser
 * carries as tenantShowDsp.
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

    it('reads the tenant flag for a team member, not the member own (off) flag', async () => {
      const user = (await as(app, cookies.manager, { method: 'GET', url: '/api/auth/user' })).json() as {
        showDsp: boolean;
        tenantShowDsp: boolean;
      };
      expect(user).toMatchObject({ showDsp: false, tenantShowDsp: true });
      expect((await switchTo('manager', { mode: 'dsp' })).statusCode).toBe(200);
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
