import { describe, expect, it } from 'vitest';
import { type BidRequest, type Imp } from '@adplane/shared';
import { buildRequestContext } from './context.js';
import { contextOfBidRequest } from './openrtbContext.js';
import { readTagQuery } from './macros.js';
import { platformOf } from '../../ivt/userAgent.js';

const CHROME_WIN =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ROKU = 'Roku/DVP-9.10 (519.10E04111A)';
const TIZEN =
  'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36';

describe('tag macros', () => {
  it('reads filled macros and treats unfilled ones as absent', () => {
    const q = readTagQuery({
      w: '640',
      h: '{{height}}',
      ip: '[IP]',
      domain: 'https://WWW.News.Example.com/a?b',
      gdpr: '1',
      dnt: 'true',
      cb: '${CB}',
    });
    expect(q.width).toBe(640);
    expect(q.height).toBe(0);
    expect(q.ip).toBe('');
    expect(q.domain).toBe('news.example.com');
    expect(q.gdpr).toBe(1);
    expect(q.dnt).toBe(1);
    expect(q.cb).toBe('');
  });

  it('survives garbage: arrays, huge and negative numbers, odd characters', () => {
    const q = readTagQuery({
      w: ['-5', '7'],
      h: '99999999',
      device_type: 'x',
      domain: '<script>',
      app_bundle: 'a'.repeat(5000),
    });
    expect(q.width).toBe(0);
    expect(q.height).toBe(0);
    expect(q.deviceType).toBe(0);
    expect(q.domain).toBe('');
    expect(q.appBundle.length).toBe(255);
  });

  it('reads the ad lengths the player takes (min_dur and max_dur, or their long names), absent when unfilled or not a number', () => {
    expect(readTagQuery({ min_dur: '5', max_dur: '30' })).toMatchObject({ minDuration: 5, maxDuration: 30 });
    expect(readTagQuery({ min_duration: '6', maxduration: '15' })).toMatchObject({ minDuration: 6, maxDuration: 15 });
    expect(readTagQuery({ max_dur: '[MAX_DUR]', min_dur: '-3' })).toMatchObject({ minDuration: 0, maxDuration: 0 });
  });
});

describe('user agent', () => {
  it('names device, OS, browser and TV family with the reference ids', () => {
    expect(platformOf(CHROME_WIN)).toEqual({ device: 'desktop', os: 'windows', browser: 'chrome', tvFamily: '' });
    expect(platformOf(IPHONE)).toMatchObject({ device: 'mobile', os: 'ios', browser: 'safari' });
    expect(platformOf(ROKU)).toMatchObject({ device: 'smarttv', os: 'roku', tvFamily: 'roku' });
    expect(platformOf(TIZEN)).toMatchObject({ device: 'smarttv', os: 'tizen', tvFamily: 'tizen' });
    expect(platformOf('')).toEqual({ device: '', os: '', browser: '', tvFamily: '' });
  });
});

describe('request context', () => {
  it('takes the macros first, then the connection, and finds geo and player size', () => {
    const ctx = buildRequestContext(
      { ip: '8.8.8.8', w: '1920', ua: ROKU },
      { remoteAddress: '127.0.0.1', userAgent: CHROME_WIN },
      0,
    );
    expect(ctx.ip).toBe('8.8.8.8');
    expect(ctx.geo.country).toBe('US');
    expect(ctx.platform.device).toBe('smarttv');
    expect(ctx.playerSize).toBe('xlarge');
  });

  it('reads an X-Forwarded-For list in the ip macro as its leftmost entry, the viewer', () => {
    const ctx = buildRequestContext(
      { ip: '81.2.69.160, 10.0.0.7, 172.16.0.9', ua: ROKU },
      { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN },
      0,
    );
    expect(ctx.ip).toBe('81.2.69.160');
    expect(ctx.geo.country).toBe('GB');
  });

  it('falls back to the connection address and User-Agent header', () => {
    const ctx = buildRequestContext(
      { w: '500', page_url: 'https://www.site.example.org/p' },
      { remoteAddress: '::ffff:81.2.69.160', userAgent: CHROME_WIN },
      0,
    );
    expect(ctx.ip).toBe('81.2.69.160');
    expect(ctx.geo).toEqual({ country: 'GB', region: 'ENG', usState: '' });
    expect(ctx.platform.os).toBe('windows');
    expect(ctx.playerSize).toBe('medium');
    expect(ctx.domain).toBe('site.example.org');
  });

  it('gives no geo to private or malformed addresses', () => {
    const ctx = buildRequestContext({ ip: '10.0.0.1' }, { remoteAddress: 'nonsense', userAgent: '' }, 0);
    expect(ctx.geo.country).toBe('');
    expect(ctx.playerSize).toBe('');
  });

  it("carries adplane's id for the browser: the connection's cookie on a tag call; on a bid request the explicit buyer uids, then buyeruid, then the cookie", () => {
    expect(
      buildRequestContext({}, { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN, userId: 'cookie-id' }, 0).userId,
    ).toBe('cookie-id');
    expect(buildRequestContext({}, { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN }, 0).userId).toBe('');
    const imp: Imp = { id: '1', banner: { w: 300, h: 250 } };
    const request = (user: unknown): BidRequest =>
      ({ id: 'r', imp: [imp], site: { page: 'https://a.example/' }, ...(user ? { user } : {}) }) as BidRequest;
    const conn = { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN, userId: 'cookie-id' };
    expect(
      contextOfBidRequest(
        request({ buyeruid: 'b', ext: { prebid: { buyeruids: { adplane: 'explicit', appnexus: 'x' } } } }),
        imp,
        conn,
        0,
      ).userId,
    ).toBe('explicit');
    expect(
      contextOfBidRequest(request({ buyeruid: 'b', ext: { prebid: { buyeruids: { appnexus: 'x' } } } }), imp, conn, 0)
        .userId,
    ).toBe('b');
    expect(contextOfBidRequest(request({ buyeruid: 7 }), imp, conn, 0).userId).toBe('cookie-id');
    expect(contextOfBidRequest(request(null), imp, { remoteAddress: '', userAgent: '' }, 0).userId).toBe('');
  });
});

