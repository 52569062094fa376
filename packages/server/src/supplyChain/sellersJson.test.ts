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
const schemaErrors = (value: unknown) =>
  validateSellersJson(value) ? [] : (validateSellersJson.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

describe('the sellers.json schema', () => {
  it("accepts the spec's own sample file", () => {
    expect(schemaErrors(readJson('./fixtures/sellers.json.spec-sample.json'))).toEqual([]);
  });

  it('refuses what the spec rules out', () => {
    const ok = { version: '1.0', sellers: [{ seller_id: '1', seller_type: 'PUBLISHER', name: 'P', domain: 'p.com' }] };
    expect(schemaErrors(ok)).toEqual([]);
    expect(schemaErrors({ ...ok, version: '2.0' })).not.toEqual([]);
    expect(schemaErrors({ version: '1.0' })).not.toEqual([]);
    expect(
      schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'RESELLER', name: 'P' }] }),
    ).not.toEqual([]);
    // A name is required unless the seller is confidential.
    expect(schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'PUBLISHER' }] })).not.toEqual([]);
    expect(
      schemaErrors({ version: '1.0', sellers: [{ seller_id: '1', seller_type: 'publisher', is_confidential: 1 }] }),
    ).toEqual([]);
    expect(
      schemaErrors({
        version: '1.0',
        sellers: [{ seller_id: '1', seller_type: 'PUBLISHER', name: 'P', domain: 'https://p.com/' }],
      }),
    ).not.toEqual([]);
    expect(schemaErrors({ ...ok, contact_email: 'not an address' })).not.toEqual([]);
  });
});

/** A user as the store reads it, with only what sellers.json looks at. */
function account(fields: Partial<User> & Pick<User, 'id' | 'type'>): User {
  return {
    username: `u${fields.id}`,
    email: null,
    name: `Account ${fields.id}`,
    uid: null,
    token: null,
    domain: null,
    tenantId: fields.type === 'demand' ? fields.id : null,
    managerId: null,
    status: 1,
    archived: false,
    timezone: 0,
    showDsp: false,
    showPostbidPix: false,
    showPostbidWh: false,
    showCheckIVT: false,
    showSystemCost: false,
    tagParams: null,
    profile: {
      companyName: '',
      companyAddress: '',
      contactNumber: '',
      contactExpired: null,
      postbidPercent: 0,
      setPostbidAll: null,
      setCheckIVTAll: null,
      blockIVT: null,
      delOldCreatives: null,
    },
    contacts: [],
    sellersJson: null,
    priceReq: 0,
    priceImp: 0,
    pricePostbid: 0,
    priceDsp: 0,
    createdAt: '',
    updatedAt: '',
    ...fields,
  } as User;
}

