import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { startTestBidders, type TestBidders } from './testBidders.js';
import { edgeRequest } from './edgeClient.js';

/**
 * User sync with demand partners (SSP mode), through the real app: an RTB demand tag's partner is
 * handed out by the cookie_sync of the channel's Prebid.js set-up (its account is the channel's uid),
 * its id comes back through /setuid into the browser's `uids` cookie, and the tag's bid requests carry
 * it as `user.buyeruid` (to a local bidder), except where the GDPR applies.
 */
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
const PARTNER_SYNC = 'https://sync.dsp.test/usersync?gdpr=${GDPR}&consent=${GDPR_CONSENT}&redir=${REDIRECT}';
type Obj = Record<string, unknown>;
interface SyncAnswer {
  status: string;
  bidder_status: {
    bidder: string;
    no_cookie: boolean;
    usersync: { url: string; type: string; supportCORS: boolean };
  }[];
}

/** The `uids` cookie a response sets, as a Cookie header. */
function uidsCookie(setCookie: string | string[] | undefined): string {
  const m = /(?:^|\n)(uids=[^;]+)/.exec(Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? ''));
  expect(m, 'a uids cookie is set').not.toBeNull();
  return m![1]!;
}
const uidsOf = (cookie: string): Record<string, { uid: string }> =>
  (
    JSON.parse(Buffer.from(cookie.slice('uids='.length), 'base64url').toString('utf8')) as {
      tempUIDs: Record<string, { uid: string }>;
    }
  ).tempUIDs;

