import { describe, expect, it } from 'vitest';
import { type Winner } from './runAuction.js';
import { type SourceFate } from '@adplane/shared';
import { type Bid, type DemandCandidate } from '../demand/demandSource.js';
import { buildRequestContext } from '../request/context.js';
import { TokenSigner } from '../tracking/trackingToken.js';
import { fillAuctionMacros, usdCpmText } from '../ortb/auctionMacros.js';
import { BID_PRICE, demandClearing, demandTerms, ourPrice, pricingOfTag } from '../ortb/demandPricing.js';
import { billingNotice, deferredWinNotice, settleProgrammatic } from './notices.js';
import { recordOffer } from '../demand/offers.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';

describe('auction macros', () => {
  it('fills every macro of the list, empties the unknown values, URL-encodes, leaves encoded forms and others alone', () => {
    const url =
      'https://d.example/w?p=${AUCTION_PRICE}&a=${AUCTION_ID}&b=${AUCTION_BID_ID}&i=${AUCTION_IMP_ID}&s=${AUCTION_SEAT_ID}&ad=${AUCTION_AD_ID}&c=${AUCTION_CURRENCY}&m=${AUCTION_MBR}&l=${AUCTION_LOSS}&w=${AUCTION_MIN_TO_WIN}&t=${AUCTION_IMP_TS}&x=${AUCTION_MULTIPLIER}&e=${AUCTION_PRICE:B64}&o=${OTHER}';
    const filled = fillAuctionMacros(url, {
      AUCTION_PRICE: '3.01',
      AUCTION_ID: 'req 1',
      AUCTION_BID_ID: 'b&1',
      AUCTION_IMP_ID: '1',
      AUCTION_SEAT_ID: 's',
      AUCTION_AD_ID: 'ad',
      AUCTION_CURRENCY: 'USD',
      AUCTION_MBR: '0.6',
      AUCTION_LOSS: '102',
      AUCTION_MIN_TO_WIN: '3',
      AUCTION_IMP_TS: '1700000000000',
    });
    expect(filled).toBe(
      'https://d.example/w?p=3.01&a=req%201&b=b%261&i=1&s=s&ad=ad&c=USD&m=0.6&l=102&w=3&t=1700000000000&x=&e=${AUCTION_PRICE:B64}&o=${OTHER}',
    );
    expect(
      fillAuctionMacros('ts=${AUCTION_IMP_TS}&p=${AUCTION_PRICE}', { AUCTION_PRICE: '1' }, new Set(['AUCTION_IMP_TS'])),
    ).toBe('ts=${AUCTION_IMP_TS}&p=1');
    expect(usdCpmText(3_010_000)).toBe('3.01');
  });

  it('turns bids into our price and back: the bid, a revenue share, a fixed CPM', () => {
    expect(pricingOfTag({ type: 'cpm', cpm: 0 })).toEqual(BID_PRICE);
    const share = pricingOfTag({ type: 'revshare', percent: 80 });
    expect(ourPrice(share, 5_000_000)).toBe(4_000_000);
    expect(demandTerms(share, 1_000_000)).toBe(1_250_000);
    expect(demandClearing(share, 2_000_000, 5_000_000)).toBe(2_500_000);
    const fixed = pricingOfTag({ type: 'cpm', cpm: 3_000_000 });
    expect(ourPrice(fixed, 9_000_000)).toBe(3_000_000);
    expect(demandClearing(fixed, 3_000_000, 9_000_000)).toBe(9_000_000);
  });
});

const signer = new TokenSigner('k'.repeat(32));
function ortbBid(name: string, bidCpm: number, over: Partial<OrtbMarkup> = {}): Bid & { markup: OrtbMarkup } {
  const markup: OrtbMarkup = {
    kind: 'ortb',
    media: 'video',
    adm: '<VAST/>',
    nurl: `https://d.example/win/${name}?p=\${AUCTION_PRICE}&m=\${AUCTION_MIN_TO_WIN}`,
    burl: `https://d.example/bill/${name}?p=\${AUCTION_PRICE}&t=\${AUCTION_IMP_TS}`,
    lurl: `https://d.example/loss/${name}?l=\${AUCTION_LOSS}&m=\${AUCTION_MIN_TO_WIN}&p=\${AUCTION_PRICE}`,
    adomain: [],
    cat: [],
    crid: '',
    adid: '',
    dealId: '',
    seat: 'seat',
    w: 0,
    h: 0,
    mtype: 2,
    requestId: `req-${name}`,
    impId: '1',
    bidId: `bid-${name}`,
    bidCpm,
    pricing: BID_PRICE,
    ...over,
  };
  return { priceCpm: bidCpm, fixedPrice: false, markup, tagId: 1, campaignId: 0, creativeId: 0, advertiserId: 0 };
}
const candidate = (id: number): DemandCandidate => ({
  source: 'rtb_tag',
  id,
  name: `t${id}`,
  priority: 1,
  floorCpm: 1_000_000,
  external: true,
  call: () => Promise.reject(new Error('unused')),
});
const fate = (id: number, f: SourceFate['fate'], bidCpm: number): SourceFate => ({
  source: 'rtb_tag',
  id,
  name: `t${id}`,
  priority: 1,
  fate: f,
  bidCpm,
});

