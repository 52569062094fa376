import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type User } from '../store/users.js';
import { findLine, parseAdsTxt } from './adsTxt.js';
import { isPublicAddress } from '../http/outboundAddress.js';
import { adsTxtHost } from './adsTxtFetch.js';
import { channelAdsTxt } from './adsTxtLine.js';
import { buildSellersDirectory, sellersServed } from './sellers.js';

/** The examples of the ads.txt 1.1 specification, section 4 (copied into fixtures/adstxt/). */
const example = (name: string) =>
  parseAdsTxt(readFileSync(new URL(`./fixtures/adstxt/adstxt_${name}.txt`, import.meta.url), 'utf8'));

describe('parseAdsTxt on the examples of the specification', () => {
  it('reads a single direct system with its certification authority id (4.1)', () => {
    expect(example('4_1_single-system-direct_1')).toEqual({
      records: [
        {
          line: 1,
          text: 'greenadexchange.com, XF7342, DIRECT, 5jyxf8k54',
          domain: 'greenadexchange.com',
          accountId: 'XF7342',
          relationship: 'DIRECT',
          certificationAuthorityId: '5jyxf8k54',
          extension: null,
        },
      ],
      variables: [],
      errors: [],
    });
    expect(example('4_2_single-system-reseller_1').records[0]).toMatchObject({
      domain: 'redssp.com',
      accountId: '57013',
      relationship: 'RESELLER',
      certificationAuthorityId: null,
    });
  });

  it('skips comments and reads several systems and resellers (4.3)', () => {
    const file = example('4_3_multiple-systems-and-resellers_1');
    expect(file.errors).toEqual([]);
    expect(file.records.map((r) => [r.line, r.domain, r.accountId, r.relationship])).toEqual([
      [2, 'greenadexchange.com', '12345', 'DIRECT'],
      [3, 'silverssp.com', '9675', 'RESELLER'],
      [4, 'blueadexchange.com', 'XF436', 'DIRECT'],
      [5, 'orangeexchange.com', '45678', 'RESELLER'],
      [6, 'silverssp.com', 'ABE679', 'RESELLER'],
    ]);
  });

  it('reads variables: contact, subdomain, inventorypartnerdomain, ownerdomain, managerdomain (4.4 to 4.8)', () => {
    expect(example('4_4_contact-records_1').variables).toEqual([
      { line: 4, name: 'contact', value: 'adops@example.com' },
      { line: 5, name: 'contact', value: 'http://example.com/contact-us' },
    ]);
    expect(example('4_5_subdomain-referral_1').variables).toEqual([
      { line: 4, name: 'subdomain', value: 'divisionone.example.com' },
    ]);
    expect(example('4_6_inventorypartnerdomain-referral_1').variables).toEqual([
      { line: 3, name: 'inventorypartnerdomain', value: 'programmerA.com' },
    ]);
    expect(example('4_7_ownerdomain-usage_1').variables).toEqual([
      { line: 1, name: 'ownerdomain', value: 'mediacompany.com' },
    ]);
    const managed = example('4_8_managerdomain-usage_1');
    expect(managed.variables.map((v) => [v.name, v.value])).toEqual([
      ['ownerdomain', 'mediacompany.com'],
      ['managerdomain', 'yellowmediamanager.com, FR'],
      ['managerdomain', 'bluemediamanager.com, US'],
    ]);
    expect(managed.records).toHaveLength(1);
  });

  it('reads the placeholder of a file without authorized systems (4.9)', () => {
    expect(example('4_9_file-without-authorized-advertising-systems_1').records[0]).toMatchObject({
      domain: 'placeholder.example.com',
      accountId: 'placeholder',
    });
  });

  it('takes any line break, case, whitespace, tabs, a BOM, extensions, and reports lines it cannot read', () => {
    const file = parseAdsTxt(
      '\uFEFFAds.Example.COM ,\tpub-1 , direct ; ext=1\r\nbroken line\rno-domain_here!, 1, DIRECT\n  # only a comment\n\nx.com, , RESELLER',
    );
    expect(file.records).toEqual([
      {
        line: 1,
        text: 'Ads.Example.COM ,\tpub-1 , direct ; ext=1',
        domain: 'ads.example.com',
        accountId: 'pub-1',
        relationship: 'DIRECT',
        certificationAuthorityId: null,
        extension: 'ext=1',
      },
    ]);
    expect(file.errors.map((e) => e.line)).toEqual([2, 3, 6]);
  });
});

