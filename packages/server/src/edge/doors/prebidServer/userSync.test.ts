import { describe, expect, it } from 'vitest';
import {
  adplaneUid,
  cookieIds,
  cookieSyncAnswer,
  type CookieSyncAsk,
  fromOwnPage,
  gdprApplies,
  MAX_WRITTEN_VALUE,
  optedCookie,
  optoutPage,
  readCookieSyncAsk,
  readSyncCookie,
  sectionIds,
  setCookieHeader,
  setuid,
  syncCookieValue,
  type SyncCookie,
} from './userSync.js';

const NOW = Date.UTC(2026, 10, 25, 12);
const later = (days: number) => new Date(NOW + days * 86_400_000).toISOString();
/** Written by Go's base64.URLEncoding (the alphabet -_ and padding), as Prebid Server writes it: adplane's id and an expired appnexus id. */
const GO_COOKIE =
  'uids=eyJ0ZW1wVUlEcyI6eyJhZHBsYW5lIjp7InVpZCI6ImdvLXVpZC0xIiwiZXhwaXJlcyI6IjIwMjctMDEtMDFUMDA6MDA6MDAuMTIzNDU2Nzg5WiJ9LCJhcHBuZXh1cyI6eyJ1aWQiOiJhbi03IiwiZXhwaXJlcyI6IjIwMjYtMTEtMjBUMDA6MDA6MDBaIn19fQ==';
/** A cookie of `json`, encoded as the one above. */
const cookieOf = (json: unknown) =>
  `uids=${Buffer.from(JSON.stringify(json)).toString('base64').replaceAll('+', '-').replaceAll('/', '_')}`;
const ask = (over: Partial<CookieSyncAsk> = {}): CookieSyncAsk => ({
  bidders: ['adplane'],
  gdpr: null,
  gdprConsent: '',
  usPrivacy: '',
  gpp: '',
  gppSid: [],
  limit: 0,
  imageAllowed: true,
  imageFilter: null,
  iframeFilter: null,
  debug: false,
  account: '',
  coopSync: true,
  ...over,
});
const none: SyncCookie = { present: false, uids: {}, optout: false };
const q = (s: string) => new URLSearchParams(s);