describe('win, loss and billing notices', () => {
  const setup = () => {
    const ctx = buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));
    const win = ortbBid('win', 5_000_000);
    const lost = ortbBid('lost', 3_000_000);
    const low = ortbBid('low', 500_000, { dealId: 'D' });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    recordOffer(ctx, { source: 'rtb_tag', id: 2, bid: lost, floorCpm: 1_000_000 });
    recordOffer(ctx, { source: 'rtb_tag', id: 3, bid: low, floorCpm: 1_000_000 });
    const fates = [
      { ...fate(1, 'won', 5_000_000), clearingCpm: 3_010_000 },
      fate(2, 'lost', 3_000_000),
      fate(3, 'below_floor', 500_000),
    ];
    const winner: Winner = {
      candidate: candidate(1),
      bid: win,
      clearingCpm: 3_010_000,
      payoutCpm: 0,
      runnerUpCpm: 3_000_000,
      fate: fates[0]!,
    };
    return { ctx, win, fates, winner };
  };

  it("fires the nurl with the clearing price and the losers' lurl with the loss reason; the burl waits for the impression, signed to the token", () => {
    const { ctx, win, fates, winner } = setup();
    const fired: string[] = [];
    settleProgrammatic(ctx, fates, winner, { test: false, token: 'tok', signer, notify: (u) => fired.push(u) });
    expect(fired).toEqual([
      'https://d.example/win/win?p=3.01&m=3',
      'https://d.example/loss/lost?l=102&m=3.01&p=',
      'https://d.example/loss/low?l=101&m=3.01&p=',
    ]);
    const query = new URLSearchParams(win.markup.settled!.billingQuery.slice(1));
    expect(query.get('b')).toBe('https://d.example/bill/win?p=3.01&t=${AUCTION_IMP_TS}');
    expect(billingNotice(query, 'tok', signer, 1_700_000_000_000)).toBe(
      'https://d.example/bill/win?p=3.01&t=1700000000000',
    );
    // another token, a changed URL or a missing signature fire nothing
    expect(billingNotice(query, 'other', signer, 1)).toBeNull();
    query.set('b', 'https://evil.example/');
    expect(billingNotice(query, 'tok', signer, 1)).toBeNull();
    expect(billingNotice(new URLSearchParams('b=https://d.example/'), 'tok', signer, 1)).toBeNull();
  });

  it('fires nothing for a test decision, and nothing of ours for markup served on the win notice', () => {
    const { ctx, win, fates, winner } = setup();
    const fired: string[] = [];
    settleProgrammatic(ctx, fates, winner, { test: true, token: 'tok', signer, notify: (u) => fired.push(u) });
    expect(fired).toEqual([]);
    expect(win.markup.settled!.billingQuery).toBe('');
    expect(win.markup.settled!.macros.AUCTION_PRICE).toBe('3.01');

    const served = setup();
    served.win.markup.adm = '';
    settleProgrammatic(served.ctx, served.fates, served.winner, {
      test: false,
      token: 'tok',
      signer,
      notify: (u) => fired.push(u),
    });
    expect(fired.some((u) => u.includes('/win/'))).toBe(false);
  });
  it('tells a bid refused for what it is why, with no minimum to win: its advertiser, category, media, markup or deal', () => {
    const ctx = buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));
    const win = ortbBid('win', 5_000_000);
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    const reasons = [
      'blocked_adomain',
      'blocked_category',
      'wrong_media',
      'no_markup',
      'bad_adm_not_vast',
      'deal_not_offered',
      'private_auction',
      'timeout_unknown_reason',
    ];
    const fates: SourceFate[] = [{ ...fate(1, 'won', 5_000_000), clearingCpm: 3_000_000 }];
    reasons.forEach((reason, i) => {
      recordOffer(ctx, { source: 'rtb_tag', id: 10 + i, bid: ortbBid(reason, 9_000_000), floorCpm: 1_000_000 });
      fates.push({ ...fate(10 + i, 'no_fill', 0), reason });
    });
    const winner: Winner = {
      candidate: candidate(1),
      bid: win,
      clearingCpm: 3_000_000,
      payoutCpm: 0,
      runnerUpCpm: null,
      fate: fates[0]!,
    };
    const fired: string[] = [];
    settleProgrammatic(ctx, fates, winner, { test: false, token: 'tok', signer, notify: (u) => fired.push(u) });
    expect(fired.filter((u) => u.includes('/loss/'))).toEqual([
      'https://d.example/loss/blocked_adomain?l=205&m=&p=',
      'https://d.example/loss/blocked_category?l=209&m=&p=',
      'https://d.example/loss/wrong_media?l=204&m=&p=',
      'https://d.example/loss/no_markup?l=7&m=&p=',
      'https://d.example/loss/bad_adm_not_vast?l=3&m=&p=',
      'https://d.example/loss/deal_not_offered?l=4&m=&p=',
      'https://d.example/loss/private_auction?l=4&m=&p=',
      // a no-fill that is not about the bid (here an unknown reason) tells nothing
    ]);
  });

  it("tells a bid below the floor the floor the auction held it to (a deal's), never less: a winner may clear under it", () => {
    const ctx = buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));
    const win = ortbBid('win', 5_000_000);
    // a deal bid of $6 under its deal's $8 floor; the tag's own floor is $1
    const deal = ortbBid('deal', 6_000_000, { dealId: 'D' });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    recordOffer(ctx, { source: 'rtb_tag', id: 2, bid: deal, floorCpm: 1_000_000 });
    const below: SourceFate = { ...fate(2, 'below_floor', 6_000_000), reason: 'floor_8000000', floorCpm: 8_000_000 };
    const fates: SourceFate[] = [{ ...fate(1, 'won', 5_000_000), clearingCpm: 3_000_000 }, below];
    const fired: string[] = [];
    settleProgrammatic(
      ctx,
      fates,
      { candidate: candidate(1), bid: win, clearingCpm: 3_000_000, payoutCpm: 0, runnerUpCpm: null, fate: fates[0]! },
      { test: false, token: 'tok', signer, notify: (u) => fired.push(u) },
    );
    expect(fired.filter((u) => u.includes('/loss/'))).toEqual(['https://d.example/loss/deal?l=101&m=8&p=']);
    // alone: the floor, not the tag's
    const alone = buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));
    recordOffer(alone, { source: 'rtb_tag', id: 2, bid: deal, floorCpm: 1_000_000 });
    fired.length = 0;
    settleProgrammatic(alone, [below], null, { test: false, token: 'tok', signer, notify: (u) => fired.push(u) });
    expect(fired).toEqual(['https://d.example/loss/deal?l=101&m=8&p=']);
  });

  it('states the prices of a demand that bid in another currency in that currency (AUCTION_PRICE, MIN_TO_WIN, CURRENCY)', () => {
    const ctx = buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));
    // 4 EUR bid at 1.25 USD a euro: 5 USD; it clears at 3.75 USD, which is 3 EUR
    const win = ortbBid('eur', 5_000_000, {
      currency: 'EUR',
      usdPerUnit: 1.25,
      nurl: 'https://d.example/win/eur?p=${AUCTION_PRICE}&c=${AUCTION_CURRENCY}&m=${AUCTION_MIN_TO_WIN}',
    });
    const lost = ortbBid('lost', 2_500_000, { currency: 'EUR', usdPerUnit: 1.25 });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    recordOffer(ctx, { source: 'rtb_tag', id: 2, bid: lost, floorCpm: 1_000_000 });
    const fates: SourceFate[] = [{ ...fate(1, 'won', 5_000_000), clearingCpm: 3_750_000 }, fate(2, 'lost', 2_500_000)];
    const winner: Winner = {
      candidate: candidate(1),
      bid: win,
      clearingCpm: 3_750_000,
      payoutCpm: 0,
      runnerUpCpm: 2_500_000,
      fate: fates[0]!,
    };
    const fired: string[] = [];
    settleProgrammatic(ctx, fates, winner, { test: false, token: 'tok', signer, notify: (u) => fired.push(u) });
    expect(fired).toEqual(['https://d.example/win/eur?p=3&c=EUR&m=2', 'https://d.example/loss/lost?l=102&m=3&p=']);
  });

  const newCtx = () =>
    buildRequestContext({}, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    }));

  it("gives the winner the floor the auction held it to as its minimum to win when nothing else was above it (a deal's, not the tag's)", () => {
    const ctx = newCtx();
    const win = ortbBid('deal', 5_000_000, { dealId: 'D' });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    // the deal's $2 floor (the tag's is $1): alone, and above a runner-up of $1.50
    const won: SourceFate = { ...fate(1, 'won', 5_000_000), clearingCpm: 5_000_000, floorCpm: 2_000_000 };
    for (const runnerUpCpm of [null, 1_500_000]) {
      const fired: string[] = [];
      settleProgrammatic(
        ctx,
        [won],
        { candidate: candidate(1), bid: win, clearingCpm: 5_000_000, payoutCpm: 0, runnerUpCpm, fate: won },
        { test: false, token: 'tok', signer, notify: (u) => fired.push(u) },
      );
      expect(fired).toEqual(['https://d.example/win/deal?p=5&m=2']);
    }
  });

  it("leaves the deferred win notice's impression time to /ev, which fills it when the impression counts", () => {
    const ctx = newCtx();
    const win = ortbBid('up', 5_000_000, { nurl: 'https://d.example/win/up?p=${AUCTION_PRICE}&t=${AUCTION_IMP_TS}' });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: win, floorCpm: 1_000_000 });
    const won: SourceFate = { ...fate(1, 'won', 5_000_000), clearingCpm: 3_000_000 };
    const fired: string[] = [];
    settleProgrammatic(
      ctx,
      [won],
      { candidate: candidate(1), bid: win, clearingCpm: 3_000_000, payoutCpm: 0, runnerUpCpm: null, fate: won },
      { test: false, token: 'tok', signer, notify: (u) => fired.push(u), upstreamAuction: true },
    );
    expect(fired).toEqual([]);
    const query = new URLSearchParams(win.markup.settled!.billingQuery.slice(1));
    expect(query.get('w')).toBe('https://d.example/win/up?p=3&t=${AUCTION_IMP_TS}');
    expect(deferredWinNotice(query, 'tok', signer, 1_700_000_000_000)).toBe(
      'https://d.example/win/up?p=3&t=1700000000000',
    );
    expect(deferredWinNotice(query, 'other', signer, 1)).toBeNull();
  });

  it('tells each bid of an answer that held several its own fate, and a bid refused beside them why', () => {
    const ctx = newCtx();
    const win = ortbBid('win', 5_000_000);
    const second = ortbBid('second', 4_000_000);
    const low = ortbBid('low', 1_500_000, { dealId: 'D' });
    const blocked = ortbBid('blocked', 9_000_000);
    // one answer of source 1 (its fate is its best's): the winner, a bid that lost to it, one below its deal's floor, one refused
    const fates: SourceFate[] = [{ ...fate(1, 'won', 5_000_000), clearingCpm: 4_010_000 }];
    win.offerFate = fates[0];
    second.offerFate = { ...fate(1, 'lost', 4_000_000) };
    low.offerFate = { ...fate(1, 'below_floor', 1_500_000), floorCpm: 2_000_000 };
    for (const bid of [win, second, low]) recordOffer(ctx, { source: 'rtb_tag', id: 1, bid, floorCpm: 1_000_000 });
    recordOffer(ctx, { source: 'rtb_tag', id: 1, bid: blocked, floorCpm: 1_000_000, refusal: 'blocked_adomain' });
    const fired: string[] = [];
    settleProgrammatic(
      ctx,
      fates,
      {
        candidate: candidate(1),
        bid: win,
        clearingCpm: 4_010_000,
        payoutCpm: 0,
        runnerUpCpm: 4_000_000,
        fate: fates[0]!,
      },
      { test: false, token: 'tok', signer, notify: (u) => fired.push(u) },
    );
    expect(fired).toEqual([
      'https://d.example/win/win?p=4.01&m=4',
      'https://d.example/loss/second?l=102&m=4.01&p=',
      'https://d.example/loss/low?l=101&m=4.01&p=',
      'https://d.example/loss/blocked?l=205&m=&p=',
    ]);
    // an answer that came too late tells nothing, its refused bids neither
    const late = newCtx();
    recordOffer(late, {
      source: 'rtb_tag',
      id: 1,
      bid: ortbBid('late', 9_000_000),
      floorCpm: 1_000_000,
      refusal: 'blocked_adomain',
    });
    fired.length = 0;
    settleProgrammatic(late, [fate(1, 'timeout', 0)], null, {
      test: false,
      token: 'tok',
      signer,
      notify: (u) => fired.push(u),
    });
    expect(fired).toEqual([]);
  });
});
