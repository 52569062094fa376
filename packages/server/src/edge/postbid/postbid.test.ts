import { describe, expect, it } from 'vitest';
import { type ChannelRow, type IvtRow, IvtInput } from '@adplane/shared';
import { clientAds, schemaErrors } from '../../../test/vastSchema.js';
import { type RequestContext } from '../request/context.js';
import { type Decision, TokenSigner } from '../tracking/trackingToken.js';
import { withImpressionPixels } from '../decision/adResponse.js';
import { VAST_VERSIONS } from '../vast/vastVersion.js';
import { renderInline, renderWrapper } from '../vast/vastWriter.js';
import { pixelImages } from '../decision/adMarkup.js';
import { impressionRef, readImpressionRef } from './impressionRef.js';
import { checkPostback, postbackKey, tenantOfPostbackKey } from '../doors/postback.js';
import { seedPostbidCap } from '../seeding/postbidCapSeed.js';
import { PostbidCap } from './postbidCap.js';
import { compilePostbid, type PostbidSnapshot } from '../snapshot/postbidPlan.js';
import { postbidDraw } from './postbidSampling.js';
import { postbidPixelUrl, PostbidStage } from './postbidStage.js';

const T = Date.UTC(2026, 10, 23, 12);
const signer = new TokenSigner('p'.repeat(32));
const ids = (n: number, prefix = 'dec') => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}`);

const pixel = (id: number, tenantId: number, over: Partial<IvtRow> = {}): IvtRow =>
  ({
    ...IvtInput.parse({
      name: `Pixel ${id}`,
      vendor: `Vendor ${id}`,
      urlTemplate: `https://v${id}.test/p?imp={{impression_id}}&ip={{ip}}&cb={{cachebuster}}`,
      stage: 'postbid',
      samplePercent: 100,
    }),
    id,
    tenantId,
    uid: null,
    archived: false,
    ...over,
  }) as IvtRow;
const channel = (id: number, tenantId: number, ivtIds: number[]) => ({ id, tenantId, ivtIds }) as unknown as ChannelRow;

function snapshotOf(
  percent: number,
  opts: { all?: boolean; granted?: boolean; maxImps?: number; pixels?: IvtRow[] } = {},
): PostbidSnapshot {
  return compilePostbid(
    [{ tenantId: 1, granted: opts.granted ?? true, percent, all: opts.all ?? false }],
    opts.pixels ?? [
      pixel(10, 1),
      pixel(11, 1, { samplePercent: 50 }),
      pixel(12, 1, { stage: 'prebid' }),
      pixel(13, 1, { status: 0 }),
      pixel(20, 2),
    ],
    [channel(100, 1, [10, 11, 12, 13, 20]), channel(101, 1, [])],
    opts.maxImps ?? 0,
  );
}

