import { type BidRequest } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { type SnapChannel } from '../snapshot/types.js';
import { buildBidRequest, type OutboundSpec, transactionId, videoProtocols } from './outboundRequest.js';
import { parseSupplyChain, serializeSupplyChain } from '../ortb/supplyChain.js';

const channel: SnapChannel = {
  id: 1,
  uid: 'ch-uid',
  tenantId: 1,
  subpublisherId: 0,
  name: 'C',
  serving: true,
  integration: 'VAST',
  environment: 'web',
  format: 'video',
  vastVersion: '3.0',
  floorCpm: 0,
  payout: { type: 'revshare', percent: 70 },
  demandMode: 'auction',
  auctionPrice: 'second',
  timeoutMs: 500,
  targeting: null,
  demand: [],
  idleTags: [],
};
const spec: OutboundSpec = {
  id: 'req-1',
  impId: '1',
  tid: 'tid-1',
  tmax: 120,
  bidfloor: 1.5,
  at: 2,
  node: { asi: 'ads.example.com', sid: '42', hp: 1, rid: 'req-1' },
  sellerId: '42',
  bcat: [],
  badv: ['blocked.example'],
};
const geo = () => ({ country: 'DE', region: 'BE', usState: '' });
const UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

describe('outbound bid request from a VAST tag request', () => {
  const ctx = buildRequestContext(
    {
      w: '640',
      h: '360',
      ip: '81.2.69.160',
      app_bundle: 'com.example.app',
      app_name: 'Example',
      app_store_url: 'https://play.google.com/store/apps/details?id=com.example.app',
      device_id: 'ifa-1',
      dnt: '1',
      coppa: '1',
      gdpr: '1',
      gdpr_consent: 'CO',
      us_privacy: '1YNN',
      gpp: 'G',
      gpp_sid: '7, 8,x',
      content_genre: 'News',
      livestream: '1',
    },
    { remoteAddress: '127.0.0.1', userAgent: UA },
    Date.now(),
    geo,
  );
  const req = buildBidRequest(ctx, channel, spec);

  it('offers one video impression the player can play, at our floor in USD', () => {
    expect(req.imp).toEqual([
      {
        id: '1',
        video: {
          mimes: ['video/mp4', 'video/webm'],
          protocols: [2, 3, 5, 6],
          w: 640,
          h: 360,
          plcmt: 1,
          placement: 1,
          linearity: 1,
          startdelay: 0,
        },
        tagid: 'ch-uid',
        bidfloor: 1.5,
        bidfloorcur: 'USD',
      },
    ]);
    expect(req).toMatchObject({ id: 'req-1', at: 2, tmax: 120, cur: ['USD'], badv: ['blocked.example'] });
    expect(req.bcat).toBeUndefined();
    // the lengths the player takes, when its tag says
    const bounded = buildBidRequest(
      buildRequestContext(
        { w: '640', h: '360', min_dur: '5', max_dur: '30' },
        { remoteAddress: '', userAgent: UA },
        Date.now(),
        geo,
      ),
      channel,
      spec,
    );
    expect(bounded.imp[0]!.video).toMatchObject({ minduration: 5, maxduration: 30 });
  });

  it('describes the app, the device with alpha-3 geo, the user and the privacy signals as 2.6 top-level fields', () => {
    expect(req.site).toBeUndefined();
    expect(req.app).toEqual({
      id: 'ch-uid',
      bundle: 'com.example.app',
      name: 'Example',
      storeurl: 'https://play.google.com/store/apps/details?id=com.example.app',
      publisher: { id: '42' },
      content: { genre: 'News', livestream: 1 },
    });
    expect(req.device).toEqual({
      ua: UA,
      ip: '81.2.69.160',
      devicetype: 1,
      ifa: 'ifa-1',
      dnt: 1,
      lmt: 1,
      geo: { country: 'DEU', region: 'BE', type: 2 },
    });
    // each also where 2.5 put it (ext), for bidders that still read it there
    expect(req.user).toEqual({ consent: 'CO', ext: { consent: 'CO' } });
    expect(req.regs).toEqual({
      coppa: 1,
      gdpr: 1,
      us_privacy: '1YNN',
      gpp: 'G',
      gpp_sid: [7, 8],
      ext: { gdpr: 1, us_privacy: '1YNN' },
    });
  });

  it("sends the tag's content categories as a list: one, or several separated by commas", () => {
    const content = (cat: string) =>
      buildBidRequest(
        buildRequestContext(
          { w: '640', h: '360', app_bundle: 'com.example.app', content_cat: cat },
          { remoteAddress: '', userAgent: UA },
          Date.now(),
          geo,
        ),
        channel,
        spec,
      ).app?.content;
    expect(content('IAB17')).toEqual({ cat: ['IAB17'] });
    expect(content('IAB1-5, IAB17,')).toEqual({ cat: ['IAB1-5', 'IAB17'] });
    expect(content(' , ')).toBeUndefined();
  });

  it('starts a complete supply chain with our node when the player sent none', () => {
    const schain = { complete: 1, ver: '1.0', nodes: [{ asi: 'ads.example.com', sid: '42', hp: 1, rid: 'req-1' }] };
    expect(req.source).toEqual({ tid: 'tid-1', schain, ext: { schain } });
  });

  it('carries the schain parameter the player sent, complete flag kept, and marks a chain it cannot read incomplete', () => {
    const withChain = buildRequestContext(
      { schain: '1.0,0!exchange1.com,1234,1,,,' },
      { remoteAddress: '', userAgent: UA },
      Date.now(),
      geo,
    );
    expect(buildBidRequest(withChain, channel, spec).source?.schain).toEqual({
      complete: 0,
      ver: '1.0',
      nodes: [{ asi: 'exchange1.com', sid: '1234', hp: 1 }, spec.node],
    });
    const broken = buildRequestContext({ schain: 'nonsense' }, { remoteAddress: '', userAgent: UA }, Date.now(), geo);
    expect(buildBidRequest(broken, channel, spec).source?.schain).toEqual({
      complete: 0,
      ver: '1.0',
      nodes: [spec.node],
    });
  });

  it('asks a display channel for a banner of the slot size, on the site the page names', () => {
    const page = buildRequestContext(
      { w: '300', h: '250', page_url: 'https://www.news.example.com/a' },
      { remoteAddress: '', userAgent: UA },
      Date.now(),
      geo,
    );
    const banner = buildBidRequest(page, { ...channel, format: 'display' }, spec);
    expect(banner.imp[0]).toMatchObject({ banner: { format: [{ w: 300, h: 250 }], w: 300, h: 250 }, secure: 1 });
    expect(banner.imp[0]!.video).toBeUndefined();
    expect(banner.site).toEqual({
      id: 'ch-uid',
      domain: 'news.example.com',
      page: 'https://www.news.example.com/a',
      publisher: { id: '42' },
    });
    // a tag that names only the domain: the site still has the id Prebid Server requires (an id or a page)
    const domainOnly = buildRequestContext(
      { w: '300', h: '250', domain: 'news.example.com' },
      { remoteAddress: '', userAgent: UA },
      Date.now(),
      geo,
    );
    expect(buildBidRequest(domainOnly, { ...channel, format: 'display' }, spec).site).toEqual({
      id: 'ch-uid',
      domain: 'news.example.com',
      publisher: { id: '42' },
    });
  });

  it('offers deals in imp.pmp with their floors, auction type and seats', () => {
    const deal = {
      id: 1,
      tenantId: 1,
      name: 'D',
      dealId: 'D-1',
      floorCpm: 2_500_000,
      auctionType: 3 as const,
      buyerSeats: ['seat-1'],
      supplierIds: [],
      start: 0,
      end: Infinity,
    };
    const withDeals = buildBidRequest(ctx, channel, {
      ...spec,
      deals: [deal],
      privateAuction: true,
      wseat: ['seat-1'],
    });
    expect(withDeals.imp[0]!.pmp).toEqual({
      private_auction: 1,
      deals: [{ id: 'D-1', bidfloor: 2.5, bidfloorcur: 'USD', at: 3, wseat: ['seat-1'] }],
    });
    expect(withDeals.wseat).toEqual(['seat-1']);
  });

  it('asks for the VAST versions the channel plays', () => {
    expect(videoProtocols('2.0')).toEqual([2, 5]);
    expect(videoProtocols('3.0')).toEqual([2, 3, 5, 6]);
    expect(videoProtocols('4.2')).toEqual([2, 3, 5, 6, 7, 8]);
  });
});

