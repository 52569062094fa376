import { describe, expect, it } from 'vitest';
import { type User } from '../store/users.js';
import { profileSellerIdErrors, subSellerIdErrors } from './sellerIds.js';

/** A user as the store reads it, with only what the check looks at. */
const account = (fields: Partial<User> & Pick<User, 'id' | 'type'>): User =>
  ({
    name: `Account ${fields.id}`,
    domain: null,
    tenantId: fields.type === 'demand' ? fields.id : 1,
    managerId: null,
    archived: false,
    sellersJson: null,
    ...fields,
  }) as User;

const entry = (id: string, status: 0 | 1 = 1) => ({
  type: 'PUBLISHER' as const,
  name: `Seller ${id}`,
  id,
  status,
  confidential: 0 as const,
});

describe('seller ids are unique', () => {
  const tenant = account({
    id: 1,
    type: 'demand',
    name: 'Northwind',
    sellersJson: [{ id: 'own-1', domain: 'harbor.test', name: 'Harbor O&O' }],
  });
  const pub = account({ id: 2, type: 'sub', name: 'Pub', sellersJson: entry('p-1') });
  const paused = account({ id: 3, type: 'sub', name: 'Paused', sellersJson: entry('p-2', 0) });
  const gone = account({ id: 4, type: 'sub', name: 'Gone', archived: true, sellersJson: entry('p-3') });
  const other = account({
    id: 10,
    type: 'demand',
    name: 'Acme',
    sellersJson: [{ id: 'acme-1', domain: 'acme-site.test', name: 'Acme Site' }],
  });
  const otherSub = account({ id: 11, type: 'sub', tenantId: 10, name: 'Acme Pub', sellersJson: entry('ap-1') });
  const manager = account({
    id: 12,
    type: 'demand',
    tenantId: 1,
    managerId: 1,
    sellersJson: [{ id: 'm-1', domain: 'm.test', name: 'M' }],
  });
  const accounts = [tenant, pub, paused, gone, other, otherSub, manager];

  const sub = (after: unknown, accountId: number | null = null, before: unknown = null) =>
    subSellerIdErrors(accounts, { accountId, tenantId: 1, before, after });
  const profile = (entries: { id: string; domain?: string; name?: string }[], who = tenant) =>
    profileSellerIdErrors(
      accounts,
      who,
      entries.map((e) => ({ domain: 'site.test', name: 'Site', ...e })),
    );

  it('refuses a subpublisher id another seller of the tenant has, naming that seller', () => {
    expect(sub(entry('p-1'))).toEqual([
      {
        field: 'sellersJson.id',
        message:
          'is already the seller id of subpublisher Pub: sellers.json gives each seller id to one seller; choose another',
      },
    ]);
    // Inactive and archived entries keep their ids: the ads.txt line and schain use them either way, and ids are never reused.
    expect(sub(entry('p-2'))[0].message).toContain('subpublisher Paused');
    expect(sub(entry('p-3'))[0].message).toContain('subpublisher Gone (archived)');
    expect(sub(entry('own-1'))[0].message).toContain("entry 1 of the profile's Sellers JSON (Harbor O&O)");
  });

  it("refuses another tenant's id without naming its seller (the operator's file lists every tenant)", () => {
    for (const id of ['ap-1', 'acme-1']) {
      expect(sub(entry(id))).toEqual([
        {
          field: 'sellersJson.id',
          message:
            'is already the seller id of a seller of another demand account: sellers.json gives each seller id to one seller; choose another',
        },
      ]);
    }
  });

  it('refuses a new id of digits alone, except the account id of the subpublisher itself', () => {
    expect(sub(entry('7'))).toEqual([
      { field: 'sellersJson.id', message: expect.stringContaining('must not be digits alone') },
    ]);
    expect(sub(entry('0042'), 2, entry('p-1'))[0].message).toContain('digits alone');
    expect(sub(entry('2'), 2, entry('p-1'))).toEqual([]);
  });

  it('refuses a new id that would break the ads.txt line publishers add: a comma, #, ; or a line break', () => {
    for (const id of ['p,1', 'p#1', 'p;1', 'p\n1', 'p\t1']) {
      expect(sub(entry(id)), JSON.stringify(id)).toEqual([
        { field: 'sellersJson.id', message: expect.stringContaining('ads.txt line') },
      ]);
    }
    expect(profile([{ id: 'own-1' }, { id: 'site, 2' }])).toEqual([
      { field: 'sellersJson.1.id', message: expect.stringContaining('must not hold a comma') },
    ]);
    // the ids ads.txt lines carry: letters, digits, dashes, dots, underscores, a pub- prefix
    for (const id of ['pub-9876543210', 'abc.def_1', 'A1-B2']) expect(sub(entry(id)), id).toEqual([]);
  });

  it('passes a free id, an empty one (the account id is used), the account keeping its own id, and an id only a manager lists', () => {
    expect(sub(entry('p-9'))).toEqual([]);
    expect(sub(entry(''))).toEqual([]);
    expect(sub({ ...entry('p-1'), name: 'Pub Renamed' }, 2, entry('p-1'))).toEqual([]);
    // A manager's profile is no sellers.json entry.
    expect(sub(entry('m-1'))).toEqual([]);
  });

  it('lets an account keep an id it already had, even one an older row shares (no save fails over an id it does not change)', () => {
    const twin = account({ id: 5, type: 'sub', name: 'Twin', sellersJson: entry('p-1') });
    expect(
      subSellerIdErrors([...accounts, twin], {
        accountId: 5,
        tenantId: 1,
        before: entry('p-1'),
        after: { ...entry('p-1'), status: 0 },
      }),
    ).toEqual([]);
    // Changing it to another taken id is refused.
    expect(
      subSellerIdErrors([...accounts, twin], { accountId: 5, tenantId: 1, before: entry('p-1'), after: entry('p-2') }),
    ).toHaveLength(1);
  });

  it("checks the tenant's profile entries: against other sellers, each other and the digits rule, each error on its row", () => {
    expect(profile([{ id: 'own-1' }, { id: 'new-1' }])).toEqual([]);
    expect(profile([{ id: 'own-1' }, { id: 'p-1' }, { id: 'ap-1' }, { id: '12' }, { id: 'own-1' }])).toEqual([
      { field: 'sellersJson.1.id', message: expect.stringContaining('subpublisher Pub') },
      { field: 'sellersJson.2.id', message: expect.stringContaining('a seller of another demand account') },
      { field: 'sellersJson.3.id', message: expect.stringContaining('digits alone') },
      {
        field: 'sellersJson.4.id',
        message: 'is already the seller id of entry 1 in this list: sellers.json gives each seller id to one seller',
      },
    ]);
    // Its own entries may move, be renamed or be replaced.
    expect(profile([{ id: 'new-1' }, { id: 'own-1', name: 'Renamed' }])).toEqual([]);
  });

  it('lets a profile keep an entry id an older row shares', () => {
    const legacy = account({
      id: 1,
      type: 'demand',
      name: 'Northwind',
      sellersJson: [
        { id: 'p-1', domain: 'pub.test', name: 'Pub' },
        { id: '99', domain: 'x.test', name: 'X' },
      ],
    });
    expect(
      profileSellerIdErrors([legacy, pub], legacy, [
        { id: 'p-1', domain: 'pub.test', name: 'Pub' },
        { id: '99', domain: 'x.test', name: 'X' },
      ]),
    ).toEqual([]);
  });
});
