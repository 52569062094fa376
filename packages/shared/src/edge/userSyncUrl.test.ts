import { describe, expect, it } from 'vitest';
import { demandSyncUrl, fillSyncUrl, syncMacrosIn, userSyncUrl } from './userSyncUrl.js';

describe("a supplier's user-sync URL", () => {
  it('reads the id and privacy macros in each of their four spellings, the longer name first', () => {
    expect(
      syncMacrosIn('https://s.test/m?a=${UID}&b=$GDPR&c=$GDPR_CONSENT&d={US_PRIVACY}&e=[GPP]&f=${GPP_SID}'),
    ).toEqual(['UID', 'GDPR', 'GDPR_CONSENT', 'US_PRIVACY', 'GPP', 'GPP_SID']);
    // a bare $NAME does not run on into a longer word, and lower case is no macro
    expect(syncMacrosIn('https://s.test/m?a=$UIDS&b=${uid}&c=$GDPRX')).toEqual([]);
  });

  it('fills each macro given with its value URL-encoded, empty for an empty one, and leaves the others as written', () => {
    const url =
      'https://s.test/m?uid=${UID}&u2=$UID&g={GDPR}&c=[GDPR_CONSENT]&sid=${GPP_SID}&p=${US_PRIVACY}&r=${REDIRECT}';
    expect(fillSyncUrl(url, { UID: 'a b/c+d', GDPR: '1', GDPR_CONSENT: 'CP~x', GPP_SID: '2,6', US_PRIVACY: '' })).toBe(
      'https://s.test/m?uid=a%20b%2Fc%2Bd&u2=a%20b%2Fc%2Bd&g=1&c=CP~x&sid=2%2C6&p=&r=${REDIRECT}',
    );
    expect(
      fillSyncUrl('https://dsp.test/s?back=https%3A%2F%2Fads.test%2Fsetuid%3Fuid%3D&u=$UID&g=${GDPR}', { GDPR: '0' }),
    ).toBe('https://dsp.test/s?back=https%3A%2F%2Fads.test%2Fsetuid%3Fuid%3D&u=$UID&g=0');
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
    // a macro a browser's call fills may not pick the host adplane sends the browser to
    expect(reasons('https://${GDPR_CONSENT}/x?u=${UID}')).toContain('must not carry a macro in its host');
    expect(reasons('https://sync.${GPP}.test/x?u=${UID}')).toContain('must not carry a macro in its host');
    expect(demandSyncUrl.safeParse('https://$GPP.test/r=${REDIRECT}').error?.issues.map((i) => i.message)).toEqual([
      'must not carry a macro in its host',
    ]);
    expect(demandSyncUrl.parse('https://sync.dsp.test/u?r=${REDIRECT}')).toBe('https://sync.dsp.test/u?r=${REDIRECT}');
  });
});
