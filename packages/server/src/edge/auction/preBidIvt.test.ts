import { describe, expect, it } from 'vitest';
import { type BidRequest } from '@adplane/shared';
import { createTrafficCheckState } from '../../ivt/checkTraffic.js';
import { shippedTrafficLists } from '../../ivt/trafficLists.js';
import { buildRequestContext } from '../request/context.js';
import { UNKNOWN_GEO } from '../request/geo.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { channelIvtMode, tenantIvtMode } from '../snapshot/accounts.js';
import { type IvtMode, type SnapChannel, type SnapTenant } from '../snapshot/types.js';
import { PreBidIvt } from './preBidIvt.js';

const noGeo = () => UNKNOWN_GEO;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const HOME_IP = '73.158.1.1';
const CLOUD_IP = '52.94.1.1';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const IFA = '6d92078a-8246-4ba4-ae5b-76104861e7dc';

const channel = (ivt: IvtMode | undefined): SnapChannel => ({
  id: 1,
  uid: 'ch-1',
  tenantId: 1,
  subpublisherId: 0,
  name: 'Web',
  serving: true,
  integration: 'VAST',
  environment: 'web',
  format: 'video',
  vastVersion: '4.2',
  floorCpm: 0,
  payout: { type: 'revshare', percent: 70 },
  demandMode: 'auction',
  auctionPrice: 'first',
  timeoutMs: 1000,
  targeting: null,
  demand: [],
  idleTags: [],
  ...(ivt ? { ivt } : {}),
});
const vastCall = (ip: string, ua = CHROME) =>
  buildRequestContext({ ip, ua }, { remoteAddress: '127.0.0.1', userAgent: '' }, Date.now(), noGeo);

/** A stage whose /metrics counter is a list of what it counted. */
function stage(rate: { maxPerDevice?: number; maxPerIpUa?: number } = {}) {
  const counted: string[] = [];
  const ivt = new PreBidIvt(createTrafficCheckState({ lists: shippedTrafficLists(), rate }), (reason, blocked) => ({
    inc: () => counted.push(`${reason}:${blocked}`),
  }));
  return { ivt, counted };
}

describe('the pre-bid IVT stage', () => {
  it('leaves a channel that is not checked alone: no verdict, nothing counted', () => {
    const { ivt, counted } = stage();
    expect(ivt.check(channel(undefined), vastCall(CLOUD_IP, 'curl/8.4.0'), false)).toBeNull();
    expect(ivt.check(channel('off'), vastCall(CLOUD_IP, 'curl/8.4.0'), false)).toBeNull();
    expect(counted).toEqual([]);
  });

  it('flags with the first reason and says whether the channel blocks it; counts each flag in /metrics', () => {
    const { ivt, counted } = stage();
    expect(ivt.check(channel('count'), vastCall(HOME_IP), false)).toEqual({
      mode: 'count',
      reason: '',
      blocked: false,
    });
    expect(ivt.check(channel('block'), vastCall(HOME_IP), false)).toEqual({
      mode: 'block',
      reason: '',
      blocked: false,
    });
    expect(ivt.check(channel('count'), vastCall(CLOUD_IP), false)).toEqual({
      mode: 'count',
      reason: 'datacenter_ip',
      blocked: false,
    });
    expect(
      ivt.check(
        channel('block'),
        vastCall(HOME_IP, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
        false,
      ),
    ).toEqual({
      mode: 'block',
      reason: 'known_crawler',
      blocked: true,
    });
    expect(counted).toEqual(['datacenter_ip:false', 'known_crawler:true']);
  });

  it('checks a test decision the same way, but never counts it, in /metrics or towards a rate', () => {
    // a full user agent (Chrome's reduced one has a higher limit: every Android phone sends it)
    const { ivt, counted } = stage({ maxPerIpUa: 2 });
    for (let i = 0; i < 5; i++) expect(ivt.check(channel('block'), vastCall(HOME_IP, IPHONE), true)!.reason).toBe('');
    expect(ivt.check(channel('block'), vastCall(CLOUD_IP), true)).toMatchObject({
      reason: 'datacenter_ip',
      blocked: true,
    });
    expect(counted).toEqual([]);
    // the live requests of the same viewer start from zero
    expect(ivt.check(channel('block'), vastCall(HOME_IP, IPHONE), false)!.reason).toBe('');
    expect(ivt.check(channel('block'), vastCall(HOME_IP, IPHONE), false)!.reason).toBe('');
    expect(ivt.check(channel('block'), vastCall(HOME_IP, IPHONE), false)).toMatchObject({
      reason: 'ip_ua_rate',
      blocked: true,
    });
  });

  it('checks an OpenRTB request once for all its impressions on one source, so that the rate counts requests', () => {
    const { ivt } = stage({ maxPerDevice: 2 });
    const request = (): BidRequest => ({
      id: 'r',
      imp: [
        { id: '1', video: {} },
        { id: '2', video: {} },
        { id: '3', video: {} },
      ],
      site: { domain: 'news.example' },
      device: { ua: CHROME, ip: HOME_IP, ifa: IFA, lmt: 0 },
    });
    const impsOf = (r: BidRequest) =>
      r.imp.map(
        (imp) =>
          ivt.check(
            channel('block'),
            contextOfBidRequest(r, imp, { remoteAddress: '', userAgent: '' }, Date.now(), noGeo),
            false,
          )!.reason,
      );
    expect(impsOf(request())).toEqual(['', '', '']);
    expect(impsOf(request())).toEqual(['', '', '']);
    expect(impsOf(request())).toEqual(['device_rate', 'device_rate', 'device_rate']);
  });
});

describe('which requests are checked (the account and channel flags)', () => {
  const account = (showCheckIVT: boolean, setCheckIVTAll: boolean, blockIVT: boolean) =>
    tenantIvtMode({ showCheckIVT, setCheckIVTAll, blockIVT });
  const tenant = (ivt: IvtMode): SnapTenant => ({ id: 1, name: 't', timezone: 0, showDsp: false, ivt });

  it("takes the account's options only while the admin grants them (showCheckIVT); blockIVT checks too", () => {
    expect(account(false, true, true)).toBe('off');
    expect(account(true, false, false)).toBe('off');
    expect(account(true, true, false)).toBe('count');
    expect(account(true, false, true)).toBe('block');
    expect(account(true, true, true)).toBe('block');
  });

  it("lets a channel's own blockIVT block whatever the account says", () => {
    expect(channelIvtMode(tenant('off'), true)).toBe('block');
    expect(channelIvtMode(tenant('count'), true)).toBe('block');
    expect(channelIvtMode(tenant('count'), false)).toBe('count');
    expect(channelIvtMode(tenant('block'), false)).toBe('block');
    expect(channelIvtMode(undefined, false)).toBe('off');
  });
});
