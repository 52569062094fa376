import { type BidRequest } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { UNKNOWN_GEO } from '../request/geo.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { checkTraffic } from '../../ivt/checkTraffic.js';
import { trafficFactsOf } from './trafficFacts.js';

const noGeo = () => UNKNOWN_GEO;
const ROKU = 'Roku/DVP-12.5 (12.5.0.4178)';
const IFA = '6d92078a-8246-4ba4-ae5b-76104861e7dc';

describe('trafficFactsOf', () => {
  it("reads a VAST tag call: the stated address as stated, the channel's environment", () => {
    const ctx = buildRequestContext(
      {
        ip: '300.1.2.3',
        ua: ROKU,
        app_bundle: '151908',
        device_id: IFA,
        device_type: '3',
        app_store_url: 'https://channelstore.roku.com/details/151908',
      },
      { remoteAddress: '10.0.0.9', userAgent: 'x' },
      1_000,
      noGeo,
    );
    const facts = trafficFactsOf(ctx, { id: 'ch-uid', environment: 'ctv' });
    expect(facts).toEqual({
      origin: 'vast',
      source: 'ch-uid',
      ip: '300.1.2.3',
      ipFromConnection: false,
      ua: ROKU,
      environment: 'ctv',
      bundle: '151908',
      storeUrl: 'https://channelstore.roku.com/details/151908',
      deviceId: IFA,
      deviceIdType: '',
      lmt: null,
      atts: null,
      deviceType: 3,
      os: '',
      now: 1_000,
    });
    expect(checkTraffic(facts).reason).toBe('malformed_ip');
  });

  it('falls back to the connection when the tag states no address', () => {
    const ctx = buildRequestContext(
      { ua: ROKU, lmt: '1' },
      { remoteAddress: '::ffff:127.0.0.1', userAgent: 'x' },
      0,
      noGeo,
    );
    const facts = trafficFactsOf(ctx, { id: 'c', environment: 'web' });
    expect(facts).toMatchObject({ ip: '127.0.0.1', ipFromConnection: true, lmt: true });
    expect(checkTraffic(facts).reason).toBe('');
  });

  it('reads an OpenRTB request: app or site, ifa_type, lmt and the stated OS', () => {
    const req = {
      id: 'r1',
      imp: [{ id: '1', video: { w: 1920, h: 1080 } }],
      app: { bundle: 'B00ZV9PXP2', storeurl: 'https://www.amazon.com/dp/B00ZV9PXP2' },
      device: {
        ua: 'Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633.3445N; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.114 Mobile Safari/537.36',
        ip: '73.162.18.44',
        ifa: IFA,
        lmt: 0,
        devicetype: 3,
        os: 'Fire OS',
        ext: { ifa_type: 'afai' },
      },
    } as unknown as BidRequest;
    const ctx = contextOfBidRequest(req, req.imp[0]!, { remoteAddress: '', userAgent: '' }, 5, noGeo);
    const facts = trafficFactsOf(ctx, { id: 'supplier-7' });
    expect(facts).toMatchObject({
      origin: 'openrtb',
      source: 'supplier-7',
      environment: 'ctv',
      bundle: 'B00ZV9PXP2',
      deviceIdType: 'afai',
      lmt: false,
      os: 'Fire OS',
      deviceType: 3,
    });
    expect(checkTraffic(facts).reason).toBe('');
    const site = {
      ...req,
      app: undefined,
      site: { domain: 'news.example.org' },
      device: { ...req.device, devicetype: 2, lmt: undefined },
    } as unknown as BidRequest;
    expect(
      trafficFactsOf(contextOfBidRequest(site, site.imp[0]!, { remoteAddress: '', userAgent: '' }, 5, noGeo), {
        id: 's',
      }),
    ).toMatchObject({ environment: 'web', lmt: null });
  });

  it("reads iOS's ATT status (device.ext.atts): an all-zero IDFA is flagged only when it says authorized", () => {
    const ios =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
    const request = (ext: Record<string, unknown>) =>
      ({
        id: 'r1',
        imp: [{ id: '1', banner: { w: 320, h: 50 } }],
        app: { bundle: '284882215' },
        device: {
          ua: ios,
          ip: '73.162.18.44',
          ifa: '00000000-0000-0000-0000-000000000000',
          lmt: 0,
          devicetype: 4,
          os: 'iOS',
          ext,
        },
      }) as unknown as BidRequest;
    const factsOf = (ext: Record<string, unknown>) => {
      const req = request(ext);
      return trafficFactsOf(contextOfBidRequest(req, req.imp[0]!, { remoteAddress: '', userAgent: '' }, 5, noGeo), {
        id: 's',
      });
    };
    expect(factsOf({ atts: 0 })).toMatchObject({ atts: 0, lmt: false });
    expect(checkTraffic(factsOf({ atts: 0 })).reason).toBe('');
    expect(checkTraffic(factsOf({})).reason).toBe('');
    expect(factsOf({ atts: '3' }).atts).toBe(null);
    expect(factsOf({ atts: 7 }).atts).toBe(null);
    expect(checkTraffic(factsOf({ atts: 3 })).reason).toBe('zero_device_id');
  });
});