describe('privacy signals of a bid request', () => {
  const imp: Imp = { id: '1', banner: { w: 300, h: 250 } };
  const conn = { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN };
  const gdprOf = (regs: unknown) =>
    contextOfBidRequest({ id: 'r', imp: [imp], site: { page: 'https://a.example/' }, regs } as BidRequest, imp, conn, 0)
      .query.gdpr;

  it('reads gdpr from 2.6 regs.gdpr, else 2.5 regs.ext.gdpr, as a number, a quoted number or a boolean', () => {
    expect(gdprOf({ gdpr: 1 })).toBe(1);
    expect(gdprOf({ gdpr: '1' })).toBe(1);
    expect(gdprOf({ ext: { gdpr: '1' } })).toBe(1);
    expect(gdprOf({ ext: { gdpr: true } })).toBe(1);
    expect(gdprOf({ gdpr: 0, ext: { gdpr: 1 } })).toBe(0);
    expect(gdprOf({ gdpr: '0' })).toBe(0);
    expect(gdprOf({ gdpr: 'yes' })).toBeNull();
    expect(gdprOf(undefined)).toBeNull();
  });
});

describe('content categories', () => {
  const conn = { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN };
  const fromTag = (cat: string) => buildRequestContext({ content_cat: cat }, conn, 0).iabCategories;
  const imp: Imp = { id: '1', video: { w: 640, h: 360 } };
  const fromBid = (over: Partial<BidRequest>) =>
    contextOfBidRequest({ id: 'r', imp: [imp], ...over } as BidRequest, imp, conn, 0).iabCategories;

  it("reads a tag's content_cat as a list: split on commas, known IAB 1.0 codes only, each once, in the taxonomy's spelling", () => {
    expect(fromTag('IAB1-5')).toEqual(['IAB1-5']);
    expect(fromTag('IAB1,IAB2')).toEqual(['IAB1', 'IAB2']);
    expect(fromTag(' iab7-1 , IAB99,IAB7-1,,IAB19')).toEqual(['IAB7-1', 'IAB19']);
    expect(fromTag('[CONTENT_CAT]')).toEqual([]);
    expect(fromTag('IAB99')).toEqual([]);
    expect(buildRequestContext({}, conn, 0).iabCategories).toEqual([]);
  });

  it('shares one list between requests without categories, and between requests naming the same one category', () => {
    expect(fromTag('')).toBe(buildRequestContext({}, conn, 0).iabCategories);
    expect(fromTag('IAB1-5')).toBe(fromTag('IAB1-5'));
    expect(Object.isFrozen(fromTag('IAB1-5'))).toBe(true);
  });

  it("reads a bid request's site cat, sectioncat and pagecat and its content's cat, not just the content's first", () => {
    expect(
      fromBid({
        site: {
          cat: ['IAB1-5', 'IAB2'],
          sectioncat: ['IAB17'],
          pagecat: ['IAB17-3', 'IAB1-5'],
          content: { cat: ['IAB19-1', 'IAB20'] },
        },
      }),
    ).toEqual(['IAB1-5', 'IAB2', 'IAB17', 'IAB17-3', 'IAB19-1', 'IAB20']);
    expect(fromBid({ site: { cat: ['IAB3'] } })).toEqual(['IAB3']);
    expect(fromBid({ site: { content: { cat: ['IAB3-1'] } } })).toEqual(['IAB3-1']);
  });

  it("reads an app's cat and its content's cat", () => {
    expect(fromBid({ app: { bundle: 'com.example.tv', cat: ['IAB1-6'], content: { cat: ['IAB9'] } } })).toEqual([
      'IAB1-6',
      'IAB9',
    ]);
  });

  it('reads a list only in taxonomy 1 (cattax absent or 1), each object by its own cattax', () => {
    expect(fromBid({ site: { cattax: 1, cat: ['IAB1'] } })).toEqual(['IAB1']);
    // Content Taxonomy 2.0 ids are not IAB 1.0 codes, even where they look like one
    expect(
      fromBid({ site: { cattax: 2, cat: ['IAB1', '483'], pagecat: ['IAB2'], content: { cat: ['IAB3'] } } }),
    ).toEqual(['IAB3']);
    expect(fromBid({ app: { cat: ['IAB1'], content: { cattax: 6, cat: ['IAB3'] } } })).toEqual(['IAB1']);
  });

  it('reads garbage as no category', () => {
    expect(
      fromBid({ site: { cat: 'IAB1' as never, pagecat: [7, null, 'IAB1-1'] as never, content: { cat: {} as never } } }),
    ).toEqual(['IAB1-1']);
    expect(fromBid({})).toEqual([]);
  });
});