describe('post-bid sampling', () => {
  it('is deterministic per decision id and spreads evenly', () => {
    expect(postbidDraw('abc1', '')).toBe(postbidDraw('abc1', ''));
    expect(postbidDraw('abc1', '')).not.toBe(postbidDraw('abc1', '10'));
    const draws = ids(20_000).map((id) => postbidDraw(id, ''));
    for (const d of draws) expect(d >= 0 && d < 100).toBe(true);
    const under10 = draws.filter((d) => d < 10).length / draws.length;
    expect(under10).toBeGreaterThan(0.09);
    expect(under10).toBeLessThan(0.11);
  });

  it("adds the channel's live post-bid pixels to the account's share of decisions, each pixel at its own share", () => {
    const stage = new PostbidStage();
    const snap = snapshotOf(25);
    const decisions = ids(8_000);
    let carried = 0;
    let withHalfPixel = 0;
    for (const id of decisions) {
      const chosen = stage.choose(snap, { id: 100, tenantId: 1 }, id, T, false);
      const expected = postbidDraw(id, '') < 25;
      expect(chosen.trace.result).toBe(expected ? 'added' : 'sampled_out');
      if (!expected) continue;
      carried++;
      // pixel 10 at 100%, pixel 11 at 50% by its own draw; prebid, paused and other accounts' pixels never
      expect(chosen.pixels.map((p) => p.id)).toEqual(postbidDraw(id, '11') < 50 ? [10, 11] : [10]);
      if (chosen.pixels.length === 2) withHalfPixel++;
    }
    expect(carried / decisions.length).toBeGreaterThan(0.23);
    expect(carried / decisions.length).toBeLessThan(0.27);
    expect(withHalfPixel / carried).toBeGreaterThan(0.45);
    expect(withHalfPixel / carried).toBeLessThan(0.55);
    expect(stage.cap.used(1, T)).toBe(carried);
  });

  it('says why a decision carries none: not granted, none configured, every pixel sampled out', () => {
    const stage = new PostbidStage();
    const always = ids(200).find((id) => postbidDraw(id, '') < 100 && postbidDraw(id, '11') >= 50)!;
    expect(
      stage.choose(snapshotOf(100, { granted: false }), { id: 100, tenantId: 1 }, always, T, false).trace.result,
    ).toBe('not_enabled');
    expect(stage.choose(snapshotOf(100), { id: 101, tenantId: 1 }, always, T, false).trace.result).toBe(
      'none_configured',
    );
    expect(stage.choose(snapshotOf(0), { id: 100, tenantId: 1 }, always, T, false).trace).toMatchObject({
      result: 'sampled_out',
      percent: 0,
      source: 'channel',
    });
    const onlyHalf = snapshotOf(100, { pixels: [pixel(11, 1, { samplePercent: 50 })] });
    expect(stage.choose(onlyHalf, { id: 100, tenantId: 1 }, always, T, false).trace.result).toBe('pixels_sampled_out');
    expect(stage.cap.used(1, T)).toBe(0);
  });

  it("setPostbidAll gives every channel of the account all of the account's post-bid pixels", () => {
    const snap = snapshotOf(100, { all: true });
    const chosen = new PostbidStage().choose(
      snap,
      { id: 101, tenantId: 1 },
      ids(50).find((id) => postbidDraw(id, '11') < 50)!,
      T,
      false,
    );
    expect(chosen.trace).toMatchObject({ result: 'added', source: 'account' });
    expect(chosen.pixels.map((p) => p.id).sort()).toEqual([10, 11]);
  });
});