describe('outbound bid request from a supplier OpenRTB request', () => {
  const inbound: BidRequest = {
    id: 'in-1',
    imp: [
      {
        id: 'in-imp',
        video: { mimes: ['video/mp4'], protocols: [3, 7], w: 1920, h: 1080, minduration: 5, maxduration: 30 },
        bidfloor: 0.2,
        tagid: 'their-tag',
        pmp: { private_auction: 1, deals: [{ id: 'X' }] },
        instl: 1,
        ext: { bidder: { secret: 1 } },
      },
    ],
    site: {
      domain: 'pub.example',
      page: 'https://pub.example/p',
      publisher: { id: 'their-pub', name: 'Pub' },
      content: { genre: 'Sports' },
    },
    device: { ua: UA, ip: '81.2.69.160', devicetype: 4 },
    user: {
      id: 'their-user',
      buyeruid: 'us-there',
      ext: { consent: 'CONSENT-25' },
      eids: [{ source: 'id5-sync.com' }],
    },
    regs: { coppa: 0, ext: { gdpr: 1, us_privacy: '1YYN' } },
    source: {
      tid: 'their-tid',
      schain: {
        complete: 1,
        ver: '1.0',
        nodes: [
          { asi: 'pub.example', sid: 'p1', hp: 1 },
          { asi: 'ssp.example', sid: 's1', hp: 1 },
        ],
      },
    },
    bcat: ['IAB25', 'IAB26'],
    badv: ['blocked.example', 'rival.example'],
    bapp: ['com.rival'],
    test: 1,
  };
  const ctx = contextOfBidRequest(inbound, inbound.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo);
  const req = buildBidRequest(ctx, channel, { ...spec, tid: transactionId({}, ctx) });

  it('forwards the impression media, site, device, user and regs it carried, with our ids, floor and tag', () => {
    expect(req.imp[0]).toEqual({
      id: '1',
      instl: 1,
      video: { mimes: ['video/mp4'], protocols: [3, 7], w: 1920, h: 1080, minduration: 5, maxduration: 30 },
      tagid: 'ch-uid',
      bidfloor: 1.5,
      bidfloorcur: 'USD',
    });
    expect(req.site).toEqual({
      domain: 'pub.example',
      page: 'https://pub.example/p',
      publisher: { id: '42', name: 'Pub' },
      content: { genre: 'Sports' },
      id: 'ch-uid',
    });
    expect(req.device).toEqual({
      ua: UA,
      ip: '81.2.69.160',
      devicetype: 4,
      geo: { country: 'DEU', region: 'BE', type: 2 },
    });
    expect(req.user).toEqual({
      ext: { consent: 'CONSENT-25' },
      eids: [{ source: 'id5-sync.com' }],
      consent: 'CONSENT-25',
    });
    expect(req.regs).toEqual({ coppa: 0, gdpr: 1, us_privacy: '1YYN', ext: { gdpr: 1, us_privacy: '1YYN' } });
    expect(req.test).toBe(1);
    // the inbound request's own objects are not changed by the copies
    expect(inbound.user?.ext).toEqual({ consent: 'CONSENT-25' });
    expect(inbound.regs).toEqual({ coppa: 0, ext: { gdpr: 1, us_privacy: '1YYN' } });
  });

  it("forwards a dynamic pod's slot as one ad, and never the supplier's own floor per second", () => {
    const video = { mimes: ['video/mp4'], maxduration: 30, podid: 'break-1', poddur: 60, maxseq: 3, mincpmpersec: 0.5 };
    const podded: BidRequest = { ...inbound, imp: [{ id: 'd', video }] };
    const slotCtx = {
      ...contextOfBidRequest(podded, podded.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo),
      pod: {
        id: 'ours',
        sequence: 2,
        slots: 3,
        campaigns: new Set<number>(),
        advertisers: new Set<number>(),
        domains: [],
        media: new Set<string>(),
      },
    };
    expect(buildBidRequest(slotCtx, channel, spec).imp[0]!.video).toEqual({
      mimes: ['video/mp4'],
      maxduration: 30,
      podid: 'break-1',
    });
    // the whole impression forwarded (not one slot of ours): its pod stays as the supplier offered it
    const whole = contextOfBidRequest(podded, podded.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo);
    expect(buildBidRequest(whole, channel, spec).imp[0]!.video).toEqual({
      mimes: ['video/mp4'],
      maxduration: 30,
      podid: 'break-1',
      poddur: 60,
      maxseq: 3,
    });
  });

  it('joins its bcat and badv with ours and keeps its bapp', () => {
    expect(req.bcat).toEqual(['IAB25', 'IAB26']);
    expect(req.badv).toEqual(['blocked.example', 'rival.example']);
    expect(req.bapp).toEqual(['com.rival']);
  });

  it('sends the union of its bcat and our blocked ad categories, in the IAB 1.0 taxonomy it states or implies', () => {
    const ours = { ...spec, bcat: ['IAB7', 'IAB25'] };
    expect(buildBidRequest(ctx, channel, ours)).toMatchObject({ bcat: ['IAB25', 'IAB26', 'IAB7'] });
    expect(buildBidRequest(ctx, channel, ours).cattax).toBeUndefined();
    const tax1: BidRequest = { ...inbound, cattax: 1 };
    const one = buildBidRequest(
      contextOfBidRequest(tax1, tax1.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo),
      channel,
      ours,
    );
    expect(one).toMatchObject({ bcat: ['IAB25', 'IAB26', 'IAB7'], cattax: 1 });
    // a request blocking nothing: ours alone
    const clean: BidRequest = { ...inbound, bcat: undefined };
    expect(
      buildBidRequest(
        contextOfBidRequest(clean, clean.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo),
        channel,
        ours,
      ).bcat,
    ).toEqual(['IAB7', 'IAB25']);
  });

  it('never mixes taxonomies: an inbound bcat in another goes as it came, else ours go with cattax 1', () => {
    const ours = { ...spec, bcat: ['IAB7'] };
    const ctxOf = (r: BidRequest) =>
      contextOfBidRequest(r, r.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo);
    // Content Taxonomy 2.x codes blocked upstream: kept with their cattax (ours are enforced on the answers: openrtbCall.ts)
    const tax2: BidRequest = { ...inbound, cattax: 2, bcat: ['483', '484'] };
    expect(buildBidRequest(ctxOf(tax2), channel, ours)).toMatchObject({ bcat: ['483', '484'], cattax: 2 });
    // another taxonomy named but nothing blocked in it: our IAB 1.0 list, saying so
    const named: BidRequest = { ...inbound, cattax: 2, bcat: [] };
    expect(buildBidRequest(ctxOf(named), channel, ours)).toMatchObject({ bcat: ['IAB7'], cattax: 1 });
    // nothing blocked anywhere: neither field
    const none = buildBidRequest(ctxOf({ ...named }), channel, spec);
    expect(none.bcat).toBeUndefined();
    expect(none.cattax).toBeUndefined();
  });

  it('keeps its transaction id and appends our node once to its chain, complete as it was', () => {
    const schain = { complete: 1, ver: '1.0', nodes: [...inbound.source!.schain!.nodes, spec.node] };
    expect(req.source).toEqual({ tid: 'their-tid', schain, ext: { schain } });
    // a second outbound request of the same decision appends to the inbound chain again, not to ours
    expect(buildBidRequest(ctx, channel, spec).source?.schain?.nodes).toHaveLength(3);
    expect(inbound.source!.schain!.nodes).toHaveLength(2);
  });

  it('reads a 2.5 chain from source.ext.schain, and starts an incomplete one when none came', () => {
    const v25 = {
      ...inbound,
      source: { ext: { schain: { complete: 0, ver: '1.0', nodes: [{ asi: 'ssp.example', sid: 's1', hp: 1 }] } } },
    };
    const c25 = contextOfBidRequest(v25, v25.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo);
    expect(buildBidRequest(c25, channel, spec).source?.schain).toEqual({
      complete: 0,
      ver: '1.0',
      nodes: [{ asi: 'ssp.example', sid: 's1', hp: 1 }, spec.node],
    });
    const none = { ...inbound, source: undefined };
    const cNone = contextOfBidRequest(none, none.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now(), geo);
    expect(buildBidRequest(cNone, channel, spec).source?.schain).toEqual({
      complete: 0,
      ver: '1.0',
      nodes: [spec.node],
    });
  });

  it('shares one transaction id across the outbound requests of a decision', () => {
    const key = {};
    const fresh = buildRequestContext({}, { remoteAddress: '', userAgent: UA }, Date.now(), geo);
    expect(transactionId(key, fresh)).toBe(transactionId(key, fresh));
    expect(transactionId({}, fresh)).not.toBe(transactionId(key, fresh));
    expect(transactionId({}, ctx)).toBe('their-tid');
  });
});

