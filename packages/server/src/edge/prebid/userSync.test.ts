import { describe, expect, it } from 'vitest';
import { adplaneUid, cookieSyncAnswer, type CookieSyncAsk, readCookieSyncAsk, readSyncCookie, sectionIds, setCookieHeader, setuid, syncCookieValue, type SyncCookie } from './userSync.js';

const NOW = Date.UTC(2026, 10, 25, 12);
const later = (days: number) => new Date(NOW + days * 86_400_000).toISOString();
/** A `uids` cookie as Prebid Server (Go) writes it: base64.URLEncoding (padded) of its JSON. */
const goCookie = (json: unknown) => `uids=${Buffer.from(JSON.stringify(json)).toString('base64').replaceAll('+', '-').replaceAll('/', '_')}`;
const ask = (over: Partial<CookieSyncAsk> = {}): CookieSyncAsk => ({ bidders: ['adplane'], gdpr: null, gdprConsent: '', usPrivacy: '', gpp: '', gppSid: [], limit: 0, ...over });
const none: SyncCookie = { present: false, uids: {}, optout: false };

describe('the uids cookie (Prebid Server user sync)', () => {
  it("reads Prebid Server's own cookie: every live bidder id, expired ones dropped", () => {
    const header = `session=abc; ${goCookie({ tempUIDs: { adplane: { uid: 'u-1', expires: later(30) }, appnexus: { uid: '123', expires: later(2) }, rubicon: { uid: 'old', expires: later(-1) } } })}; other=1`;
    const cookie = readSyncCookie(header, NOW);
    expect(cookie).toEqual({ present: true, optout: false, uids: { adplane: { uid: 'u-1', expires: later(30) }, appnexus: { uid: '123', expires: later(2) } } });
    expect(adplaneUid(header, NOW)).toBe('u-1');
  });

  it('reads a missing, damaged or foreign cookie as none, and an opted-out one as no id', () => {
    for (const header of [undefined, '', 'uids=', 'uids=%%%', 'uids=bm90IGpzb24', goCookie([1, 2]), goCookie('x'), 'xuids=abc']) {
      expect(readSyncCookie(header, NOW).uids).toEqual({});
      expect(adplaneUid(header, NOW)).toBe('');
    }
    // an entry of the wrong shape is left out, the rest kept
    expect(readSyncCookie(goCookie({ tempUIDs: { a: { uid: 5, expires: later(1) }, b: { uid: 'x', expires: 'soon' }, c: { uid: 'ok', expires: later(1) } } }), NOW).uids).toEqual({ c: { uid: 'ok', expires: later(1) } });
    const optedOut = goCookie({ tempUIDs: { adplane: { uid: 'u-1', expires: later(30) } }, optout: true });
    expect(readSyncCookie(optedOut, NOW).optout).toBe(true);
    expect(adplaneUid(optedOut, NOW)).toBe('');
  });

  it('writes what it reads, in the form Prebid Server decodes (URL alphabet, padded), as a third-party cookie', () => {
    const cookie: SyncCookie = { present: true, optout: false, uids: { adplane: { uid: 'ü/+?', expires: later(90) } } };
    const value = syncCookieValue(cookie);
    expect(value).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(JSON.parse(Buffer.from(value.replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('utf8'))).toEqual({ tempUIDs: cookie.uids });
    expect(readSyncCookie(`uids=${value}`, NOW)).toEqual(cookie);
    const header = setCookieHeader(cookie, NOW);
    expect(header).toMatch(/^uids=[A-Za-z0-9_=-]+; Path=\/; Max-Age=7776000; Expires=[^;]+ GMT; SameSite=None; Secure$/);
  });
});

describe('POST /cookie_sync', () => {
  it("reads Prebid.js's payload and names the field of a wrong type", () => {
    const read = readCookieSyncAsk({ uuid: 'x', bidders: ['adplane', 'appnexus'], account: 'a', gdpr: 0, gdpr_consent: 'CO', us_privacy: '1---', gpp: 'DBA', gpp_sid: '7, 8', limit: 2, filterSettings: {} });
    expect(read).toEqual({ ok: true, ask: { bidders: ['adplane', 'appnexus'], gdpr: 0, gdprConsent: 'CO', usPrivacy: '1---', gpp: 'DBA', gppSid: [7, 8], limit: 2 } });
    expect(readCookieSyncAsk(undefined)).toMatchObject({ ok: true, ask: { bidders: null, gdpr: null } });
    expect(readCookieSyncAsk([])).toEqual({ ok: false, field: '', reason: 'must be a JSON object' });
    expect(readCookieSyncAsk({ bidders: 'adplane' })).toMatchObject({ ok: false, field: 'bidders' });
    expect(readCookieSyncAsk({ gdpr: 2 })).toMatchObject({ ok: false, field: 'gdpr' });
    expect(readCookieSyncAsk({ us_privacy: 1 })).toMatchObject({ ok: false, field: 'us_privacy' });
    expect(readCookieSyncAsk({ limit: -1 })).toMatchObject({ ok: false, field: 'limit' });
    expect(sectionIds('2,x,,6')).toEqual([2, 6]);
  });

  it('gives a browser without an adplane id a pixel sync that carries a new one', () => {
    const answer = cookieSyncAnswer(ask({ gdpr: 0, usPrivacy: '1NN-', gppSid: [7] }), none, 'https://ads.example.com', () => 'NEW');
    expect(answer).toEqual({
      status: 'no_cookie',
      bidder_status: [{ bidder: 'adplane', no_cookie: true, usersync: { url: 'https://ads.example.com/setuid?bidder=adplane&uid=NEW&f=i&gdpr=0&us_privacy=1NN-&gpp_sid=7', type: 'redirect', supportCORS: false } }],
    });
    // no bidder named: every bidder adplane syncs (cooperative sync), which is adplane
    expect(cookieSyncAnswer(ask({ bidders: null }), none, 'https://a').bidder_status).toHaveLength(1);
    // a new id each time: 128 random bits
    const url = (a: ReturnType<typeof cookieSyncAnswer>) => new URL(a.bidder_status[0]!.usersync.url).searchParams.get('uid');
    const [one, two] = [url(cookieSyncAnswer(ask(), none, 'https://a')), url(cookieSyncAnswer(ask(), none, 'https://a'))];
    expect(one).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(one).not.toBe(two);
  });

  it('syncs nothing for a browser that has its id, other bidders, the GDPR, a sale opt-out or an opted-out cookie', () => {
    const known: SyncCookie = { present: true, optout: false, uids: { adplane: { uid: 'u', expires: later(9) } } };
    expect(cookieSyncAnswer(ask(), known, 'https://a')).toEqual({ status: 'ok', bidder_status: [] });
    expect(cookieSyncAnswer(ask({ bidders: ['appnexus'] }), none, 'https://a')).toEqual({ status: 'no_cookie', bidder_status: [] });
    expect(cookieSyncAnswer(ask({ gdpr: 1, gdprConsent: 'CO' }), none, 'https://a').bidder_status).toEqual([]);
    expect(cookieSyncAnswer(ask({ gppSid: [2] }), none, 'https://a').bidder_status).toEqual([]);
    expect(cookieSyncAnswer(ask({ usPrivacy: '1YYN' }), none, 'https://a').bidder_status).toEqual([]);
    expect(cookieSyncAnswer(ask(), { present: true, optout: true, uids: {} }, 'https://a').bidder_status).toEqual([]);
  });
});

describe('GET /setuid', () => {
  const q = (s: string) => new URLSearchParams(s);

  it("stores adplane's id beside other bidders' ids, for 90 days; an empty uid removes it", () => {
    const cookie: SyncCookie = { present: true, optout: false, uids: { appnexus: { uid: '123', expires: later(5) } } };
    const stored = setuid(q('bidder=adplane&uid=abc-1&gdpr=0'), cookie, NOW);
    expect(stored).toEqual({ ok: true, image: true, cookie: { present: true, optout: false, uids: { appnexus: { uid: '123', expires: later(5) }, adplane: { uid: 'abc-1', expires: later(90) } } } });
    expect(setuid(q('bidder=adplane&uid=abc-1&f=b'), none, NOW)).toMatchObject({ ok: true, image: false });
    const removed = setuid(q('bidder=adplane&uid='), stored.ok ? stored.cookie : none, NOW);
    expect(removed.ok && removed.cookie.uids).toEqual({ appnexus: { uid: '123', expires: later(5) } });
  });

  it("refuses as Prebid Server does: 400 a bad bidder or uid, 401 an opted-out browser, 451 where the GDPR applies", () => {
    expect(setuid(q('uid=x'), none, NOW)).toMatchObject({ ok: false, status: 400, message: '"bidder" query param is required' });
    expect(setuid(q('bidder=appnexus&uid=x'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q(`bidder=adplane&uid=${'x'.repeat(129)}`), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=a%20b'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=yes'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x&f=z'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x'), { present: true, optout: true, uids: {} }, NOW)).toMatchObject({ ok: false, status: 401 });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=1&gdpr_consent=CO'), none, NOW)).toMatchObject({ ok: false, status: 451 });
    expect(setuid(q('bidder=adplane&uid=x&gpp_sid=2'), none, NOW)).toMatchObject({ ok: false, status: 451 });
  });
});
