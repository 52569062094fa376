import { describe, expect, it } from 'vitest';
import { ampConfig, prebidConfig, prebidTimeout } from './prebidConfig.js';

describe('prebidConfig', () => {
  it("points a display channel's banner ad unit at the Prebid Server endpoint, bidder adplane, params { channel }", () => {
    const text = prebidConfig({ uid: 'a1b2c3', format: 'display', timeoutMs: 800 }, 'ads.example.com/')!;
    expect(text).toContain("endpoint: 'https://ads.example.com/openrtb2/auction',");
    expect(text).toContain("syncEndpoint: 'https://ads.example.com/cookie_sync',");
    expect(text).toContain("bidders: ['adplane'],");
    expect(text).toContain("adapter: 'prebidServer',");
    expect(text).toContain('timeout: 800,');
    expect(text).toContain("bids: [{ bidder: 'adplane', params: { channel: 'a1b2c3' } }],");
    expect(text).toContain('banner: { sizes: [[300, 250]] }');
    expect(text).not.toContain('video:');
    expect(text).not.toContain('vastxml');
  });

  it('gives a video channel an instream ad unit and asks adplane to cache the VAST', () => {
    const text = prebidConfig({ uid: 'v1', format: 'video', timeoutMs: 3000 }, 'https://ads.example.com')!;
    expect(text).toContain("context: 'instream',");
    expect(text).toContain('playerSize: [[640, 360]]');
    expect(text).toContain('cache: { vastxml: { returnCreative: false } }');
    expect(text).toContain('timeout: 1500,');
    expect(text).not.toContain('banner:');
  });

  it('reads as JavaScript that really configures Prebid.js', () => {
    const calls: { setConfig?: unknown; adUnits?: unknown } = {};
    const pbjs = {
      que: { push: (fn: () => void) => fn() },
      setConfig: (c: unknown) => (calls.setConfig = c),
      addAdUnits: (u: unknown) => (calls.adUnits = u),
    };
    new Function('pbjs', prebidConfig({ uid: 'v1', format: 'video' }, 'https://ads.example.com')!)(pbjs);
    expect(calls.setConfig).toMatchObject({
      s2sConfig: [
        {
          accountId: 'v1',
          bidders: ['adplane'],
          enabled: true,
          endpoint: 'https://ads.example.com/openrtb2/auction',
          syncEndpoint: 'https://ads.example.com/cookie_sync',
          timeout: 1000,
        },
      ],
    });
    expect(calls.adUnits).toMatchObject([
      { mediaTypes: { video: { context: 'instream' } }, bids: [{ bidder: 'adplane', params: { channel: 'v1' } }] },
    ]);
  });

  it('has nothing before the channel is saved', () => {
    expect(prebidConfig({ uid: null, format: 'video' }, 'https://ads.example.com')).toBeNull();
    expect(prebidTimeout('x')).toBe(1000);
  });

  it("gives a display channel an amp-ad whose Real Time Config calls adplane's AMP endpoint with AMP's macros; none for video", () => {
    const text = ampConfig({ uid: 'a1b2c3', format: 'display' }, 'ads.example.com')!;
    expect(text).toMatch(/^<amp-ad width="300" height="250"/);
    const rtc = JSON.parse(/rtc-config='([^']+)'/.exec(text)![1]!) as { urls: string[]; timeoutMillis: number };
    const url = new URL(rtc.urls[0]!);
    expect(`${url.origin}${url.pathname}`).toBe('https://ads.example.com/openrtb2/amp');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      tag_id: 'a1b2c3',
      w: 'ATTR(width)',
      h: 'ATTR(height)',
      ms: 'ATTR(data-multi-size)',
      curl: 'CANONICAL_URL',
      timeout: 'TIMEOUT',
      gdpr_consent: 'CONSENT_STRING',
    });
    expect(rtc.timeoutMillis).toBe(1000);
    expect(ampConfig({ uid: 'v1', format: 'video' }, 'ads.example.com')).toBeNull();
    expect(ampConfig({ uid: null, format: 'display' }, 'ads.example.com')).toBeNull();
  });
});
