import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { adsTxtLinePath, type Profile } from '@adplane/shared';
import { bumpConfigVersion } from '../src/store/configVersion.js';
import { SellersJsonCache } from '../src/supplyChain/sellersJson.js';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';

/**
 * Seller ids are unique (docs/supply-chain.md "Seller ids"): the API refuses a subpublisher or profile
 * entry id another seller has, with a 400 naming the field; rows that already share one (saved before
 * the rule) keep saving, sellers.json lists the first, and the other's ads.txt line warns.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  const seller = (id: string, name = `Seller ${id}`) => ({ type: 'PUBLISHER', name, id, status: 1, confidential: 0 });
  const newSub = (username: string, id: string) => ({
    name: `Sub ${username}`,
    username,
    password: 'Seller-ids-pass-2026',
    domain: `${username}.test`,
    sellersJson: seller(id, `Sub ${username} LLC`),
  });
  const postSub = (role: string, body: object) =>
    as(app, cookies[role], { method: 'POST', url: '/api/demand/subs', payload: body });
  const putSub = (id: number, body: object) =>
    as(app, cookies.demand, { method: 'PUT', url: `/api/demand/subs/${id}`, payload: body });
  const getSub = async (id: number) =>
    (await as(app, cookies.demand, { method: 'GET', url: `/api/demand/subs/${id}` })).json<Record<string, unknown>>();
  const sellersOf = async (host: string) =>
    (await app.inject({ method: 'GET', url: '/sellers.json', headers: { host } })).json<{
      sellers: { seller_id: string; name?: string }[];
    }>().sellers;

  let first = 0;
  let second = 0;

  beforeAll(async () => {
    app = await buildTestApp(t.store, { publicHost: 'https://adplane.example' });
    for (const role of ['demand', 'acme']) cookies[role] = await login(app, role);
    first = (await createAs(app, cookies.demand, 'subs', newSub('ids-first', 'dup-1'))).id;
  });
  afterAll(() => app.close());

  it("refuses a new subpublisher with another seller's id: 400 on sellersJson.id, naming the seller within the tenant", async () => {
    const res = await postSub('demand', newSub('ids-second', 'dup-1'));
    expect(res.statusCode, res.body).toBe(400);
    const message =
      'is already the seller id of subpublisher Sub ids-first: sellers.json gives each seller id to one seller; choose another';
    expect(res.json()).toEqual({
      message: `sellersJson.id: ${message}`,
      field: 'sellersJson.id',
      errors: [{ field: 'sellersJson.id', message }],
    });
    // The profile entry of the tenant and the tenant's own account id (digits) are taken too.
    expect((await postSub('demand', newSub('ids-second', 'nw1-sub-1'))).json().errors[0].message).toContain(
      "the profile's Sellers JSON",
    );
    expect(
      (await postSub('demand', newSub('ids-second', String(t.users.demand.id)))).json().errors[0].message,
    ).toContain('must not be digits alone');
    second = (await createAs(app, cookies.demand, 'subs', newSub('ids-second', 'dup-2'))).id;
  });

  it('refuses an id that would split the ads.txt line publishers add (a comma), and writes nothing', async () => {
    const res = await postSub('demand', newSub('ids-comma', 'pub, 1'));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'sellersJson.id', message: expect.stringContaining('must not hold a comma, # or ;') },
    ]);
    // nothing was written: the same user name saves with a clean id
    expect((await postSub('demand', newSub('ids-comma', 'pub-1'))).statusCode).toBeLessThan(300);
  });

  it("refuses another tenant's id without naming its seller: the operator's sellers.json lists every tenant", async () => {
    const res = await postSub('acme', newSub('ids-acme', 'dup-1'));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'sellersJson.id',
        message:
          'is already the seller id of a seller of another demand account: sellers.json gives each seller id to one seller; choose another',
      },
    ]);
    expect(res.body).not.toContain('ids-first');
  });

  it('refuses changing a subpublisher to a taken id, and saves it when it keeps its own', async () => {
    const stored = await getSub(second);
    const taken = await putSub(second, { ...stored, sellersJson: seller('dup-1') });
    expect(taken.statusCode, taken.body).toBe(400);
    expect(taken.json().field).toBe('sellersJson.id');
    const kept = await putSub(second, { ...stored, name: 'Sub ids-second renamed' });
    expect(kept.statusCode, kept.body).toBe(200);
  });

  it("refuses a profile entry with a taken id, on that entry's field, and keeps the stored list", async () => {
    const profile = (await as(app, cookies.demand, { method: 'GET', url: '/api/demand/info' })).json<Profile>();
    const entries = [
      ...(profile.sellersJson as object[]),
      { id: 'dup-2', domain: 'northwind-news.test', name: 'Northwind News' },
    ];
    const res = await as(app, cookies.demand, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { ...profile, sellersJson: entries },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      field: 'sellersJson.1.id',
      errors: [{ field: 'sellersJson.1.id', message: expect.stringContaining('subpublisher Sub ids-second renamed') }],
    });
    const after = (await as(app, cookies.demand, { method: 'GET', url: '/api/demand/info' })).json<Profile>();
    expect(after.sellersJson).toEqual(profile.sellersJson);
  });

  it("with a duplicate saved before the rule: saves still pass, sellers.json lists the first, the other's ads.txt line warns", async () => {
    // A row as an older version saved it: the second subpublisher under the first one's id.
    await t.store.db
      .updateTable('users')
      .set({ sellers_json: JSON.stringify(seller('dup-1', 'Sub ids-second LLC')) })
      .where('id', '=', second)
      .execute();
    await bumpConfigVersion(t.store.db);
    await vi.waitFor(
      async () =>
        expect((await sellersOf('ads.northwind.test')).filter((s) => s.seller_id === 'dup-1')).toEqual([
          expect.objectContaining({ name: 'Sub ids-first LLC' }),
        ]),
      {
        timeout: 5000,
        interval: 100,
      },
    );

    // Each rebuild logs the conflict.
    const log = { warn: vi.fn(), error: vi.fn() };
    await new SellersJsonCache(t.store.db, () => undefined, log).get();
    expect(log.warn).toHaveBeenCalledWith(
      {
        sellerId: 'dup-1',
        file: `tenant ${t.users.demand.id}`,
        listed: `subpublisher ${first}`,
        leftOut: `subpublisher ${second}`,
      },
      expect.stringContaining('two sellers have one seller id'),
    );

    // Editing the account without touching its id is not refused over the old duplicate.
    const stored = await getSub(second);
    expect((await putSub(second, { ...stored, companyName: 'Second Co' })).statusCode).toBe(200);

    // The channel page says buyers would credit the second one's traffic to the first.
    const mine = await createAs(app, cookies.demand, 'channels', {
      name: 'ids channel',
      subpublisherId: second,
      domain: 'ids-second.test',
    });
    const line = (await as(app, cookies.demand, { method: 'GET', url: adsTxtLinePath(mine.id) })).json();
    expect(line).toMatchObject({
      line: 'ads.northwind.test, dup-1, DIRECT',
      warnings: [
        expect.stringContaining('lists seller id dup-1 for another seller, Sub ids-first LLC (ids-first.test)'),
      ],
    });
    const theirs = await createAs(app, cookies.demand, 'channels', {
      name: 'ids channel first',
      subpublisherId: first,
      domain: 'ids-first.test',
    });
    expect((await as(app, cookies.demand, { method: 'GET', url: adsTxtLinePath(theirs.id) })).json().warnings).toEqual(
      [],
    );
  });

  it('gives an id to one of two saves that ask for it at the same time: the other gets the 400', async () => {
    // two new subpublishers, and a tenant's profile entry, all asking for the same new id at once
    const profile = (await as(app, cookies.demand, { method: 'GET', url: '/api/demand/info' })).json<Profile>();
    const answers = await Promise.all([
      postSub('demand', newSub('ids-race-a', 'race-1')),
      postSub('acme', newSub('ids-race-b', 'race-1')),
      as(app, cookies.demand, {
        method: 'PUT',
        url: '/api/demand/info',
        payload: {
          ...profile,
          sellersJson: [
            ...(profile.sellersJson as object[]),
            { id: 'race-1', domain: 'race-entry.test', name: 'Race entry' },
          ],
        },
      }),
    ]);
    const statuses = answers.map((r) => r.statusCode);
    expect(
      statuses.filter((s) => s < 300),
      answers.map((r) => r.body).join('\n'),
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(2);
  });
});
