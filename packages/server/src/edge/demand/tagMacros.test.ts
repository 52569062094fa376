import { describe, expect, it } from 'vitest';
import { type SupplyChainNode } from '@adplane/shared';
import { buildRequestContext } from '../request/context.js';
import { fillTagUrl } from './tagMacros.js';

const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';
const NOW = Date.UTC(2026, 10, 25, 8, 15, 7, 127);
const NODE: SupplyChainNode = { asi: 'ads.northwind.test', sid: 'nw1-sub-2', hp: 1 };
const ctxOf = (query: Record<string, string>, ua = ANDROID_UA) =>
  buildRequestContext(query, { remoteAddress: '8.8.8.8', userAgent: ua }, NOW, () => ({
    country: 'US',
    region: '',
    usState: '',
  }));

describe("a demand tag's URL, filled as the player would", () => {
  it("fills the IAB's VAST 4 macros from the request, each value URL-encoded, lists comma-joined", () => {
    const ctx = ctxOf({
      ifa: 'a1b2c3d4-0000-4000-8000-000000000001',
      w: '640',
      h: '360',
      page_url: 'https://news.example.com/a?b=c',
      gdpr: '1',
      gdpr_consent: 'CPXx/RfA=',
      coppa: '1',
      lmt: '1',
      app_bundle: 'com.example.app',
    });
    const url = fillTagUrl(
      'https://dsp.test/vast?cb=[CACHEBUSTING]&ts=[TIMESTAMP]&ifa=[IFA]&ifat=[IFATYPE]&ip=[DEVICEIP]&ua=[DEVICEUA]&ss=[SERVERSIDE]&ps=[PLAYERSIZE]&page=[PAGEURL]&b=[APPBUNDLE]&lat=[LIMITADTRACKING]&reg=[REGULATIONS]&gc=[GDPRCONSENT]&vv=[VASTVERSIONS]&tx=[TRANSACTIONID]',
      ctx,
      'cafe01',
      NODE,
    );
    const q = new URL(url).searchParams;
    expect(q.get('cb')).toMatch(/^\d{8}$/);
    expect(q.get('ts')).toBe('2026-11-25T08:15:07.127+00:00');
    expect(q.get('ifa')).toBe('a1b2c3d4-0000-4000-8000-000000000001');
    expect(q.get('ifat')).toBe('aaid');
    expect(q.get('ip')).toBe('8.8.8.8');
    expect(q.get('ua')).toBe(ANDROID_UA);
    expect(q.get('ss')).toBe('1');
    expect(q.get('ps')).toBe('640,360');
    expect(q.get('page')).toBe('https://news.example.com/a?b=c');
    expect(q.get('b')).toBe('com.example.app');
    expect(q.get('lat')).toBe('1');
    expect(q.get('reg')).toBe('gdpr,coppa');
    expect(q.get('gc')).toBe('CPXx/RfA=');
    expect(q.get('vv')).toBe('2,3,5,6,7,8,11,12,13,14');
    expect(q.get('tx')).toMatch(/^[0-9a-f-]{36}$/);
    // encoded values, unencoded list commas
    expect(url).toContain('&ps=640,360&');
    expect(url).toContain('page=https%3A%2F%2Fnews.example.com%2Fa%3Fb%3Dc&');
  });

  it('writes -1 for a value the request did not give and for a macro adplane has no value for; leaves other brackets as they are', () => {
    const ctx = ctxOf(
      {},
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    );
    const url = fillTagUrl(
      'https://dsp.test/v?ifa=[IFA]&ifat=[IFATYPE]&ps=[PLAYERSIZE]&ll=[LATLONG]&bp=[BREAKPOSITION]&own=[PARTNER_ID]&x=[custom]&lat=[LIMITADTRACKING]',
      ctx,
      'cafe01',
      NODE,
    );
    expect(url).toBe('https://dsp.test/v?ifa=-1&ifat=-1&ps=-1&ll=-1&bp=-1&own=[PARTNER_ID]&x=[custom]&lat=0');
  });

  it("fills adplane's own {{macros}} beside the IAB's", () => {
    const ctx = ctxOf({ w: '300', h: '250' });
    expect(
      fillTagUrl('https://dsp.test/v?w={{width}}&cb={{cb}}&ps=[PLAYERSIZE]&unknown={{nope}}', ctx, 'cafe01', NODE),
    ).toBe('https://dsp.test/v?w=300&cb=cafe01&ps=300,250&unknown=');
  });

  it('gives {{schain}} the chain with our node appended (the SupplyChain spec, non-OpenRTB requests)', () => {
    const tag = 'https://dsp.test/v?schain={{schain}}';
    const schainOf = (query: Record<string, string>) =>
      new URL(fillTagUrl(tag, ctxOf(query), 'cafe01', NODE)).searchParams.get('schain');
    // a player's request without a chain: we are the first seller, the chain is complete
    expect(schainOf({})).toBe('1.0,1!ads.northwind.test,nw1-sub-2,1,,,');
    // a chain the player passed on: kept, ours appended
    expect(schainOf({ schain: '1.0,1!exchange1.com,1234%21abcd,1,,,' })).toBe(
      '1.0,1!exchange1.com,1234%21abcd,1,,,!ads.northwind.test,nw1-sub-2,1,,,',
    );
    // one we cannot read: ours alone, incomplete
    expect(schainOf({ schain: 'garbage' })).toBe('1.0,0!ads.northwind.test,nw1-sub-2,1,,,');
  });
});