describe('post-bid monthly cap', () => {
  it('stops pixels at postbidMaxImps per account and calendar month (UTC), and starts again next month', () => {
    const stage = new PostbidStage();
    const snap = snapshotOf(100, { maxImps: 3, pixels: [pixel(10, 1)] });
    const results = ids(5).map((id) => stage.choose(snap, { id: 100, tenantId: 1 }, id, T, false).trace.result);
    expect(results).toEqual(['added', 'added', 'added', 'cap_reached', 'cap_reached']);
    // another account has its own count
    expect(stage.cap.used(2, T)).toBe(0);
    // test decisions are answered as live ones would be but use nothing up
    const fresh = new PostbidStage();
    for (const id of ids(10))
      expect(fresh.choose(snap, { id: 100, tenantId: 1 }, id, T, true).trace.result).toBe('added');
    expect(fresh.cap.used(1, T)).toBe(0);
    // 1 December, 00:00 UTC: a new month
    const december = Date.UTC(2026, 11, 1);
    expect(stage.choose(snap, { id: 100, tenantId: 1 }, 'next', december, false).trace).toMatchObject({
      result: 'added',
      monthUsed: 0,
    });
  });

  it("starts each account's month from the stats store's post-bid impressions so far; a store that fails leaves the count", async () => {
    const cap = new PostbidCap();
    const asked: string[] = [];
    const stats = {
      select: async (sql: string) => (
        asked.push(sql),
        [
          { tenant_id: 1, n: 41 },
          { tenant_id: 2, n: 0 },
        ]
      ),
    };
    const warnings: string[] = [];
    const log = { warn: (_: object, msg: string) => void warnings.push(msg) };
    expect(await seedPostbidCap(cap, stats, log, T)).toBe(2);
    expect(asked[0]).toContain("hour >= '2026-11-01 00:00:00'");
    expect(cap.used(1, T)).toBe(41);
    expect(cap.take(1, 42, T)).toBe('taken');
    expect(cap.take(1, 42, T)).toBe('cap_reached');
    const failing = { select: async () => Promise.reject(new Error('down')) };
    const other = new PostbidCap();
    expect(await seedPostbidCap(other, failing, log, T)).toBe(0);
    expect(other.used(1, T)).toBe(0);
    expect(warnings).toHaveLength(1);
  });

  it('0 is no cap (counted all the same); a seed only ever raises the month, and a seed of last month is not this one', async () => {
    const cap = new PostbidCap();
    for (let i = 0; i < 1000; i++) expect(cap.take(1, 0, T)).toBe('taken');
    expect(cap.used(1, T)).toBe(1000);
    const seeded = new PostbidCap();
    const seed = (tenantId: number, n: number, at: number) =>
      seedPostbidCap(seeded, { select: async () => [{ tenant_id: tenantId, n }] }, { warn: () => {} }, at);
    await seed(1, 7, T);
    await seed(1, 5, T);
    await seed(2, 9, Date.UTC(2026, 9, 20));
    expect(seeded.used(1, T)).toBe(7);
    expect(seeded.used(2, T)).toBe(0);
    expect(seeded.take(1, 8, T)).toBe('taken');
    expect(seeded.take(1, 8, T)).toBe('cap_reached');
    // while the account is in use: raised by its own exchange (its allowance kept)
    await seed(1, 20, T);
    expect(seeded.used(1, T)).toBe(20);
    expect(seeded.take(1, 21, T)).toBe('taken');
    expect(seeded.take(1, 21, T)).toBe('cap_reached');
  });
});

const ctx = {
  ip: '203.0.113.9',
  ua: 'Roku/DVP-12.0 (12.0.0.4182-88)',
  geo: { country: 'US', region: '', usState: '' },
  domain: 'news.example',
  query: {
    appBundle: 'com.example.tv',
    pageUrl: 'https://news.example/a?b=1&c=2',
    deviceId: '6d92078a-8246-4ba4-ae5b-76104861e7dc',
  },
} as unknown as RequestContext;
const decision: Decision = {
  id: 'Dx9',
  at: Math.floor(T / 1000),
  tenantId: 1,
  channelId: 100,
  subpublisherId: 5,
  tagId: 7,
  campaignId: 0,
  creativeId: 0,
  advertiserId: 3,
  country: 'US',
  device: 'CTV',
  os: 'Roku',
  appBundle: 'com.example.tv',
  domain: 'news.example',
  revenueCpm: 9_000_000,
  costCpm: 5_000_000,
  test: 0,
  integration: 'VAST',
  supplierId: 0,
  adexchangeId: 0,
  dealId: '',
  partner: '',
  marketplace: '',
  viewer: '',
  postbid: 1,
  arm: 'B',
};