describe('schain string serialization', () => {
  it('round-trips the spec examples, URL-encoding commas and bangs in values', () => {
    const chain = parseSupplyChain(
      '1.0,1!exchange1.com,1234%21abcd,1,bid-request-1,publisher%2C%20Inc.,publisher.com',
    )!;
    expect(chain).toEqual({
      ver: '1.0',
      complete: 1,
      nodes: [
        {
          asi: 'exchange1.com',
          sid: '1234!abcd',
          hp: 1,
          rid: 'bid-request-1',
          name: 'publisher, Inc.',
          domain: 'publisher.com',
        },
      ],
    });
    expect(serializeSupplyChain(chain)).toBe(
      '1.0,1!exchange1.com,1234%21abcd,1,bid-request-1,publisher%2C%20Inc.,publisher.com',
    );
    expect(parseSupplyChain('1.0,1!exchange1.com,1234,1!exchange2.com,abcd,1')!.nodes.map((n) => n.asi)).toEqual([
      'exchange1.com',
      'exchange2.com',
    ]);
    for (const bad of ['', '1.0,1', '1.0,x!a.com,1,1', '1.0,1!,1,1', '1.0,1!a.com,%E0%A4%A,1'])
      expect(parseSupplyChain(bad), bad).toBeNull();
  });
});