forEachStore((t) => {
  let app: FastifyInstance;
  let bidders: TestBidders;
  let cookie: string;
  const ids: Record<string, { id: number; uid: string }> = {};

  beforeAll(async () => {
    bidders = await startTestBidders();
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
    const create = async (name: string, kind: string, body: Obj) =>
      (ids[name] = await createAs(app, cookie, kind, body));
    await create('partner', 'tags', {
      name: 'Synced DSP',
      integration: 'RTB',
      endpoint: `${bidders.url}/bid?name=synced&price=9&adm=html`,
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 1000,
      userSyncUrl: PARTNER_SYNC,
    });
    await create('plain', 'tags', {
      name: 'DSP without sync',
      integration: 'RTB',
      endpoint: `${bidders.url}/bid?name=plain&price=1&adm=html`,
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 1000,
    });
    const channel = {
      environment: 'web',
      integration: 'PreBid',
      format: 'display',
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      timeoutMs: 1000,
    };
    await create('channel', 'channels', {
      ...channel,
      name: 'Prebid with synced DSP',
      demand: [
        { tagId: ids.partner!.id, priority: 1 },
        { tagId: ids.plain!.id, priority: 1 },
      ],
    });
    await app.edge.snapshots.rebuild();
  });
  afterAll(async () => {
    await app?.close();
    await bidders?.close();
  });

  const cookieSync = async (body: Obj, headers: Record<string, string> = {}): Promise<SyncAnswer> => {
    const res = await edgeRequest(app, {
      method: 'POST',
      url: '/cookie_sync',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'text/plain', ...headers },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as SyncAnswer;
  };
  const partner = () => `adplane_tag_${ids.partner!.id}`;

  describe('the user-sync URL of a demand tag', () => {
    it('is kept on an RTB tag, refused when it is not an http(s) URL, and dropped from other integrations', async () => {
      const bad = await as(app, cookie, {
        method: 'POST',
        url: '/api/demand/tags',
        payload: {
          name: 'Bad sync',
          integration: 'RTB',
          endpoint: `${bidders.url}/bid`,
          userSyncUrl: 'javascript:alert(1)',
        },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('userSyncUrl');
      expect(bad.body).toContain('must be an http(s) URL');
      const read = async (id: number) =>
        (await as(app, cookie, { method: 'GET', url: `/api/demand/tags/${id}` })).json() as { userSyncUrl: string };
      expect((await read(ids.partner!.id)).userSyncUrl).toBe(PARTNER_SYNC);
      const vast = await createAs(app, cookie, 'tags', {
        name: 'VAST with a sync URL',
        integration: 'VAST',
        vastUrl: 'https://vast.example.test/tag',
        userSyncUrl: PARTNER_SYNC,
      });
      expect((await read(vast.id)).userSyncUrl).toBe('');
      const prebid = await createAs(app, cookie, 'tags', {
        name: 'PreBid with a sync URL',
        integration: 'PreBid',
        partner: 'appnexus',
        partnerParams: { placement_id: 123 },
        userSyncUrl: PARTNER_SYNC,
      });
      expect((await read(prebid.id)).userSyncUrl).toBe('');
      // a macro the browser's call fills may not choose the host adplane's sync sends the browser to
      const host = await as(app, cookie, {
        method: 'POST',
        url: '/api/demand/tags',
        payload: {
          name: 'Host macro',
          integration: 'RTB',
          endpoint: `${bidders.url}/bid`,
          userSyncUrl: 'https://$GDPR_CONSENT/u?r=${REDIRECT}',
        },
      });
      expect(host.statusCode).toBe(400);
      expect(host.body).toContain('must not carry a macro in its host');
    });
  });

  describe("the channel's cookie_sync", () => {
    it("hands out the partner's sync beside adplane's, its redirect to /setuid and the privacy signals filled in", async () => {
      const answer = await cookieSync({
        bidders: ['adplane'],
        account: ids.channel!.uid,
        gdpr: 0,
        gdpr_consent: 'CO-x',
        us_privacy: '1YNN',
      });
      expect(answer.bidder_status.map((s) => s.bidder)).toEqual(['adplane', partner()]);
      const sync = answer.bidder_status[1]!;
      expect(sync).toMatchObject({ no_cookie: true, usersync: { type: 'redirect', supportCORS: false } });
      const url = new URL(sync.usersync.url);
      expect(url.origin + url.pathname).toBe('https://sync.dsp.test/usersync');
      expect(url.searchParams.get('gdpr')).toBe('0');
      expect(url.searchParams.get('consent')).toBe('CO-x');
      const back = new URL(url.searchParams.get('redir')!);
      expect(back.pathname).toBe('/setuid');
      expect(Object.fromEntries(back.searchParams)).toEqual({
        bidder: partner(),
        gdpr: '0',
        gdpr_consent: 'CO-x',
        us_privacy: '1YNN',
        f: 'i',
        uid: '$UID',
      });
      expect(back.search.endsWith('&uid=$UID')).toBe(true);
    });

    it('leaves it out for another account, a browser that has its id, a filter that drops it, a limit, or where the GDPR applies', async () => {
      const bidderCodes = async (body: Obj, headers?: Record<string, string>) =>
        (await cookieSync(body, headers)).bidder_status.map((s) => s.bidder);
      expect(await bidderCodes({ bidders: ['adplane'] })).toEqual(['adplane']);
      expect(await bidderCodes({ bidders: ['adplane'], account: 'another-channel' })).toEqual(['adplane']);
      expect(
        await bidderCodes({
          bidders: ['adplane'],
          account: ids.channel!.uid,
          filterSettings: { image: { bidders: ['adplane'], filter: 'include' } },
        }),
      ).toEqual(['adplane']);
      expect(await bidderCodes({ account: ids.channel!.uid, limit: 1 })).toEqual(['adplane']);
      expect(
        await bidderCodes({ bidders: ['adplane'], account: ids.channel!.uid, gdpr: 1, gdpr_consent: 'CO-x' }),
      ).toEqual([]);
      const stored = await edgeRequest(app, { method: 'GET', url: `/setuid?bidder=${partner()}&uid=dsp-user-1` });
      expect(
        await bidderCodes(
          { bidders: ['adplane'], account: ids.channel!.uid },
          { cookie: uidsCookie(stored.headers['set-cookie']) },
        ),
      ).toEqual(['adplane']);
    });
  });

  describe('/setuid for a partner', () => {
    it("keeps the partner's id beside adplane's; a tag without a sync URL, or no tag, is not a bidder here", async () => {
      const first = await edgeRequest(app, { method: 'GET', url: '/setuid?bidder=adplane&uid=our-id' });
      const both = await edgeRequest(app, {
        method: 'GET',
        url: `/setuid?bidder=${partner()}&uid=dsp-user-2&f=i`,
        headers: { cookie: uidsCookie(first.headers['set-cookie']) },
      });
      expect(both.statusCode).toBe(200);
      expect(both.headers['content-type']).toBe('image/gif');
      const uids = uidsOf(uidsCookie(both.headers['set-cookie']));
      expect(uids.adplane?.uid).toBe('our-id');
      expect(uids[partner()]?.uid).toBe('dsp-user-2');
      const getuids = await edgeRequest(app, {
        method: 'GET',
        url: '/getuids',
        headers: { cookie: uidsCookie(both.headers['set-cookie']) },
      });
      expect(getuids.json()).toEqual({ buyeruids: { adplane: 'our-id', [partner()]: 'dsp-user-2' } });
      for (const bidder of [`adplane_tag_${ids.plain!.id}`, 'adplane_tag_999999', 'adplane_tag_x']) {
        const res = await edgeRequest(app, { method: 'GET', url: `/setuid?bidder=${bidder}&uid=u` });
        expect(res.statusCode, bidder).toBe(400);
        expect(res.body).toContain('not supported');
      }
      expect(
        (await edgeRequest(app, { method: 'GET', url: `/setuid?bidder=${partner()}&uid=u&gdpr=1&gdpr_consent=CO-x` }))
          .statusCode,
      ).toBe(451);
    });
  });

  it("sends the partner its id as user.buyeruid on the tag's bid request, and none to a partner without it or where the GDPR applies", async () => {
    const stored = await edgeRequest(app, { method: 'GET', url: `/setuid?bidder=${partner()}&uid=dsp-user-3` });
    const browser = uidsCookie(stored.headers['set-cookie']);
    const request = (regs?: Obj): Obj => ({
      id: `a-${Math.random()}`,
      imp: [
        {
          id: 'div-1',
          banner: { format: [{ w: 300, h: 250 }] },
          ext: { prebid: { bidder: { adplane: { channel: ids.channel!.uid } } } },
        },
      ],
      site: { page: 'https://news.example.com/story', domain: 'news.example.com' },
      device: { ua: UA, ip: '8.8.8.8' },
      tmax: 1000,
      ...(regs ? { regs } : {}),
    });
    const auction = async (body: Obj, headers: Record<string, string>) => {
      const before = bidders.requests.length;
      const res = await edgeRequest(app, {
        method: 'POST',
        url: '/openrtb2/auction',
        payload: JSON.stringify(body),
        headers: { 'content-type': 'text/plain', ...headers },
      });
      expect(res.statusCode, res.body).toBe(200);
      const calls = bidders.requests.slice(before);
      return {
        synced: calls.find((c) => c.query.get('name') === 'synced')!.body,
        plain: calls.find((c) => c.query.get('name') === 'plain')!.body,
      };
    };
    const withCookie = await auction(request(), { cookie: browser });
    expect(withCookie.synced.user?.buyeruid).toBe('dsp-user-3');
    expect(withCookie.plain.user?.buyeruid).toBeUndefined();
    // a Prebid client's explicit id for the partner counts too
    const explicit = await auction(
      { ...request(), user: { ext: { prebid: { buyeruids: { [partner()]: 'dsp-user-4' } } } } },
      {},
    );
    expect(explicit.synced.user?.buyeruid).toBe('dsp-user-4');
    // adplane's and its partners' explicit ids go to nobody downstream
    const relayed = await auction(
      {
        ...request(),
        user: { ext: { prebid: { buyeruids: { adplane: 'ours', [partner()]: 'dsp-user-4' } }, consent: 'CO-y' } },
      },
      {},
    );
    for (const sent of [relayed.synced, relayed.plain])
      expect(JSON.stringify(sent.user ?? {})).not.toMatch(/buyeruids|ours/);
    expect(relayed.plain.user?.buyeruid).toBeUndefined();
    // nor where the request forbids ids: the GDPR, a sale opt-out, COPPA
    for (const regs of [{ gdpr: 1 }, { us_privacy: '1YYN' }, { coppa: 1 }]) {
      const refused = await auction(request(regs), { cookie: browser });
      expect(refused.synced.user?.buyeruid, JSON.stringify(regs)).toBeUndefined();
    }
    expect((await auction(request(), {})).synced.user?.buyeruid).toBeUndefined();
  });
});