describe('the uids cookie (Prebid Server user sync)', () => {
  it("reads Prebid Server's own cookie, every entry kept; adplane's id only while it lives", () => {
    const cookie = readSyncCookie(`session=abc; ${GO_COOKIE}; other=1`);
    expect(cookie).toMatchObject({ present: true, optout: false });
    expect({ ...cookie.uids }).toEqual({
      adplane: { uid: 'go-uid-1', expires: '2027-01-01T00:00:00.123456789Z' },
      appnexus: { uid: 'an-7', expires: '2026-11-20T00:00:00Z' },
    });
    expect(adplaneUid(GO_COOKIE, NOW)).toBe('go-uid-1');
    expect(adplaneUid(GO_COOKIE, Date.UTC(2027, 0, 2))).toBe('');
  });

  it('reads a missing, damaged or foreign cookie as none, and an opted-out one as no id', () => {
    for (const header of [
      undefined,
      '',
      'uids=',
      'uids=%%%',
      'uids=bm90IGpzb24',
      cookieOf([1, 2]),
      cookieOf('x'),
      'xuids=abc',
    ]) {
      expect(Object.keys(readSyncCookie(header).uids)).toEqual([]);
      expect(adplaneUid(header, NOW)).toBe('');
    }
    // an entry of the wrong shape is left out, the rest kept; a bidder named __proto__ is only a name
    const odd = readSyncCookie(
      cookieOf({
        tempUIDs: {
          a: { uid: 5, expires: later(1) },
          b: { uid: 'x', expires: 'soon' },
          c: { uid: 'ok', expires: later(1) },
          ['__proto__']: { uid: 'p', expires: later(1) },
        },
      }),
    );
    expect(Object.keys(odd.uids).sort()).toEqual(['__proto__', 'c']);
    expect(Object.getPrototypeOf(odd.uids)).toBeNull();
    const optedOut = cookieOf({ tempUIDs: { adplane: { uid: 'u-1', expires: later(30) } }, optout: true });
    expect(readSyncCookie(optedOut).optout).toBe(true);
    expect(adplaneUid(optedOut, NOW)).toBe('');
  });

  it('finds the cookie behind a long Cookie header (an opted-out browser stays opted out)', () => {
    const header = `${Array.from({ length: 120 }, (_, i) => `c${i}=${'v'.repeat(90)}`).join('; ')}; ${cookieOf({ tempUIDs: {}, optout: true })}`;
    expect(header.length).toBeGreaterThan(10_000);
    expect(readSyncCookie(header).optout).toBe(true);
    expect(setuid(q('bidder=adplane&uid=x'), readSyncCookie(header), NOW)).toMatchObject({ ok: false, status: 401 });
  });

  it('writes what Prebid Server decodes (URL alphabet, padded), as a third-party cookie', () => {
    const cookie: SyncCookie = { present: true, optout: false, uids: { adplane: { uid: 'ü/+?', expires: later(90) } } };
    const value = syncCookieValue(cookie);
    expect(value.length % 4).toBe(0);
    expect(value).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(JSON.parse(Buffer.from(value.replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('utf8'))).toEqual(
      { tempUIDs: cookie.uids },
    );
    expect(readSyncCookie(`uids=${value}`)).toEqual({ ...cookie, uids: expect.objectContaining(cookie.uids) });
    // Go's own cookie comes back out as it went in
    expect(`uids=${syncCookieValue(readSyncCookie(GO_COOKIE))}`).toBe(GO_COOKIE);
    expect(setCookieHeader(cookie, NOW)).toMatch(
      /^uids=[A-Za-z0-9_=-]+; Path=\/; Max-Age=7776000; Expires=[^;]+ GMT; SameSite=None; Secure$/,
    );
  });

  it("sheds other bidders' soonest-expiring ids from a cookie grown past what a browser keeps, never adplane's", () => {
    const uids: SyncCookie['uids'] = { adplane: { uid: 'mine', expires: later(1) } };
    for (let i = 0; i < 60; i++) uids[`bidder${i}`] = { uid: 'x'.repeat(40), expires: later(10 + i) };
    const header = setCookieHeader({ present: true, optout: false, uids }, NOW);
    const value = /^uids=([^;]+);/.exec(header)![1]!;
    expect(value.length).toBeLessThanOrEqual(MAX_WRITTEN_VALUE);
    const kept = readSyncCookie(`uids=${value}`).uids;
    expect(kept.adplane?.uid).toBe('mine');
    expect(kept.bidder59).toBeDefined();
    expect(kept.bidder0).toBeUndefined();
  });
});

describe('POST /cookie_sync', () => {
  it("reads Prebid.js's payload and names the field of a wrong type", () => {
    const read = readCookieSyncAsk({
      uuid: 'x',
      bidders: ['adplane', 'appnexus'],
      account: 'a',
      gdpr: 0,
      gdpr_consent: 'CO',
      us_privacy: '1---',
      gpp: 'DBA',
      gpp_sid: '7, 8',
      limit: 2,
      filterSettings: { image: { bidders: '*', filter: 'include' } },
    });
    expect(read).toEqual({
      ok: true,
      ask: {
        bidders: ['adplane', 'appnexus'],
        gdpr: 0,
        gdprConsent: 'CO',
        usPrivacy: '1---',
        gpp: 'DBA',
        gppSid: [7, 8],
        limit: 2,
        imageAllowed: true,
        imageFilter: { bidders: '*', exclude: false },
        iframeFilter: null,
        debug: false,
        account: 'a',
        coopSync: true,
      },
    });
    expect(readCookieSyncAsk(undefined)).toMatchObject({
      ok: true,
      ask: { bidders: null, gdpr: null, imageAllowed: true },
    });
    expect(readCookieSyncAsk([])).toEqual({ ok: false, field: '', reason: 'must be a JSON object' });
    expect(readCookieSyncAsk({ bidders: 'adplane' })).toMatchObject({ ok: false, field: 'bidders' });
    expect(readCookieSyncAsk({ gdpr: 2 })).toMatchObject({ ok: false, field: 'gdpr' });
    expect(readCookieSyncAsk({ us_privacy: 1 })).toMatchObject({ ok: false, field: 'us_privacy' });
    // as Prebid Server: a limit of 0 or less is no limit; a number that is not whole is refused
    expect(readCookieSyncAsk({ limit: -1 })).toMatchObject({ ok: true, ask: { limit: 0 } });
    expect(readCookieSyncAsk({ limit: 2.5 })).toMatchObject({ ok: false, field: 'limit' });
    expect(readCookieSyncAsk({ limit: '2' })).toMatchObject({ ok: false, field: 'limit' });
    expect(readCookieSyncAsk({ coopSync: 'no' })).toMatchObject({ ok: false, field: 'coopSync' });
    expect(readCookieSyncAsk({ coopSync: false })).toMatchObject({ ok: true, ask: { coopSync: false } });
    expect(readCookieSyncAsk({ filterSettings: { image: { bidders: 'adplane', filter: 'include' } } })).toMatchObject({
      ok: false,
      field: 'filterSettings',
    });
    // as Prebid Server: a filter without its mode is refused, the iframe one is read too
    expect(readCookieSyncAsk({ filterSettings: { image: { bidders: '*' } } })).toEqual({
      ok: false,
      field: 'filterSettings',
      reason: "image.filter must be 'include' or 'exclude'",
    });
    expect(readCookieSyncAsk({ filterSettings: { iframe: { bidders: 7, filter: 'include' } } })).toEqual({
      ok: false,
      field: 'filterSettings',
      reason: "iframe.bidders must be '*' or an array of bidder codes",
    });
    expect(readCookieSyncAsk({ debug: 'yes' })).toMatchObject({ ok: false, field: 'debug' });
    expect(sectionIds('2,x,,6')).toEqual([2, 6]);
  });

  it("follows the page's filters as Prebid Server does: adplane syncs by pixel (redirect) only, so image decides", () => {
    const allowed = (filterSettings: unknown) =>
      (readCookieSyncAsk({ filterSettings }) as { ask: CookieSyncAsk }).ask.imageAllowed;
    expect(allowed({ image: { bidders: '*', filter: 'exclude' } })).toBe(false);
    expect(allowed({ image: { bidders: ['adplane'], filter: 'exclude' } })).toBe(false);
    expect(allowed({ image: { bidders: ['other'], filter: 'exclude' } })).toBe(true);
    expect(allowed({ image: { bidders: ['other'], filter: 'include' } })).toBe(false);
    // Prebid Server reads iframe and image only (Prebid.js turns `all` into both before it posts)
    expect(allowed({ all: { bidders: '*', filter: 'exclude' } })).toBe(true);
    expect(allowed({ iframe: { bidders: '*', filter: 'exclude' } })).toBe(true);
    const excluded = ask({ imageFilter: { bidders: '*', exclude: true } });
    expect(cookieSyncAnswer(excluded, none, { origin: 'https://a', now: NOW }).bidder_status).toEqual([]);
    // with debug, why: no type allowed ("Rejected by request filter"), or only the iframe adplane has no sync of
    const both = ask({
      debug: true,
      imageFilter: { bidders: '*', exclude: true },
      iframeFilter: { bidders: ['adplane'], exclude: true },
    });
    expect(cookieSyncAnswer(both, none, { origin: 'https://a', now: NOW })).toEqual({
      status: 'no_cookie',
      bidder_status: [],
      debug: [{ bidder: 'adplane', error: 'Rejected by request filter' }],
    });
    expect(cookieSyncAnswer({ ...excluded, debug: true }, none, { origin: 'https://a', now: NOW }).debug).toEqual([
      { bidder: 'adplane', error: 'Type not supported' },
    ]);
    // the iframe filter alone never stops a pixel
    expect(
      cookieSyncAnswer(ask({ iframeFilter: { bidders: '*', exclude: true } }), none, { origin: 'https://a', now: NOW })
        .bidder_status,
    ).toHaveLength(1);
  });

  it('gives a browser without a live adplane id a pixel sync that carries a new one', () => {
    const answer = cookieSyncAnswer(ask({ gdpr: 0, usPrivacy: '1NN-', gppSid: [7] }), none, {
      origin: 'https://ads.example.com',
      now: NOW,
      uid: () => 'NEW',
    });
    expect(answer).toEqual({
      status: 'no_cookie',
      bidder_status: [
        {
          bidder: 'adplane',
          no_cookie: true,
          usersync: {
            url: 'https://ads.example.com/setuid?bidder=adplane&uid=NEW&f=i&gdpr=0&us_privacy=1NN-&gpp_sid=7',
            type: 'redirect',
            supportCORS: false,
          },
        },
      ],
    });
    // no bidder named: every bidder adplane syncs (cooperative sync), which is adplane
    expect(
      cookieSyncAnswer(ask({ bidders: null }), none, { origin: 'https://a', now: NOW }).bidder_status,
    ).toHaveLength(1);
    // another bidder's live id: status ok, adplane still to sync; adplane's expired id: synced again
    expect(
      cookieSyncAnswer(ask(), readSyncCookie(GO_COOKIE), { origin: 'https://a', now: Date.UTC(2026, 10, 10) }),
    ).toEqual({ status: 'ok', bidder_status: [] });
    expect(
      cookieSyncAnswer(ask(), readSyncCookie(GO_COOKIE), { origin: 'https://a', now: Date.UTC(2027, 0, 2) }),
    ).toMatchObject({ status: 'no_cookie', bidder_status: [{ bidder: 'adplane' }] });
    // a new id each time: 128 random bits
    const url = (a: ReturnType<typeof cookieSyncAnswer>) =>
      new URL(a.bidder_status[0]!.usersync.url).searchParams.get('uid');
    const [one, two] = [
      url(cookieSyncAnswer(ask(), none, { origin: 'https://a', now: NOW })),
      url(cookieSyncAnswer(ask(), none, { origin: 'https://a', now: NOW })),
    ];
    expect(one).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(one).not.toBe(two);
  });

  it('syncs nothing for other bidders, where the GDPR applies (gdpr=1, or GPP section 2 whatever gdpr says) or on a sale opt-out', () => {
    expect(cookieSyncAnswer(ask({ bidders: ['appnexus'] }), none, { origin: 'https://a', now: NOW })).toEqual({
      status: 'no_cookie',
      bidder_status: [],
    });
    expect(
      cookieSyncAnswer(ask({ gdpr: 1, gdprConsent: 'CO' }), none, { origin: 'https://a', now: NOW }).bidder_status,
    ).toEqual([]);
    expect(cookieSyncAnswer(ask({ gppSid: [2] }), none, { origin: 'https://a', now: NOW }).bidder_status).toEqual([]);
    expect(
      cookieSyncAnswer(ask({ gdpr: 0, gppSid: [2] }), none, { origin: 'https://a', now: NOW }).bidder_status,
    ).toEqual([]);
    expect(cookieSyncAnswer(ask({ usPrivacy: '1YYN' }), none, { origin: 'https://a', now: NOW }).bidder_status).toEqual(
      [],
    );
    // debug names the reasons, Prebid Server's words; no debug list without debug
    expect(
      cookieSyncAnswer(ask({ debug: true, bidders: ['adplane', 'appnexus'], usPrivacy: '1YYN' }), none, {
        origin: 'https://a',
        now: NOW,
      }),
    ).toEqual({
      status: 'no_cookie',
      bidder_status: [],
      debug: [
        { bidder: 'adplane', error: 'Rejected by privacy' },
        { bidder: 'appnexus', error: 'Unsupported bidder' },
      ],
    });
    expect(
      cookieSyncAnswer(ask({ debug: true }), readSyncCookie(GO_COOKIE), {
        origin: 'https://a',
        now: Date.UTC(2026, 10, 10),
      }).debug,
    ).toEqual([{ bidder: 'adplane', error: 'Already in sync' }]);
    expect(cookieSyncAnswer(ask({ usPrivacy: '1YYN' }), none, { origin: 'https://a', now: NOW }).debug).toBeUndefined();
    expect(gdprApplies(0, [7, 2])).toBe(true);
    expect(gdprApplies(null, [7])).toBe(false);
  });
});

describe('GET /setuid', () => {
  it("stores adplane's id beside other bidders' ids (expired ones kept), for 90 days; an empty uid removes it", () => {
    const cookie = readSyncCookie(GO_COOKIE);
    const stored = setuid(q('bidder=adplane&uid=abc-1&gdpr=0'), cookie, NOW);
    expect(stored).toMatchObject({ ok: true, image: true });
    const uids = stored.ok ? { ...stored.cookie.uids } : {};
    expect(uids).toEqual({
      appnexus: { uid: 'an-7', expires: '2026-11-20T00:00:00Z' },
      adplane: { uid: 'abc-1', expires: later(90) },
    });
    expect(setuid(q('bidder=adplane&uid=abc-1&f=b'), none, NOW)).toMatchObject({ ok: true, image: false });
    expect(setuid(q('bidder=adplane&uid=abc-1&f=I'), none, NOW)).toMatchObject({ ok: true, image: true });
    const removed = setuid(q('bidder=adplane&uid='), stored.ok ? stored.cookie : none, NOW);
    expect(removed.ok && { ...removed.cookie.uids }).toEqual({
      appnexus: { uid: 'an-7', expires: '2026-11-20T00:00:00Z' },
    });
  });

  it('refuses as Prebid Server does: 401 an opted-out browser first, 400 a bad bidder, uid or parameter, 451 where the GDPR applies; and on a sale opt-out', () => {
    expect(setuid(q('bidder=nobody'), { present: true, optout: true, uids: {} }, NOW)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(setuid(q('uid=x'), none, NOW)).toMatchObject({
      ok: false,
      status: 400,
      message: '"bidder" query param is required',
    });
    expect(setuid(q('bidder=appnexus&uid=x'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q(`bidder=adplane&uid=${'x'.repeat(129)}`), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=a%20b'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=yes'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x&f=z'), none, NOW)).toMatchObject({ ok: false, status: 400 });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=1'), none, NOW)).toMatchObject({
      ok: false,
      status: 400,
      message: 'gdpr_consent is required when gdpr=1',
    });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=1&gdpr_consent=CO'), none, NOW)).toMatchObject({
      ok: false,
      status: 451,
    });
    expect(setuid(q('bidder=adplane&uid=x&gdpr=0&gpp_sid=2'), none, NOW)).toMatchObject({ ok: false, status: 451 });
    expect(setuid(q('bidder=adplane&uid=x&us_privacy=1YYN'), none, NOW)).toMatchObject({ ok: false, status: 451 });
  });
});

