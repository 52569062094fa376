import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BidRequest, type BidResponse } from '@adplane/shared';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { startTestBidders, type TestBidders } from './testBidders.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Other currencies than USD through the real app, with the operator's rates from a currency file
 * (ADPLANE_CURRENCY_RATES, Prebid's format): 1 EUR is 1.25 USD here. Demand bidding in euros is
 * converted, and told its prices in euros; a supplier asking for euros is answered in euros, its
 * floors in euros read as dollars; a Prebid.js page asking for its ad server's currency gets it.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

forEachStore((t) => {
  let app: FastifyInstance;
  let base = '';
  let bidders: TestBidders;
  let cookie: string;
  const ids: Record<string, { id: number; uid: string }> = {};
  const create = async (name: string, kind: string, body: Record<string, unknown>) =>
    (ids[name] = await createAs(app, cookie, kind, body));

  const rtb = async (uid: string, request: BidRequest) => {
    const res = await fetch(`${base}/rtb/bid/${uid}`, {
      method: 'POST',
      body: JSON.stringify(request),
      headers: { 'content-type': 'application/json' },
    });
    return { status: res.status, body: res.status === 200 ? ((await res.json()) as BidResponse) : null };
  };
  const bannerRequest = (over: Partial<BidRequest> = {}, imp: Record<string, unknown> = {}): BidRequest =>
    ({
      id: `cur-${Math.random()}`,
      imp: [{ id: '1', banner: { w: 300, h: 250 }, ...imp }],
      site: { domain: 'news.example.com' },
      ...over,
    }) as BidRequest;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adplane-rates-'));
    const rates = join(dir, 'latest.json');
    writeFileSync(rates, JSON.stringify({ dataAsOf: '2026-11-24', conversions: { USD: { EUR: 0.8, GBP: 0.75 } } }));
    bidders = await startTestBidders();
    app = await buildTestApp(t.store, { currencyRates: rates });
    cookie = await login(app, 'demand');
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    await create('supplier', 'sups', {
      name: 'Euro SSP',
      qpsLimit: 'unlimited',
      marginPercent: 20,
      formats: ['video', 'display'],
    });
    const banner = await create('banner', 'creatives', {
      name: 'Euro banner',
      format: 'display',
      displayType: 'image',
      imageUrl: 'https://cdn.brand.test/300x250.png',
      width: 300,
      height: 250,
      clickUrl: 'https://brand.test/offer',
      adomain: ['brand.test'],
      approval: 'approved',
    });
    await create('campaign', 'campaigns', {
      name: 'Euro campaign',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 50_000_000,
      channelScope: 'all',
      creativeIds: [banner.id],
    });
    // a VAST channel whose only demand is an RTB tag bidding in euros
    // (40 EUR, 50 USD: above every campaign of the demo workspace, which may serve on this channel too)
    const eurTag = await create('eurTag', 'tags', {
      name: 'Euro bidder',
      integration: 'RTB',
      endpoint: `${bidders.url}/bid?name=eur&price=40&cur=EUR`,
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 1000,
    });
    await create('eurChannel', 'channels', {
      name: 'Euro demand',
      vastVersion: '4.2',
      demandMode: 'auction',
      auctionPrice: 'first',
      timeoutMs: 1500,
      demand: [{ tagId: eurTag.id, priority: 1 }],
    });
    const channel = {
      environment: 'web',
      integration: 'PreBid',
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      timeoutMs: 1000,
    };
    await create('prebid', 'channels', { ...channel, name: 'Euro Prebid display', format: 'display' });
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    await bidders?.close();
  });

  it('answers a supplier that asks for euros in euros, at the same value', async () => {
    const dollars = await rtb(ids.supplier!.uid, bannerRequest());
    const euros = await rtb(ids.supplier!.uid, bannerRequest({ cur: ['EUR'] }));
    expect(dollars.status).toBe(200);
    expect(euros.status).toBe(200);
    expect(dollars.body!.cur).toBe('USD');
    expect(euros.body!.cur).toBe('EUR');
    const usdPrice = dollars.body!.seatbid![0]!.bid[0]!.price;
    expect(euros.body!.seatbid![0]!.bid[0]!.price).toBeCloseTo(usdPrice / 1.25, 5);
    // a currency without a rate: no bid, as before
    expect((await rtb(ids.supplier!.uid, bannerRequest({ cur: ['CHF'] }))).status).toBe(204);
  });

  it('reads a floor in euros as its value in dollars', async () => {
    const usdPrice = (await rtb(ids.supplier!.uid, bannerRequest())).body!.seatbid![0]!.bid[0]!.price;
    // a floor just under the price in euros passes; one just over it refuses
    expect(
      (await rtb(ids.supplier!.uid, bannerRequest({}, { bidfloor: (usdPrice / 1.25) * 0.99, bidfloorcur: 'EUR' })))
        .status,
    ).toBe(200);
    expect(
      (await rtb(ids.supplier!.uid, bannerRequest({}, { bidfloor: (usdPrice / 1.25) * 1.01, bidfloorcur: 'EUR' })))
        .status,
    ).toBe(204);
    expect((await rtb(ids.supplier!.uid, bannerRequest({}, { bidfloor: 0.01, bidfloorcur: 'CHF' }))).status).toBe(204);
  });

  it('takes a demand bid in euros at its value in dollars, and tells it its price in euros', async () => {
    const res = await edgeRequest(app, {
      cookie,
      method: 'GET',
      url: `/vast/${ids.eurChannel!.uid}?w=640&h=360&ip=8.8.8.8&country=US&debug=1`,
    });
    const { trace } = res.json() as { trace: DecisionTrace };
    // 40 EUR: 50 USD, the winner at first price
    expect(trace.winner).toMatchObject({
      source: 'rtb_tag',
      id: ids.eurTag!.id,
      bidCpm: 50_000_000,
      clearingCpm: 50_000_000,
    });
    // a VAST answer: the demand's win notice goes with the decision, its price and currency its own
    const [win] = await bidders.waitForNotices('/notice/win', 1);
    expect(win!.searchParams.get('cur')).toBe('EUR');
    expect(win!.searchParams.get('price')).toBe('40');
  });

  it("answers Prebid.js in the page's currency: the operator's rates, or the request's own", async () => {
    const request = (cur: string[], currency?: Record<string, unknown>) => ({
      id: 'a1',
      cur,
      imp: [
        {
          id: 'div',
          banner: { format: [{ w: 300, h: 250 }] },
          ext: { prebid: { bidder: { adplane: { channel: ids.prebid!.uid } } } },
        },
      ],
      site: { page: 'https://news.example.com/x', domain: 'news.example.com' },
      device: { ua: 'Mozilla/5.0', ip: '8.8.8.8' },
      ext: { prebid: { targeting: {}, ...(currency ? { currency } : {}) } },
    });
    const post = async (body: object) =>
      (await edgeRequest(app, { method: 'POST', url: '/openrtb2/auction', payload: body })).json() as BidResponse & {
        ext: { errors?: Record<string, { code: number }[]> };
      };
    const usd = await post(request(['USD']));
    const usdBid = usd.seatbid![0]!.bid[0]!;
    const eur = await post(request(['EUR']));
    expect(eur.cur).toBe('EUR');
    const eurBid = eur.seatbid![0]!.bid[0]! as typeof usdBid & {
      ext: { origbidcpm: number; origbidcur: string; prebid: { targeting: Record<string, string> } };
    };
    expect(eurBid.price).toBeCloseTo(usdBid.price * 0.8, 5);
    expect(eurBid.ext).toMatchObject({ origbidcpm: usdBid.price, origbidcur: 'USD' });
    // the request's own rates first (Prebid.js's currency module)
    const chf = await post(request(['CHF'], { rates: { USD: { CHF: 0.9 } } }));
    expect(chf.cur).toBe('CHF');
    expect(chf.seatbid![0]!.bid[0]!.price).toBeCloseTo(usdBid.price * 0.9, 5);
    // the server's rates refused (usepbsrates false) and none of the request's: no conversion, Prebid Server's error 9
    const refused = await post(request(['EUR'], { usepbsrates: false }));
    expect(refused.seatbid ?? []).toEqual([]);
    expect(refused.ext.errors!.adplane![0]!.code).toBe(9);
    // rates that are not rates: 400 naming the field
    const bad = await edgeRequest(app, {
      method: 'POST',
      url: '/openrtb2/auction',
      payload: request(['EUR'], { rates: { USD: { EUR: -1 } } }),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('ext.prebid.currency.rates');
  });
});
