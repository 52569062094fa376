import { describe, expect, it } from 'vitest';
import { fillSyncUrl, syncMacrosIn, userSyncUrl } from './userSyncUrl.js';

describe("a supplier's user-sync URL", () => {
  it('reads the id and privacy macros in each of their four spellings, the longer name first', () => {
    expect(syncMacrosIn('https://s.test/m?a=${UID}&b=$GDPR&c=$GDPR_CONSENT&d={US_PRIVACY}&e=[GPP]&f=${GPP_SID}')).toEqual(['UID', 'GDPR', 'GDPR_CONSENT', 'US_PRIVACY', 'GPP', 'GPP_SID']);
    // a bare $NAME does not run on into a longer word, and lower case is no macro
    expect(syncMacrosIn('https://s.test/m?a=$UIDS&b=${uid}&c=$GDPRX')).toEqual([]);
  });

  it('fills every macro with its value URL-encoded, and an absent value with nothing', () => {
    const url = 'https://s.test/m?uid=${UID}&u2=$UID&g={GDPR}&c=[GDPR_CONSENT]&sid=${GPP_SID}&p=${US_PRIVACY}';
    expect(fillSyncUrl(url, { UID: 'a b/c+d', GDPR: '1', GDPR_CONSENT: 'CP~x', GPP_SID: '2,6' })).toBe('https://s.test/m?uid=a%20b%2Fc%2Bd&u2=a%20b%2Fc%2Bd&g=1&c=CP~x&sid=2%2C6&p=');
    expect(fillSyncUrl('https://s.test/plain', { UID: 'x' })).toBe('https://s.test/plain');
  });

  it('is empty, or an http(s) URL that carries the id macro', () => {
    expect(userSyncUrl.parse(undefined)).toBe('');
    expect(userSyncUrl.parse('  ')).toBe('');
    expect(userSyncUrl.parse(' https://s.test/m?u=[UID] ')).toBe('https://s.test/m?u=[UID]');
    const reasons = (v: string) => userSyncUrl.safeParse(v).error?.issues.map((i) => i.message) ?? [];
    expect(reasons('https://s.test/m?u=1')).toEqual([expect.stringContaining('must carry the id macro ${UID}')]);
    expect(reasons('ftp://s.test/${UID}')[0]).toBe('must be an http(s) URL');
    expect(reasons('https://[bad/${UID}')[0]).toBe('must be an http(s) URL');
  });
});