describe('findLine', () => {
  const file = parseAdsTxt(
    ['ads.northwind.test, nw1-sub-1, RESELLER', 'ADS.NORTHWIND.TEST, NW1, DIRECT', 'other.test, nw1, DIRECT'].join(
      '\n',
    ),
  );

  it('matches domain case-insensitively, the seller id exactly and the relationship case-insensitively', () => {
    expect(
      findLine(parseAdsTxt('Ads.Northwind.Test, nw1-sub-1, reseller'), {
        domain: 'ads.northwind.test',
        sellerId: 'nw1-sub-1',
        relationship: 'RESELLER',
      }).kind,
    ).toBe('found');
  });

  it('tells when only the relationship differs, or only the letter case of the seller id', () => {
    const differs = findLine(file, { domain: 'ads.northwind.test', sellerId: 'nw1-sub-1', relationship: 'DIRECT' });
    expect(differs).toMatchObject({ kind: 'relationship_differs', records: [{ line: 1 }] });
    const cased = findLine(file, { domain: 'ads.northwind.test', sellerId: 'nw1', relationship: 'DIRECT' });
    expect(cased).toMatchObject({ kind: 'missing', records: [{ line: 2, accountId: 'NW1' }] });
    expect(findLine(file, { domain: 'ads.northwind.test', sellerId: 'zz', relationship: 'DIRECT' })).toEqual({
      kind: 'missing',
      records: [],
    });
  });
});

describe('what the check may fetch', () => {
  it('takes host names only, from a domain or a URL', () => {
    expect(adsTxtHost('Example.com', false)).toBe('example.com');
    expect(adsTxtHost('https://www.example.com/some/page?x=1', false)).toBe('www.example.com');
    for (const bad of [
      '127.0.0.1',
      'http://10.0.0.1/',
      '[::1]',
      'localhost',
      'example.com:8080',
      'ftp://example.com',
      'http://user:pw@example.com',
      'exa mple.com',
      '',
    ]) {
      expect(() => adsTxtHost(bad, false), bad).toThrow();
    }
    expect(adsTxtHost('http://127.0.0.1:8123/', true)).toBe('127.0.0.1:8123');
    // what no setting lifts: the metadata address, link-local, as a literal (connected to without a lookup)
    for (const never of ['http://169.254.169.254/', '[fe80::1]', 'http://[::ffff:169.254.169.254]:80/'])
      expect(() => adsTxtHost(never, true), never).toThrow(/not an address this server calls/);
  });

  it('refuses every non-public address a name could resolve to', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      'nonsense',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(a), a).toBe(true);
  });
});

/** A user as the store reads it, with only what the line looks at. */
const account = (fields: Partial<User> & Pick<User, 'id' | 'type'>): User =>
  ({
    name: `Account ${fields.id}`,
    uid: null,
    domain: null,
    tenantId: fields.type === 'demand' ? fields.id : 1,
    managerId: null,
    archived: false,
    profile: { companyName: '' },
    contacts: [],
    sellersJson: null,
    ...fields,
  }) as User;

