import { describe, expect, it } from 'vitest';
import { inlineVast } from '../../../test/demandServers.js';
import { readVastAnswer } from '../vast/vastAnswer.js';
import { MAX_BIDS_READ, parseBidResponse, readBidResponse, type ResponseExpectation } from './bidResponseReader.js';
import { parseCurrencyFile } from './currency.js';

const VAST = inlineVast('https://dsp.example', null);
const x: ResponseExpectation = {
  requestId: 'r1',
  impId: '1',
  media: 'video',
  deals: new Set(['D1']),
  privateAuction: false,
  bcat: ['IAB25'],
  badv: ['blocked.example'],
};
const bid = (over: Record<string, unknown> = {}) => ({
  id: 'b1',
  impid: '1',
  price: 2.5,
  adm: VAST,
  adomain: ['Brand.Example'],
  cat: ['IAB1-1'],
  crid: 'cr1',
  ...over,
});
const answer = (bids: unknown[], over: Record<string, unknown> = {}) => ({
  id: 'r1',
  seatbid: [{ seat: 's1', bid: bids }],
  ...over,
});
const reason = (body: unknown, expectation = x) => {
  const read = readBidResponse(body, expectation);
  return read.ok ? 'ok' : read.reason;
};

describe('bid response reader', () => {
  it('takes the highest valid bid for our impression, price to micro-dollars, with what its notices and markup need', () => {
    const read = readBidResponse(
      answer(
        [
          bid(),
          bid({
            id: 'b2',
            price: 3.25,
            nurl: 'https://dsp.example/win?p=${AUCTION_PRICE}',
            burl: 'https://dsp.example/bill',
            lurl: 'ftp://nope',
            dealid: 'D1',
            w: 640,
            h: 360,
            adid: 'a9',
          }),
        ],
        { bidid: 'resp-7' },
      ),
      x,
    );
    expect(read).toEqual({
      ok: true,
      bid: {
        priceCpm: 3_250_000,
        bidId: 'resp-7',
        impId: '1',
        seat: 's1',
        adm: VAST,
        vast: readVastAnswer(VAST),
        nurl: 'https://dsp.example/win?p=${AUCTION_PRICE}',
        burl: 'https://dsp.example/bill',
        lurl: '',
        adid: 'a9',
        adomain: ['brand.example'],
        cat: ['IAB1-1'],
        crid: 'cr1',
        dealId: 'D1',
        w: 640,
        h: 360,
        mtype: 2,
        currency: 'USD',
        usdPerUnit: 1,
      },
      // the other valid bid is an offer too
      others: [expect.objectContaining({ priceCpm: 2_500_000, dealId: '' })],
    });
    // a bid of another seat wins on price; the bid's own id names it without a response bidid
    const second = readBidResponse(
      {
        id: 'r1',
        seatbid: [
          { seat: 'a', bid: [bid()] },
          { seat: 'b', bid: [bid({ id: 'bb', price: 9 })] },
        ],
      },
      x,
    );
    expect(second.ok && [second.bid.seat, second.bid.bidId]).toEqual(['b', 'bb']);
  });

  it('accepts markup served on the win notice (nurl, no adm) and banner HTML', () => {
    const nurlOnly = readBidResponse(answer([bid({ adm: undefined, nurl: 'https://dsp.example/win' })]), x);
    expect(nurlOnly.ok && [nurlOnly.bid.adm, nurlOnly.bid.vast]).toEqual(['', null]);
    const banner = readBidResponse(answer([bid({ adm: '<div>ad</div>', mtype: 1 })]), { ...x, media: 'banner' });
    expect(banner.ok && [banner.bid.adm, banner.bid.vast]).toEqual(['<div>ad</div>', null]);
    // HTML that merely mentions VAST is HTML
    const mentions = readBidResponse(answer([bid({ adm: '<div data-kind="<VAST>">ad</div>' })]), {
      ...x,
      media: 'banner',
    });
    expect(mentions.ok).toBe(true);
  });

  it('refuses every other answer with its reason', () => {
    const cases: [string, unknown, ResponseExpectation?][] = [
      ['invalid_response', parseBidResponse('{not json')],
      ['invalid_response', parseBidResponse('[1,2]')],
      ['invalid_response', { seatbid: [bid()] }],
      ['invalid_response', { id: 7, seatbid: [bid()] }],
      ['invalid_response', answer([]).seatbid && { id: 'r1', seatbid: 'x' }],
      ['invalid_response', { id: 'r1', seatbid: [{ seat: 's' }] }],
      ['invalid_response', answer(['not a bid'])],
      ['request_id_mismatch', answer([bid()], { id: 'r2' })],
      ['no_bid', { id: 'r1', nbr: 2 }],
      ['no_bid', { id: 'r1', seatbid: [] }],
      ['currency_EUR', answer([bid()], { cur: 'eur' })],
      ['currency_invalid', answer([bid()], { cur: 42 })],
      ['imp_id_mismatch', answer([bid({ impid: '2' })])],
      ['invalid_price', answer([bid({ price: 0 })])],
      ['invalid_price', answer([bid({ price: -1 })])],
      ['invalid_price', answer([bid({ price: '2.5' })])],
      ['invalid_price', answer([bid({ price: 5000 })])],
      ['wrong_media', answer([bid({ mtype: 1 })])],
      // a VAST answered for a banner without mtype: a video, not HTML
      ['wrong_media', answer([bid()]), { ...x, media: 'banner' }],
      [
        'wrong_media',
        answer([bid({ adm: `\uFEFF<?xml version="1.0"?>\n<!-- ad server 1 -->\n<vast version="2.0"><Ad/></vast>` })]),
        { ...x, media: 'banner' },
      ],
      ['no_markup', answer([bid({ adm: '', nurl: 'javascript:alert(1)' })])],
      ['bad_adm_not_vast', answer([bid({ adm: '<html></html>' })])],
      ['bad_adm_no_ad', answer([bid({ adm: '<VAST version="3.0"/>' })])],
      ['deal_not_offered', answer([bid({ dealid: 'D2' })])],
      ['private_auction', answer([bid()]), { ...x, privateAuction: true }],
      ['blocked_adomain', answer([bid({ adomain: ['BLOCKED.example'] })])],
      ['blocked_category', answer([bid({ cat: ['IAB25-3'] })])],
    ];
    for (const [expected, body, expectation] of cases)
      expect(reason(body, expectation), JSON.stringify(body)?.slice(0, 80)).toBe(expected);
  });

  it('hears every no-bid signal as no_bid: {}, no seatbid or an empty or null one, with or without id and nbr', () => {
    for (const body of [
      {},
      { nbr: 2 },
      { seatbid: [] },
      { id: 'r1', seatbid: null, nbr: 0 },
      { id: 'r1', seatbid: [], nbr: 2 },
      parseBidResponse('{}'),
    ]) {
      expect(reason(body), JSON.stringify(body)).toBe('no_bid');
    }
    // someone else's answer, bids or not, says so
    expect(reason({ id: 'r2', seatbid: [] })).toBe('request_id_mismatch');
  });

  it('reads a body that starts with a byte-order mark, and refuses trailing garbage', () => {
    expect(reason(parseBidResponse(`\uFEFF${JSON.stringify(answer([bid()]))}`))).toBe('ok');
    expect(reason(parseBidResponse(`${JSON.stringify(answer([bid()]))}\n`))).toBe('ok');
    expect(reason(parseBidResponse(`${JSON.stringify(answer([bid()]))}<!-- 3ms -->`))).toBe('invalid_response');
  });

  it("reads an unset mtype or cur (null, 0, empty) as absent, and Prebid Server's ext.prebid.type as the media", () => {
    expect(reason(answer([bid({ mtype: null })]))).toBe('ok');
    expect(reason(answer([bid({ mtype: 0 })]))).toBe('ok');
    expect(reason(answer([bid()], { cur: null }))).toBe('ok');
    expect(readBidResponse(answer([bid()], { cur: '' }), x)).toMatchObject({
      ok: true,
      bid: { currency: 'USD', priceCpm: 2_500_000 },
    });
    // a video bid whose markup is on the win notice, answered to a banner: not an iframe of VAST XML
    const videoByExt = bid({ adm: undefined, nurl: 'https://dsp.example/vast', ext: { prebid: { type: 'video' } } });
    expect(reason(answer([videoByExt]), { ...x, media: 'banner' })).toBe('wrong_media');
    expect(reason(answer([bid({ adm: '<div>ad</div>', ext: { prebid: { type: 'banner' } } })]))).toBe('wrong_media');
    expect(reason(answer([bid({ ext: { prebid: { type: 'video' } } })]))).toBe('ok');
    // mtype, the standard field, speaks first; a type Prebid does not name is no statement
    expect(reason(answer([bid({ mtype: 2, ext: { prebid: { type: 'banner' } } })]))).toBe('ok');
    expect(reason(answer([bid({ ext: { prebid: { type: 'constructor' } } })]))).toBe('ok');
  });

  it('keeps a valid bid beside refused ones', () => {
    expect(reason(answer([bid({ price: 0 }), bid({ impid: 'x' }), bid({ price: 1 })]))).toBe('ok');
  });

  it('gives back every valid bid, of every seat, the best first, and every refused bid it can tell; nothing more for a single bid', () => {
    const lurl = 'https://dsp.example/loss';
    const body = {
      id: 'r1',
      seatbid: [
        {
          seat: 'a',
          bid: [bid({ id: 'a1', price: 3 }), bid({ id: 'a2', price: 4, adomain: ['blocked.example'], lurl })],
        },
        { seat: 'b', bid: [bid({ id: 'b1', price: 5 }), bid({ id: 'b2', price: 2 }), bid({ id: 'b3', price: -1 })] },
      ],
    };
    const read = readBidResponse(body, x);
    expect(
      read.ok && [
        read.bid.bidId,
        read.others?.map((b) => `${b.seat}:${b.bidId}`),
        read.refusals?.map((r) => `${r.bid.bidId}:${r.reason}`),
      ],
    ).toEqual(['b1', ['a:a1', 'b:b2'], ['a2:blocked_adomain']]);
    // none valid: the first refused names the no-fill, and each is there to be told
    const refused = readBidResponse(answer([bid({ id: 'r1', dealid: 'NOPE' }), bid({ id: 'r2', cat: ['IAB25'] })]), x);
    expect(refused).toMatchObject({
      ok: false,
      reason: 'deal_not_offered',
      refused: { bidId: 'r1' },
      refusals: [
        { reason: 'deal_not_offered', bid: { bidId: 'r1' } },
        { reason: 'blocked_category', bid: { bidId: 'r2' } },
      ],
    });
    expect(Object.keys(readBidResponse(answer([bid()]), x))).toEqual(['ok', 'bid']);
  });
  it('reads at most MAX_BIDS_READ bids of a response, across its seats', () => {
    const many = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => bid({ id: `m${from + i}`, price: 1 + (from + i) / 1000 }));
    const body = {
      id: 'r1',
      seatbid: [
        { seat: 'a', bid: many(MAX_BIDS_READ - 1, 0) },
        { seat: 'b', bid: many(5, MAX_BIDS_READ - 1) },
      ],
    };
    const read = readBidResponse(body, x);
    // the first MAX_BIDS_READ are read (the best of them is the last read), the others never looked at
    expect(read.ok && [read.bid.bidId, 1 + (read.others?.length ?? 0)]).toEqual([
      `m${MAX_BIDS_READ - 1}`,
      MAX_BIDS_READ,
    ]);
  });

  it('gives back the refused bid, when it was read far enough, so that its loss notice can tell it why', () => {
    const lurl = 'https://dsp.example/loss?l=${AUCTION_LOSS}';
    const blocked = readBidResponse(
      answer([bid({ adomain: ['blocked.example'], lurl }), bid({ cat: ['IAB25'], lurl: 'https://dsp.example/other' })]),
      x,
    );
    expect(blocked).toMatchObject({
      ok: false,
      reason: 'blocked_adomain',
      refused: { lurl, priceCpm: 2_500_000, bidId: 'b1', adomain: ['blocked.example'] },
    });
    expect(readBidResponse(answer([bid({ dealid: 'NOPE', lurl })]), x)).toMatchObject({
      ok: false,
      reason: 'deal_not_offered',
      refused: { dealId: 'NOPE' },
    });
    // a bid without a readable price or for another impression is nobody's to tell
    expect(readBidResponse(answer([bid({ price: -1, lurl })]), x)).toEqual({ ok: false, reason: 'invalid_price' });
    expect(readBidResponse(answer([bid({ impid: '9', lurl })]), x)).toEqual({ ok: false, reason: 'imp_id_mismatch' });
  });

  it("converts a bid in another currency at the operator's rates, and refuses one without a rate", () => {
    const rates = parseCurrencyFile({ conversions: { USD: { EUR: 0.8 }, GBP: { USD: 1.25 } } });
    const eur = readBidResponse(answer([bid({ price: 4 })], { cur: 'EUR' }), { ...x, rates });
    expect(eur).toMatchObject({ ok: true, bid: { priceCpm: 5_000_000, currency: 'EUR', usdPerUnit: 1.25 } });
    expect(readBidResponse(answer([bid({ price: 2 })], { cur: 'gbp' }), { ...x, rates })).toMatchObject({
      ok: true,
      bid: { priceCpm: 2_500_000, currency: 'GBP' },
    });
    expect(reason(answer([bid()], { cur: 'JPY' }), { ...x, rates })).toBe('currency_JPY');
    expect(reason(answer([bid()], { cur: 'EUR' }))).toBe('currency_EUR');
    // the price cap holds in USD: 900 EUR is 1,125 USD
    expect(reason(answer([bid({ price: 900 })], { cur: 'EUR' }), { ...x, rates })).toBe('invalid_price');
  });
});
