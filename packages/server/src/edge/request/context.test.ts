import { describe, expect, it } from 'vitest';
import { type BidRequest, type Imp } from '@adplane/shared';
import { buildRequestContext } from './context.js';
import { contextOfBidRequest } from './openrtbContext.js';
import { readTagQuery } from './macros.js';
import { platformOf } from './userAgent.js';

const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ROKU = 'Roku/DVP-9.10 (519.10E04111A)';
const TIZEN = 'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36';

describe('tag macros', () => {
  it('reads filled macros and treats unfilled ones as absent', () => {
    const q = readTagQuery({ w: '640', h: '{{height}}', ip: '[IP]', domain: 'https://WWW.News.Example.com/a?b', gdpr: '1', dnt: 'true', cb: '${CB}' });
    expect(q.width).toBe(640);
    expect(q.height).toBe(0);
    expect(q.ip).toBe('');
    expect(q.domain).toBe('news.example.com');
    expect(q.gdpr).toBe(1);
    expect(q.dnt).toBe(1);
    expect(q.cb).toBe('');
  });

  it('survives garbage: arrays, huge and negative numbers, odd characters', () => {
    const q = readTagQuery({ w: ['-5', '7'], h: '99999999', device_type: 'x', domain: '<script>', app_bundle: 'a'.repeat(5000) });
    expect(q.width).toBe(0);
    expect(q.height).toBe(0);
    expect(q.deviceType).toBe(0);
    expect(q.domain).toBe('');
    expect(q.appBundle.length).toBe(255);
  });

  it("reads the ad lengths the player takes (min_dur and max_dur, or their long names), absent when unfilled or not a number", () => {
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
    const ctx = buildRequestContext({ ip: '8.8.8.8', w: '1920', ua: ROKU }, { remoteAddress: '127.0.0.1', userAgent: CHROME_WIN }, 0);
    expect(ctx.ip).toBe('8.8.8.8');
    expect(ctx.geo.country).toBe('US');
    expect(ctx.platform.device).toBe('smarttv');
    expect(ctx.playerSize).toBe('xlarge');
  });

  it('falls back to the connection address and User-Agent header', () => {
    const ctx = buildRequestContext({ w: '500', page_url: 'https://www.site.example.org/p' }, { remoteAddress: '::ffff:81.2.69.160', userAgent: CHROME_WIN }, 0);
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
    expect(buildRequestContext({}, { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN, userId: 'cookie-id' }, 0).userId).toBe('cookie-id');
    expect(buildRequestContext({}, { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN }, 0).userId).toBe('');
    const imp: Imp = { id: '1', banner: { w: 300, h: 250 } };
    const request = (user: unknown): BidRequest => ({ id: 'r', imp: [imp], site: { page: 'https://a.example/' }, ...(user ? { user } : {}) }) as BidRequest;
    const conn = { remoteAddress: '8.8.8.8', userAgent: CHROME_WIN, userId: 'cookie-id' };
    expect(contextOfBidRequest(request({ buyeruid: 'b', ext: { prebid: { buyeruids: { adplane: 'explicit', appnexus: 'x' } } } }), imp, conn, 0).userId).toBe('explicit');
    expect(contextOfBidRequest(request({ buyeruid: 'b', ext: { prebid: { buyeruids: { appnexus: 'x' } } } }), imp, conn, 0).userId).toBe('b');
    expect(contextOfBidRequest(request({ buyeruid: 7 }), imp, conn, 0).userId).toBe('cookie-id');
    expect(contextOfBidRequest(request(null), imp, { remoteAddress: '', userAgent: '' }, 0).userId).toBe('');
  });
});