describe('the opt-out page', () => {
  it('says what the cookie holds and offers the one change', () => {
    const known = readSyncCookie(GO_COOKIE);
    expect(optoutPage(known, NOW)).toContain('adplane keeps an id for this browser');
    expect(optoutPage(known, NOW)).toContain('name="optout" value="1"><button type="submit">Opt out</button>');
    expect(optoutPage(none, NOW)).toContain('adplane keeps no id for this browser.');
    const out = optedCookie(true);
    expect(optoutPage(out, NOW)).toContain('This browser is opted out');
    expect(optoutPage(out, NOW)).toContain('name="optout" value="0"><button type="submit">Opt back in</button>');
    // what an opted-out cookie says, Prebid Server reads
    expect(JSON.parse(Buffer.from(syncCookieValue(out), 'base64url').toString())).toEqual({
      tempUIDs: {},
      optout: true,
    });
  });

  it("takes the choice only from adplane's own page (or from no browser)", () => {
    const own = 'https://ads.example.com';
    expect(fromOwnPage({ 'sec-fetch-site': 'same-origin', host: 'ads.example.com' }, own)).toBe(true);
    expect(fromOwnPage({ 'sec-fetch-site': 'none' }, own)).toBe(true);
    expect(fromOwnPage({ 'sec-fetch-site': 'cross-site', origin: own, host: 'ads.example.com' }, own)).toBe(false);
    expect(fromOwnPage({ 'sec-fetch-site': 'same-site' }, own)).toBe(false);
    // without Fetch Metadata (older browsers): the Origin, against the public origin or the request's host
    expect(fromOwnPage({ origin: own, host: 'ads.example.com' }, own)).toBe(true);
    expect(fromOwnPage({ origin: own, host: 'edge-7.internal:8080' }, own)).toBe(true);
    expect(fromOwnPage({ origin: own, host: 'ads.example.com:443' }, 'http://127.0.0.1:8080')).toBe(true);
    expect(fromOwnPage({ origin: 'https://evil.example', host: 'ads.example.com' }, own)).toBe(false);
    expect(fromOwnPage({ origin: 'https://ads.example.com.evil.example', host: 'ads.example.com' }, own)).toBe(false);
    expect(fromOwnPage({ origin: 'null', host: 'ads.example.com' }, own)).toBe(false);
    expect(fromOwnPage({ host: 'ads.example.com' }, own)).toBe(true);
  });

  it('keeps an opt-out 400 days (the longest a browser keeps a cookie), an id 90', () => {
    expect(setCookieHeader(optedCookie(true), NOW)).toContain('; Max-Age=34560000;');
    expect(setCookieHeader(readSyncCookie(GO_COOKIE), NOW)).toContain('; Max-Age=7776000;');
  });
});