describe('the sellers of a tenant', () => {
  const tenant = account({
    id: 1,
    type: 'demand',
    uid: 'nw1',
    domain: 'ads.northwind.test',
    name: 'Northwind',
    sellersJson: [{ id: 'own-1', domain: 'www.Harbor.test', name: 'Harbor O&O' }, { id: '' } as never],
  });
  const subs = [
    account({
      id: 2,
      type: 'sub',
      tenantId: 1,
      domain: 'pub.test',
      sellersJson: { type: 'PUBLISHER', name: 'Pub', id: 'p-1', status: 1, confidential: 0 },
    }),
    account({
      id: 3,
      type: 'sub',
      tenantId: 1,
      domain: 'secret.test',
      sellersJson: { type: 'INTERMEDIARY', name: 'Hidden', id: 'p-2', status: 1, confidential: 1 },
    }),
    account({
      id: 4,
      type: 'sub',
      tenantId: 1,
      sellersJson: { type: 'BOTH', name: 'Paused', id: 'p-3', status: 0, confidential: 0 },
    }),
    account({ id: 5, type: 'sub', tenantId: 1, sellersJson: { type: 'WHOLESALER', id: 'p-4', status: 1 } as never }),
    account({
      id: 6,
      type: 'sub',
      tenantId: 1,
      sellersJson: { type: 'PUBLISHER', name: 'Twin', id: 'p-1', status: 1, confidential: 0 },
    }),
    account({
      id: 7,
      type: 'sub',
      tenantId: 1,
      sellersJson: { type: 'PUBLISHER', name: '', id: 'p-5', status: 1, confidential: 0 },
      profile: { companyName: 'Company Five' } as never,
    }),
  ];
  const other = account({ id: 10, type: 'demand', uid: 'ac1', domain: 'acme.test', name: 'Acme' });
  const directory = buildSellersDirectory([
    tenant,
    ...subs,
    other,
    account({ id: 11, type: 'demand', uid: 'gone', archived: true }),
  ]);

  it('lists active subpublisher entries, the profile entries and the tenant itself (by account id), each seller id once', () => {
    expect(directory.byTenant.get(1)?.sellers).toEqual([
      { seller_id: 'p-1', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Pub', domain: 'pub.test' },
      { seller_id: 'p-2', seller_type: 'INTERMEDIARY', is_confidential: 1 },
      { seller_id: 'p-5', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Company Five' },
      { seller_id: 'own-1', seller_type: 'PUBLISHER', is_confidential: 0, name: 'Harbor O&O', domain: 'harbor.test' },
      // INTERMEDIARY: the root domain of its sellers.json (served on ads.northwind.test).
      { seller_id: '1', seller_type: 'INTERMEDIARY', is_confidential: 0, name: 'Northwind', domain: 'northwind.test' },
    ]);
    for (const file of [...directory.byTenant.values(), directory.operator]) expect(schemaErrors(file)).toEqual([]);
  });

  it('reports a seller id two sellers share (rows saved before ids were checked): the first keeps it, the other is left out', () => {
    // Twin (subpublisher 6) was saved with Pub's id p-1: buyers resolve p-1 to Pub, so Twin cannot be listed under it.
    expect(directory.conflicts).toEqual([
      { file: 1, sellerId: 'p-1', kept: 'subpublisher 2', dropped: 'subpublisher 6' },
    ]);
    expect(directory.byTenant.get(1)?.sellers.filter((s) => s.seller_id === 'p-1')).toEqual([
      expect.objectContaining({ name: 'Pub' }),
    ]);
    expect(directory.sources.get(1)?.get('p-1')).toBe('subpublisher 2');
    expect(directory.sources.get(null)?.get('1')).toBe('tenant 1');
  });

  it('lists a seller once without a conflict when two rows name the same company, domain and type', () => {
    const t = account({
      id: 20,
      type: 'demand',
      domain: 'ads.t.test',
      name: 'T',
      sellersJson: [{ id: 'h-1', domain: 'harbor.test', name: 'Harbor' }],
    });
    const sub = account({
      id: 21,
      type: 'sub',
      tenantId: 20,
      domain: 'harbor.test',
      sellersJson: { type: 'PUBLISHER', name: 'Harbor', id: 'h-1', status: 1, confidential: 0 },
    });
    const same = buildSellersDirectory([t, sub]);
    expect(same.byTenant.get(20)?.sellers.map((s) => s.seller_id)).toEqual(['h-1', '20']);
    expect(same.conflicts).toEqual([]);
    // Two confidential sellers name nobody: they are not taken for one.
    const hidden = (id: number) =>
      account({
        id,
        type: 'sub',
        tenantId: 20,
        sellersJson: { type: 'PUBLISHER', name: 'X', id: 'c-1', status: 1, confidential: 1 },
      });
    expect(buildSellersDirectory([t, hidden(22), hidden(23)]).conflicts).toEqual([
      { file: 20, sellerId: 'c-1', kept: 'subpublisher 22', dropped: 'subpublisher 23' },
    ]);
  });

  it("reports a seller id two tenants share in the operator's file", () => {
    const a = account({
      id: 30,
      type: 'demand',
      name: 'A',
      sellersJson: [{ id: 'x-1', domain: 'a-site.test', name: 'A Site' }],
    });
    const b = account({
      id: 31,
      type: 'demand',
      name: 'B',
      sellersJson: [{ id: 'x-1', domain: 'b-site.test', name: 'B Site' }],
    });
    const both = buildSellersDirectory([a, b]);
    expect(both.conflicts).toEqual([
      { file: null, sellerId: 'x-1', kept: 'profile entry 1 of tenant 30', dropped: 'profile entry 1 of tenant 31' },
    ]);
    expect(both.operator.sellers.map((s) => s.seller_id)).toEqual(['x-1', '30', '31']);
  });

  it("picks the file by the request's host; the operator's host and unknown hosts get everyone's", () => {
    expect(tenantForHost(directory, 'ads.northwind.test', 'adplane.example')).toBe(1);
    expect(tenantForHost(directory, 'EU.Ads.Northwind.test:8443', 'adplane.example')).toBe(1);
    expect(tenantForHost(directory, 'www.acme.test', 'adplane.example')).toBe(10);
    expect(tenantForHost(directory, 'northwind.test', 'adplane.example')).toBeNull();
    expect(tenantForHost(directory, 'adplane.example', 'adplane.example')).toBeNull();
    expect(sellersFileFor(directory, 'other.example', 'adplane.example').sellers.map((s) => s.seller_id)).toEqual([
      'p-1',
      'p-2',
      'p-5',
      'own-1',
      '1',
      '10',
    ]);
  });

  it('writes domains as root domains: the public suffix plus one label (Public Suffix List)', () => {
    expect(rootDomainOf('https://WWW.Example.com:443/path')).toBe('example.com');
    expect(rootDomainOf('news.pub.co.uk')).toBe('pub.co.uk');
    expect(rootDomainOf('video.news.example.com.')).toBe('example.com');
    expect(rootDomainOf('www.city.kawasaki.jp')).toBe('city.kawasaki.jp');
    // The list's private section too: a site on a hosting platform is its own entity.
    expect(rootDomainOf('shop.seller.github.io')).toBe('seller.github.io');
    // A name under no known suffix keeps its last two labels.
    expect(rootDomainOf('ads.northwind.test')).toBe('northwind.test');
    for (const none of ['co.uk', 'localhost', '192.168.0.1', 'not a host', '', null])
      expect(rootDomainOf(none), String(none)).toBe('');
  });

  it("keeps matching a tenant's file by its host, not by the root domain", () => {
    // Two tenants under one root domain each keep their file.
    const a = account({ id: 40, type: 'demand', domain: 'ads.shared.test', name: 'A' });
    const b = account({ id: 41, type: 'demand', domain: 'https://video.shared.test/', name: 'B' });
    const two = buildSellersDirectory([a, b]);
    expect(tenantForHost(two, 'ads.shared.test', 'adplane.example')).toBe(40);
    expect(tenantForHost(two, 'video.shared.test', 'adplane.example')).toBe(41);
    expect(tenantForHost(two, 'shared.test', 'adplane.example')).toBeNull();
    expect(two.byTenant.get(41)?.sellers[0]).toMatchObject({ seller_id: '41', domain: 'shared.test' });
  });
});

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store, { publicHost: 'https://adplane.example' });
  });
  afterAll(() => app.close());

  const get = (host: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: '/sellers.json', headers: { host, ...headers } });

  it("answers a tenant's host with its sellers, valid per the schema, without a session", async () => {
    const res = await get('ads.northwind.test');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = res.json();
    expect(schemaErrors(body)).toEqual([]);
    expect(body).toMatchObject({
      version: '1.0',
      contact_email: 'nora@northwind.test',
      contact_address: '12 Harbor St, Boston, MA',
    });
    expect(body.sellers).toContainEqual({
      seller_id: 'nw1-sub-1',
      seller_type: 'PUBLISHER',
      is_confidential: 0,
      name: 'Harbor Video',
      domain: 'harborvideo.test',
    });
    expect(body.sellers).toContainEqual(
      expect.objectContaining({ seller_id: String(t.users.demand.id), seller_type: 'INTERMEDIARY' }),
    );
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
    // several tags, a weak one, or *: as RFC 9110 compares them
    for (const header of [`"old", ${String(res.headers.etag)}`, `W/${String(res.headers.etag)}`, '*'])
      expect((await get('adplane.example', { 'if-none-match': header })).statusCode, header).toBe(304);
    expect((await get('adplane.example', { 'if-none-match': '"old", "older"' })).statusCode).toBe(200);
  });

  it('follows changes made through the console, and skips a stored row that does not parse', async () => {
    const demand = await login(app, 'demand');
    const created = await as(app, demand, {
      method: 'POST',
      url: '/api/demand/subs',
      payload: {
        name: 'Lighthouse Media',
        username: 'lighthouse',
        password: 'Lighthouse-pass-2026',
        domain: 'lighthouse.test',
        sellersJson: { type: 'INTERMEDIARY', name: 'Lighthouse Media LLC', id: 'lh-77', status: 1, confidential: 0 },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    // The file follows the edge's snapshot, which sees the new config version within a poll (250 ms).
    await vi.waitFor(
      async () =>
        expect((await get('ads.northwind.test')).json().sellers).toContainEqual({
          seller_id: 'lh-77',
          seller_type: 'INTERMEDIARY',
          is_confidential: 0,
          name: 'Lighthouse Media LLC',
          domain: 'lighthouse.test',
        }),
      { timeout: 5000, interval: 100 },
    );

    await t.store.db
      .updateTable('users')
      .set({ sellers_json: '{not json' })
      .where('username', '=', 'lighthouse')
      .execute();
    await bumpConfigVersion(t.store.db);
    await vi.waitFor(
      async () =>
        expect(
          (await get('ads.northwind.test')).json().sellers.map((s: { seller_id: string }) => s.seller_id),
        ).not.toContain('lh-77'),
      { timeout: 5000, interval: 100 },
    );
    const res = await get('ads.northwind.test');
    expect(res.statusCode).toBe(200);
    expect(res.json().sellers.map((s: { seller_id: string }) => s.seller_id)).toContain('nw1-sub-1');
  });
});
