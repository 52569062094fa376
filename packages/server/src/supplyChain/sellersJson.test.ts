import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { as, buildTestApp, forEachStore, login } from '../../test/helpers.js';
import { bumpConfigVersion } from '../store/configVersion.js';
import { type User } from '../store/users.js';
import { buildSellersDirectory, rootDomainOf, sellersFileFor, tenantForHost } from './sellers.js';

const readJson = (file: string): unknown => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8'));

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
addFormats(ajv);
const validateSellersJson = ajv.compile(readJson('./sellersJson.schema.json') as object);
const schemaErrors = (value: unknown) => (validateSellersJson(value) ? [] : (validateSellersJson.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

describe('the sellers.json schema', () => {
  it("accepts the spec's own sample file", () => {
    expect(schemaErrors(readJson('./fixtures/sellers.json.spec-sample.json'))).toEqual([]);
  });

  it('refuses what the spec rules out', () => {
    const ok = { version: '1.0', sellers: [{ seller_id: '1', seller_type: 'PUBLISHER', name: 'P', domain: 'p.com' }] };
    expect(schemaErrors(ok)).toEqual([]);
    expect(schemaErrors({ ...ok, version: '2.0' })).not.toEqual([]);
    expect(schemaErrors({ version: '1.0' })).not.toEqual([]);
    expect(schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'RESELLER', name: 'P' }] })).not.toEqual([]);
    // A name is required unless the seller is confidential.
    expect(schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'PUBLISHER' }] })).not.toEqual([]);
    expect(schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'publisher', is_confidential: 1 }] })).toEqual([]);
    expect(schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'PUBLISHER', name: 'P', domain: 'https://p.com/' }] })).not.toEqual([]);
    expect(schemaErrors({ ...ok, contact_email: 'not an address' })).not.toEqual([]);
  });
});

/** A user as the store reads it, with only what sellers.json looks at. */
function account(fields: Partial<User> & Pick<User, 'id' | 'type'>): User {
  return {
    username: `u${fields.id}`, email: null, name: `Account ${fields.id}`, uid: null, token: null, domain: null,
    tenantId: fields.type === 'demand' ? fields.id : null, managerId: null, status: 1, archived: false, timezone: 0,
    showDsp: false, showPostbidPix: false, showPostbidWh: false, showCheckIVT: false, showSystemCost: false, tagParams: null,
    profile: { companyName: '', companyAddress: '', contactNumber: '', contactExpired: null, postbidPercent: 0, setPostbidAll: null, setCheckIVTAll: null, blockIVT: null, delOldCreatives: null },
    contacts: [], sellersJson: null, priceReq: 0, priceImp: 0, pricePostbid: 0, priceDsp: 0, createdAt: '', updatedAt: '',
    ...fields,
  } as User;
}