describe("demand partners' syncs in a cookie_sync", () => {
  const partners = [{ tagId: 7, url: 'https://sync.dsp.test/u?redir=${REDIRECT}&gdpr=[GDPR]' }];
  const codes = (a: CookieSyncAsk, cookie: SyncCookie = none) =>
    cookieSyncAnswer(a, cookie, {
      origin: 'https://ads.example.com',
      now: NOW,
      uid: () => 'NEW',
      partners: partners,
    }).bidder_status.map((s) => s.bidder);

  it("come after adplane's with cooperative sync, or when named, within the page's filter and limit", () => {
    expect(codes(ask())).toEqual(['adplane', 'adplane_tag_7']);
    expect(codes(ask({ bidders: null }))).toEqual(['adplane', 'adplane_tag_7']);
    expect(codes(ask({ coopSync: false }))).toEqual(['adplane']);
    expect(codes(ask({ coopSync: false, bidders: null }))).toEqual(['adplane', 'adplane_tag_7']);
    expect(codes(ask({ coopSync: false, bidders: ['adplane_tag_7'] }))).toEqual(['adplane_tag_7']);
    expect(codes(ask({ bidders: ['appnexus'] }))).toEqual([]);
    expect(codes(ask({ imageFilter: { bidders: ['adplane_tag_7'], exclude: true } }))).toEqual(['adplane']);
    const onlyPartner = (
      readCookieSyncAsk({
        bidders: ['adplane'],
        filterSettings: { image: { bidders: ['adplane_tag_7'], filter: 'include' } },
      }) as { ask: CookieSyncAsk }
    ).ask;
    expect(onlyPartner.imageAllowed).toBe(false);
    expect(codes(onlyPartner)).toEqual(['adplane_tag_7']);
    expect(codes(ask({ limit: 1 }))).toEqual(['adplane']);
    expect(
      codes(ask(), readSyncCookie(cookieOf({ tempUIDs: { adplane_tag_7: { uid: 'p', expires: later(3) } } }))),
    ).toEqual(['adplane']);
    expect(codes(ask({ gdpr: 1, gdprConsent: 'CO' }))).toEqual([]);
  });

  it("fill the partner's URL: the redirect to /setuid, URL-encoded and ending in uid=$UID, and the privacy macros", () => {
    const answer = cookieSyncAnswer(ask({ gdpr: 0, gdprConsent: 'CO x' }), none, {
      origin: 'https://ads.example.com',
      now: NOW,
      uid: () => 'NEW',
      partners: partners,
    });
    expect(answer.bidder_status[1]!.usersync.url).toBe(
      `https://sync.dsp.test/u?redir=${encodeURIComponent('https://ads.example.com/setuid?bidder=adplane_tag_7&gdpr=0&gdpr_consent=CO+x&f=i&uid=$UID')}&gdpr=0`,
    );
    // a partner URL that carries our setuid address itself keeps its own $UID, and is serialized as a URL
    const own = cookieSyncAnswer(ask({ gpp: 'DBA', gppSid: [7] }), none, {
      origin: 'https://ads.example.com',
      now: NOW,
      uid: () => 'NEW',
      partners: [
        {
          tagId: 9,
          url: 'https://sÿnc.dsp.test/u?back=https://ads.example.com/setuid?bidder=adplane_tag_9%26uid=$UID&s=${GPP_SID}',
        },
      ],
    });
    expect(own.bidder_status[1]!.usersync.url).toBe(
      'https://xn--snc-toa.dsp.test/u?back=https://ads.example.com/setuid?bidder=adplane_tag_9%26uid=$UID&s=7',
    );
  });

  it("are stored by /setuid for a partner the server knows, beside adplane's id, and read back as the cookie's other ids", () => {
    const known = (bidder: string) => bidder === 'adplane_tag_7';
    const stored = setuid(q('bidder=adplane_tag_7&uid=dsp-1'), readSyncCookie(GO_COOKIE), NOW, known);
    expect(stored).toMatchObject({ ok: true });
    const header = /^(uids=[^;]+);/.exec(setCookieHeader((stored as { cookie: SyncCookie }).cookie, NOW))![1]!;
    expect(cookieIds(header, NOW)).toEqual({ adplane: 'go-uid-1', partners: { adplane_tag_7: 'dsp-1' } });
    // other bidders' ids (appnexus, live here) are not read
    expect(cookieIds(cookieOf({ tempUIDs: { appnexus: { uid: 'a', expires: later(5) } } }), NOW)).toEqual({
      adplane: '',
      partners: {},
    });
    expect(setuid(q('bidder=adplane_tag_8&uid=x'), none, NOW, known)).toMatchObject({ ok: false, status: 400 });
  });
});
