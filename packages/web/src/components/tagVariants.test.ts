import { describe, expect, it } from 'vitest';
import { STANDARD_TAG_MACROS, vast2Macros, vastMacros } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import {
  channelTagPreview,
  curlBody,
  exampleBidRequest,
  macroQuery,
  pickVariant,
  supplierTagPreview,
  vastTagVariants,
} from './tagVariants.js';

// The tenant's macros as the server sends them: the shared standard list, then its own `channel_id`.
const user = makeUser('demand', {
  config: { host: 'https://ads.example.com/', landing: '', database: 'default' },
  vastParams: vastMacros(['channel_id']),
  vast2Params: vast2Macros(['channel_id']),
});

const paramsOf = (url: string) => [...new URL(url).searchParams.keys()];
const byKey = (uid: string, version = '4.2') => new Map(vastTagVariants(uid, version, user).map((v) => [v.key, v]));

describe('VAST tag variants', () => {
  it('gives each environment the macros its players fill, each a URL that parses', () => {
    const v = byKey('a1b2c3d4e5f60718');
    expect([...v.keys()]).toEqual(['ctv', 'app', 'web']);
    for (const variant of v.values()) {
      const url = new URL(variant.text);
      expect(url.origin + url.pathname).toBe('https://ads.example.com/vast/a1b2c3d4e5f60718');
      expect(variant.text).toContain('w={{width}}&h={{height}}&cb={{cachebuster}}');
      expect(paramsOf(variant.text)).toContain('channel_id'); // the tenant's own parameter goes everywhere
      expect(paramsOf(variant.text)).toContain('us_privacy');
    }
    const ctv = paramsOf(v.get('ctv')!.text);
    expect(ctv).toEqual(
      expect.arrayContaining(['device_type', 'device_id', 'ip', 'ua', 'app_bundle', 'app_store_url', 'content_genre']),
    );
    expect(ctv).not.toContain('page_url');
    expect(ctv).not.toContain('domain');
    const app = paramsOf(v.get('app')!.text);
    expect(app).toEqual(expect.arrayContaining(['app_bundle', 'app_store_url', 'device_id', 'app_name']));
    expect(app).not.toContain('page_url');
    // An app's player calls from the phone: the edge reads IP and user agent from the connection.
    for (const ctvOnly of ['device_type', 'ip', 'ua', 'content_genre']) expect(app).not.toContain(ctvOnly);
    expect(v.get('ctv')!.hint).toContain('advertising id (IFA), OpenRTB device type');
    expect(v.get('web')!.hint).toContain('site domain, page URL');
    const web = paramsOf(v.get('web')!.text);
    expect(web).toEqual(expect.arrayContaining(['page_url', 'domain']));
    for (const appOnly of ['app_bundle', 'app_store_url', 'device_id', 'device_type', 'ip', 'ua'])
      expect(web).not.toContain(appOnly);
  });

  it('follows the shared rules: every standard macro lands in exactly the environments it names', () => {
    const v = byKey('u1');
    for (const m of STANDARD_TAG_MACROS) {
      for (const env of ['ctv', 'app', 'web'] as const) {
        expect(paramsOf(v.get(env)!.text).includes(m.param), `${m.param} in ${env}`).toBe(m.environments.includes(env));
      }
    }
  });

  it('fills example values a player of that environment sends, URL-encoded', () => {
    const v = byKey('u1');
    const ctv = new URL(v.get('ctv')!.example!);
    expect(ctv.searchParams.get('device_type')).toBe('3');
    expect(ctv.searchParams.get('w')).toBe('1920');
    expect(ctv.searchParams.get('app_store_url')).toMatch(/^https:\/\//);
    expect(ctv.searchParams.get('ua')).toContain('Roku');
    expect(ctv.searchParams.has('channel_id')).toBe(false); // no example for the tenant's own parameter
    expect(v.get('ctv')!.example).not.toContain('{{');
    const app = new URL(v.get('app')!.example!);
    expect(app.searchParams.get('w')).toBe('640');
    expect(app.searchParams.get('app_bundle')).toBe('com.example.news');
    const web = new URL(v.get('web')!.example!);
    expect(web.searchParams.get('page_url')).toBe('https://example.com/watch/42');
    expect(web.searchParams.get('domain')).toBe('example.com');
  });

  it('a VAST 2.0 channel carries only the macros VAST 2 players fill', () => {
    const v2 = paramsOf(byKey('u1', '2.0').get('ctv')!.text);
    expect(v2).not.toContain('us_privacy');
    expect(v2).not.toContain('gdpr_consent');
    expect(v2).toContain('device_id');
  });

  it('leaves the query out when the tenant has no macros', () => {
    const bare = vastTagVariants('u1', '4.2', { ...user, vastParams: [] });
    expect(bare.map((v) => v.text)).toEqual([
      'https://ads.example.com/vast/u1',
      'https://ads.example.com/vast/u1',
      'https://ads.example.com/vast/u1',
    ]);
  });

  it('joins macros as param=macro pairs and skips blank ones', () => {
    expect(
      macroQuery([
        { param: 'w', macro: '{{width}}', description: '' },
        { param: '', macro: '{{x}}', description: '' },
      ]),
    ).toBe('w={{width}}');
  });
});

describe('VAST version of a tag', () => {
  it("asks for another version in the tag itself, first; the channel's own version needs nothing", () => {
    const model = channelTagPreview({ uid: 'u1', integration: 'VAST', environment: 'web', vastVersion: '4.2' }, user)!;
    expect(model.vastVersions).toMatchObject({ current: '4.2', options: ['2.0', '3.0', '4.0', '4.1', '4.2'] });
    expect(paramsOf(pickVariant(model, null).text)).not.toContain('vast_version');
    const v3 = model.vastVersions!.inVersion('3.0');
    const web = pickVariant(v3, 'web');
    expect(paramsOf(web.text)[0]).toBe('vast_version');
    expect(new URL(web.text).searchParams.get('vast_version')).toBe('3.0');
    expect(new URL(web.example!).searchParams.get('vast_version')).toBe('3.0');
    expect(v3.note).toContain('VAST 3.0');
    expect(v3.note).toContain('4.2');
    // VAST 2 players fill fewer macros: the tenant's VAST 2 list
    const v2 = pickVariant(model.vastVersions!.inVersion('2.0'), 'web');
    expect(paramsOf(v2.text)).not.toContain('us_privacy');
    expect(model.vastVersions!.inVersion('4.2').variants.map((v) => v.text)).toEqual(model.variants.map((v) => v.text));
  });
});

describe('channel tag preview', () => {
  it('opens a VAST channel on its own environment and says its VAST version', () => {
    const model = channelTagPreview({ uid: 'u1', integration: 'VAST', environment: 'ctv', vastVersion: '4.1' }, user)!;
    expect(model.title).toBe('VAST tag');
    expect(pickVariant(model, null).key).toBe('ctv');
    expect(pickVariant(model, 'web').key).toBe('web');
    expect(pickVariant(model, 'gone').key).toBe('ctv');
    expect(model.note).toContain('VAST 4.1');
  });

  it('gives an RTB channel its OpenRTB endpoint and a test call that counts nothing', () => {
    const model = channelTagPreview({ uid: 'u2', integration: 'RTB', environment: 'app', format: 'video' }, user)!;
    expect(pickVariant(model, null).text).toBe('https://ads.example.com/rtb/u2');
    const call = pickVariant(model, 'test').text;
    expect(call).toContain("curl -sS -X POST 'https://ads.example.com/rtb/u2'");
    const body = curlBody(call) as Record<string, unknown>;
    expect(body).toEqual(exampleBidRequest('app', 'video'));
    expect(body.test).toBe(1);
  });

  it('gives a PreBid channel the Prebid Server endpoint with the uid as stored request id', () => {
    const model = channelTagPreview({ uid: 'u3', integration: 'PreBid' }, user)!;
    expect(pickVariant(model, null).text.split('\n')).toEqual([
      'Endpoint: https://ads.example.com/openrtb2/auction',
      'Stored request id: u3',
      'Request ext: {"prebid":{"storedrequest":{"id":"u3"}}}',
    ]);
  });

  it('has no tag before the channel is saved', () => {
    expect(channelTagPreview({ uid: null, integration: 'VAST' }, user)).toBeNull();
    expect(channelTagPreview({ integration: 'RTB' }, user)).toBeNull();
  });
});

describe('example bid requests', () => {
  it('describe the environment from the shared example values', () => {
    const ctv = exampleBidRequest('ctv', 'video');
    expect(ctv).toMatchObject({
      app: { bundle: 'com.example.tv' },
      device: { devicetype: 3, ifa: expect.any(String) },
      imp: [{ video: { w: 1920, h: 1080 } }],
    });
    expect(ctv).not.toHaveProperty('site');
    const web = exampleBidRequest('web', 'display');
    expect(web).toMatchObject({
      site: { domain: 'example.com', page: 'https://example.com/watch/42' },
      device: { devicetype: 2 },
      imp: [{ banner: { w: 300, h: 250 } }],
    });
    expect(web).not.toHaveProperty('app');
    expect((web.device as Record<string, unknown>).ifa).toBeUndefined();
  });
});

describe('supplier endpoint preview', () => {
  it('shows the bid endpoint first, then a test call in the format the supplier sends', () => {
    const model = supplierTagPreview('9f3a', ['display'], 'ads.example.com');
    expect(pickVariant(model, null).text).toBe('https://ads.example.com/rtb/bid/9f3a');
    expect(new URL(pickVariant(model, null).text).pathname).toBe('/rtb/bid/9f3a');
    expect(curlBody(pickVariant(model, 'test').text)).toMatchObject({
      imp: [{ banner: { w: 300, h: 250 } }],
      site: { domain: 'example.com' },
    });
    expect(
      curlBody(pickVariant(supplierTagPreview('9f3a', ['display', 'video'], 'ads.example.com'), 'test').text),
    ).toMatchObject({ imp: [{ video: {} }], app: {} });
  });
});