describe('the ads.txt line of a channel', () => {
  const tenant = account({
    id: 1,
    type: 'demand',
    uid: 'nw1',
    domain: 'ads.northwind.test',
    name: 'Northwind',
    sellersJson: [{ id: 'nw-own', domain: 'northwind-news.test', name: 'Northwind News' }],
  });
  const publisher = account({
    id: 2,
    type: 'sub',
    domain: 'harbor.test',
    sellersJson: { type: 'PUBLISHER', name: 'Harbor', id: 'h-1', status: 1, confidential: 0 },
  });
  const reseller = account({
    id: 3,
    type: 'sub',
    sellersJson: { type: 'INTERMEDIARY', name: 'Resell Co', id: 'r-1', status: 1, confidential: 0 },
  });
  const both = account({
    id: 4,
    type: 'sub',
    domain: 'both.test',
    sellersJson: { type: 'BOTH', name: 'Both', id: 'b-1', status: 1, confidential: 0 },
  });
  const inactive = account({
    id: 5,
    type: 'sub',
    sellersJson: { type: 'PUBLISHER', name: 'Later', id: 'l-1', status: 0, confidential: 0 },
  });
  const noId = account({
    id: 6,
    type: 'sub',
    name: 'No Id Yet',
    sellersJson: { type: 'PUBLISHER', name: '', id: '', status: 1, confidential: 0 },
  });
  const sellersFile =
    buildSellersDirectory([tenant, publisher, reseller, both, inactive, noId]).byTenant.get(1) ?? null;
  const line = (sub: User | null, domain = '', publicHost = 'https://adplane.example') =>
    channelAdsTxt({ channel: { domain }, tenant, sub, publicHost, sellersFile });

  it('names the subpublisher id, DIRECT for a publisher and RESELLER for an intermediary', () => {
    expect(line(publisher, 'harbor.test')).toEqual({
      line: 'ads.northwind.test, h-1, DIRECT',
      domain: 'ads.northwind.test',
      sellerId: 'h-1',
      relationship: 'DIRECT',
      seller: { source: 'subpublisher', name: 'Harbor' },
      sellersJsonUrl: 'https://ads.northwind.test/sellers.json',
      warnings: [],
    });
    expect(line(reseller, 'somesite.test').line).toBe('ads.northwind.test, r-1, RESELLER');
    // BOTH: direct on its own site, reseller elsewhere.
    expect(line(both, 'www.both.test').line).toBe('ads.northwind.test, b-1, DIRECT');
    expect(line(both, 'elsewhere.test').line).toBe('ads.northwind.test, b-1, RESELLER');
  });

  it('uses the tenant profile entry for its own site, else the tenant id as reseller', () => {
    expect(line(null, 'video.northwind-news.test')).toMatchObject({
      line: 'ads.northwind.test, nw-own, DIRECT',
      seller: { source: 'profile', name: 'Northwind News' },
    });
    expect(line(null, 'publisher.test')).toMatchObject({
      line: 'ads.northwind.test, 1, RESELLER',
      seller: { source: 'tenant', name: 'Northwind' },
      warnings: [],
    });
  });

  it('says what keeps the line from being verifiable', () => {
    expect(line(inactive).warnings).toEqual([
      'The sellers.json entry of Account 5 is not active: sellers.json lists it only once it is marked Active.',
    ]);
    // Without an id of its own, a subpublisher sells under its account id.
    expect(line(noId)).toMatchObject({ line: 'ads.northwind.test, 6, DIRECT', sellerId: '6', warnings: [] });
    expect(line(account({ id: 7, type: 'sub', name: 'Broken', sellersJson: { type: 'NOPE' } as never }))).toMatchObject(
      {
        line: null,
        warnings: ['The subpublisher Broken has no valid sellers.json entry: fill in its Sellers JSON tab.'],
      },
    );
  });

  it('warns when the sellers.json lists the seller id for another seller (two rows saved with one id before ids were checked)', () => {
    const twin = account({
      id: 8,
      type: 'sub',
      name: 'Twin',
      sellersJson: { type: 'PUBLISHER', name: 'Twin', id: 'h-1', status: 1, confidential: 0 },
    });
    const hijacker = account({
      id: 9,
      type: 'sub',
      sellersJson: { type: 'PUBLISHER', name: 'Northwind News', id: 'nw-own', status: 1, confidential: 1 },
    });
    const directory = buildSellersDirectory([tenant, hijacker, publisher, twin]);
    const served = sellersServed(directory, 'ads.northwind.test', 'adplane.example');
    const lineOf = (sub: User | null, domain = '') =>
      channelAdsTxt({
        channel: { domain },
        tenant,
        sub,
        publicHost: 'https://adplane.example',
        sellersFile: served.file,
        sellerSources: served.sources,
      });
    // The first row keeps the id: its line is fine, the other's says buyers would credit someone else.
    expect(lineOf(publisher).warnings).toEqual([]);
    expect(lineOf(twin)).toMatchObject({
      line: 'ads.northwind.test, h-1, DIRECT',
      warnings: [
        "https://ads.northwind.test/sellers.json lists seller id h-1 for another seller, Harbor (harbor.test): buyers would credit this channel's traffic to it. The two were saved with one id before ids were checked: give one of them an id of its own.",
      ],
    });
    // The tenant's own site is listed under the id a confidential subpublisher took first.
    expect(lineOf(null, 'northwind-news.test').warnings).toEqual([
      expect.stringContaining('lists seller id nw-own for another seller, a confidential seller'),
    ]);
  });

  it("uses the operator's host for a tenant without a domain", () => {
    const bare = account({ id: 9, type: 'demand', uid: 'bare' });
    expect(
      channelAdsTxt({
        channel: {},
        tenant: bare,
        sub: null,
        publicHost: 'https://ads.adplane.example:8443/',
        sellersFile: null,
      }),
    ).toMatchObject({
      line: 'ads.adplane.example, 9, RESELLER',
      sellersJsonUrl: 'https://ads.adplane.example:8443/sellers.json',
    });
  });
});
