import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AuthUser, DEFAULT_SUB_SELLER, type Profile } from '@adplane/shared';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
  });
  afterAll(async () => {
    await app.close();
  });

  const getProfile = async (cookie: string) => {
    const response = await as(app, cookie, { method: 'GET', url: '/api/demand/info' });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Profile>();
  };
  const putProfile = (cookie: string, payload: object) =>
    as(app, cookie, { method: 'PUT', url: '/api/demand/info', payload });

  it('reads the demand profile with the three contacts, the missing ones added', async () => {
    const profile = await getProfile(await login(app, 'demand'));
    expect(profile).toMatchObject({
      name: 'Northwind Media',
      companyName: 'Northwind Media LLC',
      uid: 'nw1',
      domain: 'ads.northwind.test',
      readOnly: false,
    });
    expect(profile.contacts.map((c) => c.type)).toEqual(['general', 'billing', 'technical']);
    expect(profile.contacts[0]).toMatchObject({ firstName: 'Nora', lastName: 'Wind', mobilePhone: '' });
    expect(profile.contacts[2]).toMatchObject({ firstName: '', lastName: '' });
    expect(profile.sellersJson).toEqual([{ id: 'nw1-sub-1', domain: 'harborvideo.test', name: 'Harbor Video' }]);
    expect(profile.priceImp).toBe(50_000);
    expect(profile.priceDsp).toBe(10);
  });

  it('gives a sub its sellers entry as an object, a read-only flag, and the default entry when none', async () => {
    const profile = await getProfile(await login(app, 'sub'));
    expect(profile.readOnly).toBe(true);
    expect(profile.sellersJson).toEqual({
      type: 'PUBLISHER',
      name: 'Harbor Video',
      id: 'nw1-sub-1',
      status: 1,
      confidential: 0,
    });
    const { createUser } = await import('../src/store/users.js');
    const bare = await createUser(t.store.db, {
      type: 'sub',
      username: 'bare-sub',
      passwordHash: 'x',
      name: 'Bare',
      tenantId: t.users.demand.id,
    });
    const { profileOf } = await import('../src/api/demandInfo.js');
    expect(profileOf(bare).sellersJson).toEqual(DEFAULT_SUB_SELLER);
    expect(profileOf(bare).contacts).toHaveLength(3);
  });

  it('refuses admins: they have no profile', async () => {
    const cookie = await login(app, 'admin');
    expect((await as(app, cookie, { method: 'GET', url: '/api/demand/info' })).statusCode).toBe(403);
    expect((await putProfile(cookie, { name: 'X' })).statusCode).toBe(403);
  });

  it("refuses sub and adv changes with 'Your profile is read-only'", async () => {
    for (const who of ['sub', 'adv']) {
      const response = await putProfile(await login(app, who), { name: 'Changed' });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ message: 'Your profile is read-only' });
    }
  });

  it('saves a demand profile: text trimmed, contacts completed, prices and ids in the body ignored', async () => {
    const cookie = await login(app, 'demand');
    const before = await getProfile(cookie);
    const response = await putProfile(cookie, {
      ...before,
      name: '  Northwind Media Group  ',
      companyName: '  Northwind Holdings ',
      timezone: 3,
      tagParams: ['channel_id', ' site_section '],
      contacts: [{ type: 'billing', firstName: ' Bill ', contactEmail: ' bill@northwind.test ' }],
      sellersJson: [{ id: ' s-2 ', domain: 'two.test', name: 'Two' }],
      priceReq: 1,
      priceImp: 2,
      priceDsp: 99,
      pricePostbid: 3,
      uid: 'hacked',
      token: 'stolen',
      domain: 'evil.test',
      postbidPercent: 25,
      setPostbidAll: 1,
      blockIVT: true,
    });
    expect(response.statusCode, response.body).toBe(200);
    const saved = response.json<Profile>();
    expect(saved).toMatchObject({
      name: 'Northwind Media Group',
      companyName: 'Northwind Holdings',
      timezone: 3,
      tagParams: ['channel_id', 'site_section'],
      priceReq: before.priceReq,
      priceImp: before.priceImp,
      priceDsp: before.priceDsp,
      pricePostbid: before.pricePostbid,
      uid: 'nw1',
      token: before.token,
      domain: 'ads.northwind.test',
      postbidPercent: 25,
      setPostbidAll: 1,
      blockIVT: 1,
    });
    expect(saved.contacts.map((c) => [c.type, c.firstName, c.contactEmail])).toEqual([
      ['general', '', ''],
      ['billing', 'Bill', 'bill@northwind.test'],
      ['technical', '', ''],
    ]);
    expect(saved.sellersJson).toEqual([{ id: 's-2', domain: 'two.test', name: 'Two' }]);
    // Stored: a fresh read and the session user agree.
    expect(await getProfile(cookie)).toEqual(saved);
    const me = (await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).json<AuthUser>();
    expect(me).toMatchObject({ timezone: 3, tagParams: ['channel_id', 'site_section'], name: 'Northwind Media Group' });
    expect(me.vastParams.map((m) => m.param)).toContain('site_section');
  });

  it('ignores option flags the account does not have (acme has no post-bid or IVT features)', async () => {
    const cookie = await login(app, 'acme');
    const saved = (
      await putProfile(cookie, {
        name: 'Acme Video',
        postbidPercent: 40,
        setPostbidAll: 1,
        blockIVT: 1,
        delOldCreatives: 1,
      })
    ).json<Profile>();
    expect(saved).toMatchObject({
      postbidPercent: 0,
      setPostbidAll: null,
      blockIVT: null,
      delOldCreatives: 1,
      tagParams: null,
    });
  });

  it('requires a name (400 naming the field) and writes nothing', async () => {
    const cookie = await login(app, 'manager');
    const before = await getProfile(cookie);
    const response = await putProfile(cookie, { name: '   ', companyName: 'Should not be saved' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field: 'name', errors: [{ field: 'name', message: 'is required' }] });
    expect(await getProfile(cookie)).toEqual(before);
  });

  it('limits the company name to 100 characters', async () => {
    const response = await putProfile(await login(app, 'manager'), { name: 'Trader', companyName: 'x'.repeat(101) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      field: 'companyName',
      message: 'companyName: must be at most 100 characters',
    });
  });

  it('names nested fields and refuses the subpublisher form of sellers.json for a demand account', async () => {
    const cookie = await login(app, 'manager');
    const badMail = await putProfile(cookie, {
      name: 'Trader',
      contacts: [{ type: 'general', contactEmail: 'not-mail' }],
    });
    expect(badMail.statusCode).toBe(400);
    expect(badMail.json().field).toBe('contacts.0.contactEmail');
    const wrongForm = await putProfile(cookie, {
      name: 'Trader',
      sellersJson: { type: 'PUBLISHER', name: 'x', id: '1', status: 1, confidential: 0 },
    });
    expect(wrongForm.statusCode).toBe(400);
    expect(wrongForm.json().field).toBe('sellersJson');
  });

  it('lets an sdk user change its name and contacts only', async () => {
    const cookie = await login(app, 'sdk');
    const saved = (
      await putProfile(cookie, {
        name: ' Harbor SDK Team ',
        companyName: 'Ignored',
        timezone: 5,
        contacts: [{ type: 'technical', lastName: 'Dev' }],
      })
    ).json<Profile>();
    expect(saved).toMatchObject({ name: 'Harbor SDK Team', companyName: '', timezone: 0 });
    expect(saved.contacts[2].lastName).toBe('Dev');
  });
});
