import { type AuthUser, type Edition, modeSwitchRefusal, type Profile, type UserType } from '@adplane/shared';

/**
 * A signed-in user of the given type with every flag off; override what a test needs. Built as the
 * server builds it: `showDsp` in the overrides is the account's own flag, and the user's `showDsp` is
 * the effective one (modeSwitchRefusal over its type and its tenant's DSP view).
 */
export function makeUser(type: UserType, overrides: Partial<AuthUser> = {}, edition: Edition = 'default'): AuthUser {
  // The tenant's DSP view: the user's own flag unless a test sets it (admins: always).
  const tenantShowDsp = overrides.tenantShowDsp ?? (type === 'admin' || (overrides.showDsp ?? false));
  return {
    id: 7,
    type,
    name: `${type} user`,
    managerId: null,
    timezone: 0,
    tagParams: null,
    showPostbidPix: false,
    showPostbidWh: false,
    showCheckIVT: false,
    showSystemCost: false,
    tenantShowDemandToSubs: false,
    tenantShowSupplyToAdvs: false,
    vastParams: [],
    vast2Params: [],
    config: { host: 'ads.example.com', landing: '', database: edition },
    ...(type === 'admin' ? { uid: 'super' } : {}),
    ...overrides,
    tenantShowDsp,
    showDsp: modeSwitchRefusal({ type }, tenantShowDsp) === null,
  };
}

export function makeProfile(overrides: Partial<Profile> = {}): Profile {
  return {
    id: 7,
    type: 'demand',
    name: 'Acme Demand',
    companyName: 'Acme Media Ltd',
    companyAddress: '1 Main St',
    contactNumber: '+1 555 0100',
    contactExpired: '2027-03-31',
    uid: 'acme-uid',
    token: 'tok_123',
    domain: 'acme.example',
    timezone: -5,
    priceReq: 10_000,
    priceDsp: 12.5,
    priceImp: 250_000,
    pricePostbid: 50_000,
    postbidPercent: 20,
    setPostbidAll: 1,
    setCheckIVTAll: null,
    blockIVT: 1,
    delOldCreatives: null,
    tagParams: ['genre'],
    floorRules: null,
    contacts: [
      {
        type: 'general',
        firstName: 'Gina',
        lastName: 'General',
        position: 'CEO',
        contactPhone: '1',
        mobilePhone: '2',
        contactEmail: 'gina@acme.example',
        personalEmail: '',
      },
    ],
    sellersJson: [{ id: 's1', domain: 'acme.example', name: 'Acme' }],
    readOnly: false,
    ...overrides,
  };
}

/** A fetch Response with a JSON body. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? '' : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}
