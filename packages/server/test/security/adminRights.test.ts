import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from '../helpers.js';

/**
 * Admin rights: a non-super admin may neither disable a demand account nor reset its password, and
 * a PUT without price fields leaves the prices as they were (never 0).
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let ops: string;
  let superAdmin: string;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    ops = await login(app, 'ops');
    superAdmin = await login(app, 'admin');
  });
  afterAll(async () => app.close());

  const url = () => `/api/demands/${t.users.acme.id}`;
  const current = async () =>
    (await as(app, superAdmin, { method: 'GET', url: url() })).json<Record<string, unknown>>();
  const put = (cookie: string, body: Record<string, unknown>) =>
    as(app, cookie, { method: 'PUT', url: url(), payload: body });
  const editable = (row: Record<string, unknown>): Record<string, unknown> => {
    const { id: _id, tenantId: _t, uid: _u, archived: _a, createdAt: _c, updatedAt: _up, ...rest } = row;
    return { ...rest, password: '' };
  };

  it('refuses a non-super admin disabling a demand account, setting its password or its sign-in names, naming them', async () => {
    const before = await current();
    for (const change of [
      { status: 0 },
      { password: 'a-takeover-passphrase' },
      { email: 'ops-owned@example.test' },
      { username: 'acme-renamed' },
      { priceImp: 1 },
    ]) {
      const response = await put(ops, { ...editable(before), ...change });
      expect(response.statusCode, JSON.stringify(change)).toBe(403);
      expect(response.json().message).toContain(Object.keys(change)[0]);
    }
    expect(await current()).toEqual(before);
    // Archiving is the super admin's too.
    expect((await as(app, ops, { method: 'POST', url: `${url()}/archive`, payload: {} })).statusCode).toBe(403);
  });

  it("lets a non-super admin edit the account's name and details, and the super admin everything", async () => {
    const before = await current();
    const renamed = await put(ops, { ...editable(before), name: 'Acme Video (ops)', timezone: 2, showDsp: true });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Acme Video (ops)', timezone: 2, showDsp: true, status: 1 });
    const disabled = await put(superAdmin, { ...editable(await current()), status: 0, priceImp: 75_000 });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(disabled.json()).toMatchObject({ status: 0, priceImp: 75_000 });
    await put(superAdmin, { ...editable(before) });
  });

  it('refuses a PUT that leaves out a price instead of setting it to 0', async () => {
    await put(superAdmin, { ...editable(await current()), priceReq: 12_000, priceImp: 34_000 });
    const before = await current();
    const { priceReq: _r, priceImp: _i, ...withoutPrices } = editable(before);
    for (const cookie of [superAdmin, ops]) {
      const response = await put(cookie, { ...withoutPrices, name: 'No prices' });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors.map((e: { field: string }) => e.field)).toEqual(['priceReq', 'priceImp']);
    }
    expect(await current()).toMatchObject({ priceReq: 12_000, priceImp: 34_000, name: before.name });
  });
});
