import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DecisionTrace } from '../src/edge/auction/trace.js';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { startTestBidders, type TestBidders } from './testBidders.js';
import { clientAds, schemaErrors } from './vastSchema.js';

/**
 * Outbound programmatic demand whose bid's `adm` is a VAST buffet with a broken first ad (no media
 * file), through the real app: the player gets the ad that plays, and the broken ad's error tracker
 * is called with its code (401), as a player that tried it would and as a VAST demand tag's buffet is
 * reported (docs/programmatic.md, "What the player gets"). For an RTB demand tag, for Prebid Server
 * demand, and for a supplier's OpenRTB request answered through an RTB channel; an `adm` with no ad
 * to play is a counted no-fill with its VAST code, its error tracker told as well.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let bidders: TestBidders;
  let cookie: string;
  const ids: Record<string, { id: number; uid: string }> = {};
  const create = async (name: string, kind: string, body: Record<string, unknown>) => (ids[name] = await createAs(app, cookie, kind, body));
  const errorsOf = (name: string) => bidders.notices.filter((n) => n.pathname === '/notice/error' && n.searchParams.get('name') === name);
  const settle = () => new Promise((r) => setTimeout(r, 150));

  beforeAll(async () => {
    bidders = await startTestBidders();
    app = await buildTestApp(t.store, { prebidServerUrl: `${bidders.url}/pbs?price=60&adm=buffet` });
    cookie = await login(app, 'demand');
    const channel = { vastVersion: '4.2', demandMode: 'auction', auctionPrice: 'first', timeoutMs: 1500, payout: { type: 'revshare', percent: 60 } };
    const buffet = await create('buffet', 'tags', { name: 'Buffet RTB', integration: 'RTB', endpoint: `${bidders.url}/bid?name=buf&price=60&adm=buffet`, price: { type: 'cpm', cpm: 0 }, timeoutMs: 1000 });
    await create('rtbChannel', 'channels', { ...channel, name: 'Buffet channel', demand: [{ tagId: buffet.id, priority: 1 }] });
    const broken = await create('broken', 'tags', { name: 'Unplayable RTB', integration: 'RTB', endpoint: `${bidders.url}/bid?name=unp&price=70&adm=unplayable`, price: { type: 'cpm', cpm: 0 }, timeoutMs: 1000 });
    await create('brokenChannel', 'channels', { ...channel, name: 'Unplayable channel', demand: [{ tagId: broken.id, priority: 1 }] });
    const pb = await create('prebid', 'tags', { name: 'PubMatic buffet via Prebid', integration: 'PreBid', partner: 'pubmaticP', partnerParams: { publisherId: '156209', adSlot: 'slot1@640x360' }, timeoutMs: 1000 });
    await create('prebidChannel', 'channels', { ...channel, name: 'Prebid buffet channel', demand: [{ tagId: pb.id, priority: 1 }] });
    const inbound = await create('inboundTag', 'tags', { name: 'Buffet RTB inbound', integration: 'RTB', endpoint: `${bidders.url}/bid?name=inb&price=60&adm=buffet`, price: { type: 'cpm', cpm: 0 }, timeoutMs: 1000 });
    await create('inboundChannel', 'channels', { name: 'Inbound buffet', integration: 'RTB', format: 'video', demandMode: 'auction', timeoutMs: 1500, payout: { type: 'revshare', percent: 50 }, demand: [{ tagId: inbound.id, priority: 1 }] });
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    await bidders?.close();
  });

  it("serves an RTB tag's buffet's playable ad and calls the broken ad's error tracker with 401, not the played ad's", async () => {
    const res = await as(app, cookie, { method: 'GET', url: `/vast/${ids.rtbChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1` });
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'rtb_tag', id: ids.buffet!.id });
    expect(schemaErrors('4.2', xml)).toBe('');
    expect(clientAds(xml).ads).toHaveLength(1);
    expect(xml).toContain(`${bidders.url}/notice/adm-imp?name=buf`);
    expect(xml).not.toContain('broken-imp');
    // the trace names the ping, its code filled
    const fate = trace.sources.find((s) => s.source === 'rtb_tag' && s.id === ids.buffet!.id)!;
    expect(fate.errorPings).toEqual([`${bidders.url}/notice/error?name=buf&ad=broken&code=401`]);
    // fired after the auction, once; the playable ad's own error tracker is the player's
    await expect.poll(() => errorsOf('buf').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), { timeout: 3000 }).toEqual([['broken', '401']]);
    await settle();
    expect(errorsOf('buf')).toHaveLength(1);
  });

  it('does the same for Prebid Server demand (a PreBid tag)', async () => {
    const res = await as(app, cookie, { method: 'GET', url: `/vast/${ids.prebidChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1` });
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'prebid_tag', id: ids.prebid!.id });
    expect(schemaErrors('4.2', xml)).toBe('');
    await expect.poll(() => errorsOf('pubmatic').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), { timeout: 3000 }).toEqual([['broken', '401']]);
  });

  it("does the same for a supplier's OpenRTB request to an RTB channel", async () => {
    const request = {
      id: 'inbound-buffet', tmax: 1000, site: { page: 'https://news.example.com/v' }, device: { ip: '8.8.8.8', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36' },
      imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3, 5, 6] } }],
    };
    const res = await app.inject({ method: 'POST', url: `/rtb/${ids.inboundChannel!.uid}`, payload: request });
    expect(res.statusCode, res.body).toBe(200);
    const bid = (res.json() as { seatbid: { bid: { crid: string; adm: string }[] }[] }).seatbid[0]!.bid[0]!;
    expect(bid.crid).toBe('cr-inb');
    expect(bid.adm).not.toContain('broken-imp');
    await expect.poll(() => errorsOf('inb').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), { timeout: 3000 }).toEqual([['broken', '401']]);
  });

  it('counts an adm with no ad to play as the tag\'s no-fill with its VAST code, and tells its error tracker as well as its loss notice', async () => {
    const res = await as(app, cookie, { method: 'GET', url: `/vast/${ids.brokenChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1` });
    const { trace } = res.json() as { trace: DecisionTrace };
    const fate = trace.sources.find((s) => s.source === 'rtb_tag' && s.id === ids.broken!.id)!;
    expect(fate).toMatchObject({ fate: 'no_fill', reason: 'bad_adm_no_media', vastError: 401 });
    await expect.poll(() => errorsOf('unp').map((n) => n.searchParams.get('code')), { timeout: 3000 }).toEqual(['401']);
    await expect.poll(() => bidders.notices.filter((n) => n.pathname === '/notice/loss' && n.searchParams.get('name') === 'unp').map((n) => n.searchParams.get('loss')), { timeout: 3000 }).toEqual(['3']);
  });
});