describe('post-bid pixel URLs and the impression id', () => {
  it('fills every macro URL-encoded, the impression id signed, with no prices in it', () => {
    const ref = impressionRef(signer, decision);
    const url = postbidPixelUrl(
      'https://v.test/p?ip={{ip}}&ua={{user_agent}}&app={{app_bundle}}&d={{domain}}&u={{page_url}}&ifa={{device_id}}&ch={{channel_id}}&tag={{tag_id}}&cb={{cachebuster}}&geo={{country}}&imp={{impression_id}}',
      ctx,
      decision,
      ref,
    );
    const q = new URL(url).searchParams;
    expect(Object.fromEntries(q)).toEqual({
      ip: '203.0.113.9',
      ua: 'Roku/DVP-12.0 (12.0.0.4182-88)',
      app: 'com.example.tv',
      d: 'news.example',
      u: 'https://news.example/a?b=1&c=2',
      ifa: '6d92078a-8246-4ba4-ae5b-76104861e7dc',
      ch: '100',
      tag: '7',
      cb: 'Dx9',
      geo: 'US',
      imp: ref,
    });
    const read = readImpressionRef(signer, q.get('imp')!, decision.at + 60);
    expect(read).toEqual({
      ok: true,
      facts: expect.objectContaining({
        id: 'Dx9',
        tenantId: 1,
        channelId: 100,
        tagId: 7,
        country: 'US',
        appBundle: 'com.example.tv',
      }),
    });
    expect(JSON.stringify(read)).not.toContain('9000000');
    // not a tracking token: /ev refuses it
    expect(signer.verify(ref, decision.at)).toBeNull();
  });

  it('refuses forged, foreign-key, damaged and expired ids', () => {
    const ref = impressionRef(signer, decision);
    const [payload, sig] = ref.split('.') as [string, string];
    const other = Buffer.from(
      JSON.stringify(
        JSON.parse(Buffer.from(payload, 'base64url').toString()).map((v: unknown, i: number) => (i === 1 ? 2 : v)),
      ),
    ).toString('base64url');
    expect(readImpressionRef(signer, `${other}.${sig}`, decision.at)).toEqual({ ok: false, reason: 'forged' });
    expect(readImpressionRef(new TokenSigner('q'.repeat(32)), ref, decision.at)).toEqual({
      ok: false,
      reason: 'forged',
    });
    expect(readImpressionRef(signer, ref, decision.at + 25 * 3600)).toEqual({ ok: false, reason: 'expired' });
    for (const junk of ['', '.', 'abc', `${payload}.`, 'x'.repeat(3000), '%%.%%'])
      expect(readImpressionRef(signer, junk, decision.at).ok).toBe(false);
  });

  it('carries the A/B arm, and reads an id made before the arm was one of its facts as one without an arm', () => {
    expect(readImpressionRef(signer, impressionRef(signer, decision), decision.at)).toMatchObject({
      ok: true,
      facts: { arm: 'B' },
    });
    const [payload] = impressionRef(signer, decision).split('.') as [string, string];
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    expect(values.at(-1)).toBe('B');
    const old = Buffer.from(JSON.stringify(values.slice(0, -1))).toString('base64url');
    const read = readImpressionRef(signer, `${old}.${signer.attach(old, 'postbid-impression')}`, decision.at);
    expect(read).toMatchObject({ ok: true, facts: { id: 'Dx9', channelId: 100, arm: '' } });
  });

  it('reads an id only in the spelling impressionRef made: its signature and payload canonical base64url', () => {
    const ref = impressionRef(signer, decision);
    const [payload, sig] = ref.split('.') as [string, string];
    for (const spelling of [`${sig}=`, `${sig}==`, `${sig}!!`, `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`]) {
      expect(readImpressionRef(signer, `${payload}.${spelling}`, decision.at).ok, spelling).toBe(false);
    }
    // a payload spelled otherwise, signed as that text: the same bytes, still not an id this edge made
    const padded = `${payload}=`;
    expect(readImpressionRef(signer, `${padded}.${signer.attach(padded, 'postbid-impression')}`, decision.at)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(
      tenantOfPostbackKey(
        signer,
        `${postbackKey(signer, 1).slice(0, -1)}${postbackKey(signer, 1).endsWith('A') ? 'B' : 'A'}`,
      ),
    ).toBeNull();
  });

  it.each(VAST_VERSIONS)(
    'VAST %s: the pixels are extra <Impression>s, inline and wrapper, valid against the XSD',
    (version) => {
      const urls = [
        postbidPixelUrl(
          'https://v1.test/p?imp={{impression_id}}&ua={{user_agent}}&u={{page_url}}',
          ctx,
          decision,
          impressionRef(signer, decision),
        ),
        'https://v2.test/p?a=1&b=<2>',
      ];
      const trackers = {
        impression: ['http://ads.test/ev?e=impression&t=T'],
        error: ['http://ads.test/ev?e=error&t=T'],
        events: [['start', 'http://ads.test/ev?e=start&t=T']] as [string, string][],
        clickTracking: [],
      };
      const inline = withImpressionPixels(
        renderInline(version, {
          id: 'a',
          adSystem: 'adplane',
          title: 'T',
          advertiser: '',
          servingId: 's',
          pricingCpm: 1_000_000,
          creativeId: '1',
          universalAdId: 'u1',
          clickThrough: '',
          linear: {
            duration: 15,
            mediaFiles: [{ url: 'http://ads.test/m.mp4', mime: 'video/mp4', width: 640, height: 360, bitrate: 0 }],
          },
          nonLinear: null,
          trackers,
        }),
        urls,
      );
      const wrapper = withImpressionPixels(
        renderWrapper(version, {
          id: 'w',
          adSystem: 'adplane',
          servingId: 's',
          tagUri: 'http://third.test/vast',
          trackers,
        }),
        urls,
      );
      for (const xml of [inline, wrapper]) {
        expect(schemaErrors(version, xml)).toBe('');
        const ad = clientAds(xml).ads[0] as { impressionURLTemplates: { url: string }[] };
        expect(ad.impressionURLTemplates.map((t) => t.url)).toEqual([
          'http://ads.test/ev?e=impression&t=T',
          urls[0],
          'https://v2.test/p?a=1&b=%3C2%3E',
        ]);
      }
      expect(withImpressionPixels(inline, [])).toBe(inline);
    },
  );

  it('banner markup carries the pixels as hidden images', () => {
    expect(pixelImages(['https://v.test/p?a=1&b="x"'])).toBe(
      '<img src="https://v.test/p?a=1&amp;b=&quot;x&quot;" width="1" height="1" style="position:absolute;left:-9999px" alt="">',
    );
  });
});

describe('postback checks', () => {
  const ref = impressionRef(signer, decision);
  const now = decision.at + 60;
  const at = () => '';

  it("accepts the account's own impressions and names each wrong field", () => {
    expect(tenantOfPostbackKey(signer, postbackKey(signer, 1))).toBe(1);
    expect(tenantOfPostbackKey(signer, postbackKey(signer, 1).replace(/^1-/, '2-'))).toBeNull();
    expect(tenantOfPostbackKey(signer, 'nonsense')).toBeNull();
    expect(checkPostback(signer, 1, [{ id: ref, ivt: '1', reason: 'bot' }], now, at)).toMatchObject({
      ok: true,
      verdicts: [{ ivt: true, reason: 'bot', facts: { id: 'Dx9' } }],
    });
    expect(checkPostback(signer, 1, [{ id: ref, ivt: 0 }], now, at)).toMatchObject({
      ok: true,
      verdicts: [{ ivt: false }],
    });
    expect(checkPostback(signer, 2, [{ id: ref, ivt: 1 }], now, at)).toMatchObject({
      ok: false,
      status: 403,
      field: 'id',
    });
    expect(checkPostback(signer, 1, [{ ivt: 1 }], now, at)).toMatchObject({ ok: false, status: 400, field: 'id' });
    expect(checkPostback(signer, 1, [{ id: ref }], now, at)).toMatchObject({ ok: false, status: 400, field: 'ivt' });
    expect(checkPostback(signer, 1, [{ id: ref, ivt: 'maybe' }], now, at)).toMatchObject({
      ok: false,
      status: 400,
      field: 'ivt',
    });
    expect(checkPostback(signer, 1, [{ id: ref, ivt: 1, reason: 'x'.repeat(201) }], now, at)).toMatchObject({
      ok: false,
      field: 'reason',
    });
    expect(checkPostback(signer, 1, [{ id: 'made-up.id', ivt: 1 }], now, at)).toMatchObject({
      ok: false,
      status: 400,
      field: 'id',
    });
    expect(
      checkPostback(
        signer,
        1,
        [
          { id: ref, ivt: 1 },
          { id: ref, ivt: 2 },
        ],
        now,
        (i) => `${i}.`,
      ),
    ).toMatchObject({ ok: false, field: '1.ivt' });
    expect(checkPostback(signer, 1, [], now, at)).toMatchObject({ ok: false, field: 'body' });
  });
});
