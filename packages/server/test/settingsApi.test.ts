import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDARD_TAG_MACROS, type TagMacro } from '@adplane/shared';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('/api/admin/config', () => {
    it('starts at zero, saves and reads back for any admin', async () => {
      const admin = await login(app, 'admin');
      expect((await as(app, admin, { method: 'GET', url: '/api/admin/config' })).json()).toEqual({
        postbidMaxImps: 0,
        postbidMaxReps: 0,
      });
      const ops = await login(app, 'ops');
      const saved = await as(app, ops, {
        method: 'PUT',
        url: '/api/admin/config',
        payload: { postbidMaxImps: 5_000_000, postbidMaxReps: 40 },
      });
      expect(saved.statusCode).toBe(200);
      expect(saved.json()).toEqual({ postbidMaxImps: 5_000_000, postbidMaxReps: 40 });
      expect((await as(app, admin, { method: 'GET', url: '/api/admin/config' })).json()).toEqual({
        postbidMaxImps: 5_000_000,
        postbidMaxReps: 40,
      });
    });

    it('refuses negative and fractional numbers with 400 naming the field', async () => {
      const admin = await login(app, 'admin');
      const negative = await as(app, admin, {
        method: 'PUT',
        url: '/api/admin/config',
        payload: { postbidMaxImps: -1, postbidMaxReps: 1 },
      });
      expect(negative.statusCode).toBe(400);
      expect(negative.json()).toMatchObject({
        field: 'postbidMaxImps',
        errors: [{ field: 'postbidMaxImps', message: 'must not be negative' }],
      });
      const fraction = await as(app, admin, {
        method: 'PUT',
        url: '/api/admin/config',
        payload: { postbidMaxImps: 1, postbidMaxReps: 1.5 },
      });
      expect(fraction.json()).toMatchObject({ field: 'postbidMaxReps' });
      expect((await as(app, admin, { method: 'GET', url: '/api/admin/config' })).json().postbidMaxReps).not.toBe(1.5);
    });

    it('is refused to non-admins', async () => {
      const demand = await login(app, 'demand');
      expect((await as(app, demand, { method: 'GET', url: '/api/admin/config' })).statusCode).toBe(403);
      expect(
        (
          await as(app, demand, {
            method: 'PUT',
            url: '/api/admin/config',
            payload: { postbidMaxImps: 1, postbidMaxReps: 1 },
          })
        ).statusCode,
      ).toBe(403);
    });
  });

  describe('/api/ui/settings', () => {
    it('keeps the new-tabs flag per user', async () => {
      const demand = await login(app, 'demand');
      const sub = await login(app, 'sub');
      expect((await as(app, demand, { method: 'GET', url: '/api/ui/settings' })).json()).toEqual({ tabs: false });
      expect(
        (await as(app, demand, { method: 'PUT', url: '/api/ui/settings', payload: { tabs: true } })).json(),
      ).toEqual({ tabs: true });
      expect((await as(app, demand, { method: 'GET', url: '/api/ui/settings' })).json()).toEqual({ tabs: true });
      expect((await as(app, sub, { method: 'GET', url: '/api/ui/settings' })).json()).toEqual({ tabs: false });
      const bad = await as(app, demand, { method: 'PUT', url: '/api/ui/settings', payload: { tabs: 'yes' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().field).toBe('tabs');
    });
  });

  describe('VAST macros', () => {
    it('lists the standard macros plus the tenant custom parameters; VAST 2 leaves out what old players lack', async () => {
      const cookie = await login(app, 'sub');
      const vast = (await as(app, cookie, { method: 'GET', url: '/api/demand/vastParams' })).json<TagMacro[]>();
      const vast2 = (await as(app, cookie, { method: 'GET', url: '/api/demand/vast2Params' })).json<TagMacro[]>();
      expect(vast.slice(0, STANDARD_TAG_MACROS.length).map((m) => m.param)).toEqual(
        STANDARD_TAG_MACROS.map((m) => m.param),
      );
      expect(vast).toContainEqual({ param: 'w', macro: '{{width}}', description: 'Player width in pixels' });
      // The sub works with its tenant's tags, so it sees Northwind's custom parameter.
      expect(vast).toContainEqual({
        param: 'channel_id',
        macro: '{{channel_id}}',
        description: 'Custom tag parameter',
      });
      expect(vast2.map((m) => m.param)).toContain('channel_id');
      expect(vast2.map((m) => m.param)).not.toContain('gdpr_consent');
      expect(vast2.map((m) => m.param)).not.toContain('schain');
      expect(vast2.length).toBeLessThan(vast.length);
    });

    it('gives another tenant none of Northwind parameters', async () => {
      const vast = (await as(app, await login(app, 'acme'), { method: 'GET', url: '/api/demand/vastParams' })).json<
        TagMacro[]
      >();
      expect(vast.map((m) => m.param)).not.toContain('channel_id');
      expect(vast).toHaveLength(STANDARD_TAG_MACROS.length);
    });
  });
});