describe('the sellers of a tenant', () => {
  const tenant = account({ id: 1, type: 'demand', uid: 'nw1', domain: 'ads.northwind.test', name: 'Northwind', sellersJson: [{ id: 'own-1', domain: 'www.Harbor.test', name: 'Harbor O&O' }, { id: '' } as never] });
  const subs = [
    account({ id: 2, type: 'sub', tenantId: 1, domain: 'pub.test', sellersJson: { type: 'PUBLISHER', name: 'Pub', id: 'p-1', status: 1, confidential: 0 } }),
    account({ id: 3, type: 'sub', tenantId: 1, domain: 'secret.test', sellersJson: { type: 'INTERMEDIARY', name: 'Hidden', id: 'p-2', status: 1, confidential: 1 } }),
    account({ id: 4, type: 'sub', tenantId: 1, sellersJson: { type: 'BOTH', name: 'Paused', id: 'p-3', status: 0, confidential: 0 } }),
    account({ id: 5, type: 'sub', tenantId: 1, sellersJson: { type: 'WHOLESALER', id: 'p-4', status: 1 } as never }),
    account({ id: 6, type: 'sub', tenantId: 1, sellersJson: { type: 'PUBLISHER', name: 'Twin', id: 'p-1', status: 1, confidential: 0 } }),
    account({ id: 7, type: 'sub', tenantId: 1, sellersJson: { type: 'PUBLISHER', name: '', id: 'p-5', status: 1, confidential: 0 }, profile: { companyName: 'Company Five' } as never }),
  ];
  const other = account({ id: 10, type: 'demand', uid: 'ac1', domain: 'acme.test', name: 'Acme' });
  const directory = buildSellersDirectory([tenant, ...subs, other, account({ id: 11, type: 'demand', uid: 'gone', archived: true })]);

  it('lists active subpublisher entries, the profile entries and the tenant itself (by account id), each seller id once', () => {
    expect(directory.byTenant.get(1)?.sellers).toEqual([
      { seller_id: 'p-1', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Pub', domain: 'pub.test' },
      { seller_id: 'p-2', seller_type: 'INTERMEDIARY', is_confidential: 1 },
      { seller_id: 'p-5', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Company Five' },
      { seller_id: 'own-1', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Harbor O&O', domain: 'harbor.test' },
      { seller_id: '1', seller_type: 'INTERMEDIARY', is_confidential: 0, name: 'Northwind', domain: 'ads.northwind.test' },
    ]);
    for (const file of [...directory.byTenant.values(), directory.operator]) expect(schemaErrors(file)).toEqual([]);
  });

  it("picks the file by the request's host; the operator's host and unknown hosts get everyone's", () => {
    expect(tenantForHost(directory, 'ads.northwind.test', 'adplane.example')).toBe(1);
    expect(tenantForHost(directory, 'EU.Ads.Northwind.test:8443', 'adplane.example')).toBe(1);
    expect(tenantForHost(directory, 'www.acme.test', 'adplane.example')).toBe(10);
    expect(tenantForHost(directory, 'northwind.test', 'adplane.example')).toBeNull();
    expect(tenantForHost(directory, 'adplane.example', 'adplane.example')).toBeNull();
    expect(sellersFileFor(directory, 'other.example', 'adplane.example').sellers.map((s) => s.seller_id)).toEqual(['p-1', 'p-2', 'p-5', 'own-1', '1', '10']);
  });

  it('writes domains as root domains', () => {
    expect(rootDomainOf('https://WWW.Example.com:443/path')).toBe('example.com');
    expect(rootDomainOf('localhost')).toBe('');
    expect(rootDomainOf(null)).toBe('');
  });
});

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store, { publicHost: 'https://adplane.example' });
  });
  afterAll(() => app.close());

  const get = (host: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/sellers.json', headers: { host, ...headers } });

  it("answers a tenant's host with its sellers, valid per the schema, without a session", async () => {
    const res = await get('ads.northwind.test');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = res.json();
    expect(schemaErrors(body)).toEqual([]);
    expect(body).toMatchObject({ version: '1.0', contact_email: 'nora@northwind.test', contact_address: '12 Harbor St, Boston, MA' });
    expect(body.sellers).toContainEqual({ seller_id: 'nw1-sub-1', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Harbor Video', domain: 'harborvideo.test' });
    expect(body.sellers).toContainEqual(expect.objectContaining({ seller_id: String(t.users.demand.id), seller_type: 'INTERMEDIARY' }));
    expect(body.sellers.map((s: { seller_id: string }) => s.seller_id)).not.toContain(String(t.users.acme.id));
  });

  it("answers the operator's host with every tenant's sellers, and a matching ETag with 304", async () => {
    const res = await get('adplane.example');
    expect(schemaErrors(res.json())).toEqual([]);
    const ids = res.json().sellers.map((s: { seller_id: string }) => s.seller_id);
    expect(ids).toEqual(expect.arrayContaining(['nw1-sub-1', String(t.users.demand.id), String(t.users.acme.id)]));
    expect(res.json().contact_email).toBeUndefined();
    const again = await get('adplane.example', { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('follows changes made through the console, and skips a stored row that does not parse', async () => {
    const demand = await login(app, 'demand');
    const created = await as(app, demand, {
      method: 'POST',
      url: '/api/demand/subs',
      payload: { name: 'Lighthouse Media', username: 'lighthouse', password: 'Lighthouse-pass-2026', domain: 'lighthouse.test', sellersJson: { type: 'INTERMEDIARY', name: 'Lighthouse Media LLC', id: 'lh-77', status: 1, confidential: 0 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    // The file follows the edge's snapshot, which sees the new config version within a poll (250 ms).
    await vi.waitFor(async () =>
      expect((await get('ads.northwind.test')).json().sellers).toContainEqual({ seller_id: 'lh-77', seller_type: 'INTERMEDIARY', is_confidential: 0, name: 'Lighthouse Media LLC', domain: 'lighthouse.test' }),
    { timeout: 5000, interval: 100 });

    await t.store.db.updateTable('users').set({ sellers_json: '{not json' }).where('username', '=', 'lighthouse').execute();
    await bumpConfigVersion(t.store.db);
    await vi.waitFor(async () => expect((await get('ads.northwind.test')).json().sellers.map((s: { seller_id: string }) => s.seller_id)).not.toContain('lh-77'), { timeout: 5000, interval: 100 });
    const res = await get('ads.northwind.test');
    expect(res.statusCode).toBe(200);
    expect(res.json().sellers.map((s: { seller_id: string }) => s.seller_id)).toContain('nw1-sub-1');
  });
});
