import { describe, expect, it } from 'vitest';
import { findLine, parseAdsTxt } from '../src/supplyChain/adsTxt.js';
import { channelAdsTxt } from '../src/supplyChain/adsTxtLine.js';
import { type User } from '../src/store/users.js';

/** The ads.txt line of a channel whose seller id ads.txt cannot carry as it is (ads.txt 1.1, 3.4.2). */
const account = (over: Partial<User>): User =>
  ({
    id: 1,
    type: 'demand',
    name: 'Account',
    archived: false,
    managerId: null,
    tenantId: 1,
    domain: '',
    sellersJson: null,
    contacts: [],
    profile: { companyName: '' },
    ...over,
  }) as unknown as User;

describe('a seller id with a comma, whitespace, # or ;', () => {
  const tenant = account({ id: 1, domain: 'ads.northwind.test' });
  const sub = account({
    id: 2,
    type: 'sub',
    sellersJson: { type: 'PUBLISHER', name: 'Acme', id: 'ACME, Inc #1', status: 1, confidential: 0 },
  });
  const line = channelAdsTxt({
    channel: { domain: 'acme.test' },
    tenant,
    sub,
    publicHost: 'https://adplane.example',
    sellersFile: null,
  });

  it('is written URL-encoded, so the line reads back as three fields with that id', () => {
    expect(line.line).toBe('ads.northwind.test, ACME%2C%20Inc%20%231, DIRECT');
    const file = parseAdsTxt(`${line.line}\n`);
    expect(file.errors).toEqual([]);
    expect(file.records).toMatchObject([{ domain: 'ads.northwind.test', relationship: 'DIRECT' }]);
  });

  it('is found in a file that carries the line as shown', () => {
    expect(
      findLine(parseAdsTxt(`${line.line}\n`), {
        domain: line.domain,
        sellerId: line.sellerId!,
        relationship: line.relationship,
      }).kind,
    ).toBe('found');
  });
});
