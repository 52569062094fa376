import { describe, expect, it } from 'vitest';
import { type Winner } from '../src/edge/auction/runAuction.js';
import { type DemandInline, readVastAnswer } from '../src/edge/vast/vastAnswer.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../src/edge/snapshot/types.js';
import { winnerDocument } from '../src/edge/decision/adResponse.js';
import { MAX_AGE_S } from '../src/edge/vast/adLifetime.js';
import { VAST_VERSIONS, type VastVersion } from '../src/edge/vast/vastVersion.js';
import { clientAds, schemaErrors } from './vastSchema.js';

/**
 * The VAST documents the ad server answers players with, as a real VAST client reads them
 * (@dailymotion/vast-client), in every version, each validated against its IAB XSD.
 */
const ORIGIN = 'https://ad.example';
const creative = (over: Partial<SnapCreative> = {}): SnapCreative => ({
  id: 7,
  tenantId: 1,
  name: 'Spot',
  advertiserId: 3,
  format: 'video',
  videoSource: 'media',
  vastUrl: '',
  duration: 15,
  displayType: 'image',
  imageUrl: '',
  html: '',
  mediaFiles: [
    { url: 'https://cdn.example/spot.mp4', mime: 'video/mp4', duration: 15, width: 1280, height: 720, bitrate: 2000 },
    {
      url: 'https://cdn.example/spot.m3u8',
      mime: 'application/x-mpegURL',
      duration: 15,
      width: 1920,
      height: 1080,
      bitrate: 0,
    },
  ],
  width: 0,
  height: 0,
  clickUrl: '',
  adomain: ['brand.example'],
  iabCategories: ['IAB8-5'],
  skipAfter: 0,
  ...over,
});
const campaign = {
  id: 5,
  tenantId: 1,
  name: 'Autumn',
  advertiserId: 3,
  advertiserName: 'Brand & Co',
  bidCpm: 4_000_000,
} as SnapCampaign;
const channel = (vastVersion: VastVersion) => ({ vastVersion }) as SnapChannel;
const ours = (c: SnapCreative) =>
  ({
    clearingCpm: 2_500_000,
    bid: {
      priceCpm: 4_000_000,
      markup: { kind: 'campaign', campaign, creative: c },
      tagId: 0,
      campaignId: 5,
      creativeId: c.id,
      advertiserId: 3,
    },
  }) as unknown as Winner;
const demand = (ad: DemandInline, tagId = 3) =>
  ({
    clearingCpm: 2_000_000,
    bid: { priceCpm: 2_000_000, markup: { kind: 'vast', ad }, tagId, campaignId: 0, creativeId: 0, advertiserId: 0 },
  }) as unknown as Winner;

type ClientCreative = {
  type: string;
  videoClickTrackingURLTemplates: { url: string }[];
  universalAdIds: { idRegistry: string; value: string }[];
};

const demandAnswer = (media: string) =>
  readVastAnswer(
    `<VAST version="3.0"><Ad id="a"><InLine><AdSystem>Partner</AdSystem><AdTitle>T</AdTitle><Impression><![CDATA[https://partner.example/imp]]></Impression><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${media}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`,
  ) as DemandInline;

describe.each(VAST_VERSIONS)('VAST %s', (version) => {
  it('an inline ad states when it expires (4.1+ <Expires>) before /ev stops honouring its token, so a prefetched ad is not played uncounted', () => {
    const docs = {
      video: winnerDocument(channel(version), ours(creative({ skipAfter: 5 })), ORIGIN, 'TOK', 'srv'),
      display: winnerDocument(
        channel(version),
        ours(
          creative({
            format: 'display',
            imageUrl: 'https://cdn.example/b.png',
            width: 300,
            height: 250,
            mediaFiles: [],
          }),
        ),
        ORIGIN,
        'TOK',
        'srv',
      ),
      demand: winnerDocument(
        channel(version),
        demand(demandAnswer('https://partner.example/one.mp4')),
        ORIGIN,
        'TOK',
        'srv',
      ),
    };
    for (const [kind, xml] of Object.entries(docs)) {
      expect(schemaErrors(version, xml), kind).toBe('');
      const [ad] = clientAds(xml).ads as { expires: number | null }[];
      if (version === '4.1' || version === '4.2') {
        // the ad's last event (up to 10 minutes in) must still find its token honoured
        expect(ad!.expires, kind).toBeGreaterThan(0);
        expect(ad!.expires!, kind).toBeLessThanOrEqual(MAX_AGE_S - 600);
      } else expect(xml, kind).not.toContain('<Expires>');
    }
  });

  it("a demand ad's own <Expires> (4.1+) is kept when it is sooner than ours, never a longer one", () => {
    const expiring = (seconds: string) =>
      readVastAnswer(
        `<VAST version="4.2"><Ad id="a"><InLine><AdSystem>Partner</AdSystem><Impression><![CDATA[https://partner.example/imp]]></Impression><AdServingId>x</AdServingId><AdTitle>T</AdTitle><Creatives><Creative><UniversalAdId idRegistry="ad-id.org">ABCD0001000H</UniversalAdId><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://partner.example/one.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives><Expires>${seconds}</Expires></InLine></Ad></VAST>`,
      ) as DemandInline;
    const expiresOf = (seconds: string) => {
      const xml = winnerDocument(channel(version), demand(expiring(seconds)), ORIGIN, 'TOK', 'srv');
      expect(schemaErrors(version, xml), seconds).toBe('');
      return (clientAds(xml).ads as { expires: number | null }[])[0]!.expires;
    };
    if (version === '4.1' || version === '4.2') {
      expect(expiresOf('3600')).toBe(3600);
      expect(expiresOf('999999')).toBe(MAX_AGE_S - 3600);
      // unreadable or zero: ours
      expect(expiresOf('soon')).toBe(MAX_AGE_S - 3600);
      expect(expiresOf('0')).toBe(MAX_AGE_S - 3600);
    } else expect(expiresOf('3600')).toBeNull();
  });

  it("a demand creative's several Universal Ad IDs are all kept where VAST allows several (4.2), the first elsewhere", () => {
    const twoIds = readVastAnswer(
      `<VAST version="4.2"><Ad id="a"><InLine><AdSystem>Partner</AdSystem><Impression><![CDATA[https://partner.example/imp]]></Impression><AdServingId>x</AdServingId><AdTitle>T</AdTitle><Creatives><Creative><UniversalAdId idRegistry="ad-id.org">ABCD0001000H</UniversalAdId><UniversalAdId idRegistry="clearcast.co.uk">CC/ABC/123</UniversalAdId><UniversalAdId idRegistry="">no registry</UniversalAdId><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://partner.example/one.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`,
    ) as DemandInline;
    const xml = winnerDocument(channel(version), demand(twoIds), ORIGIN, 'TOK', 'srv');
    expect(schemaErrors(version, xml)).toBe('');
    const creatives = (clientAds(xml).ads as { creatives: ClientCreative[] }[])[0]!.creatives;
    const ids = creatives[0]!.universalAdIds.map((u) => `${u.idRegistry}:${u.value}`);
    if (version === '4.2') expect(ids).toEqual(['ad-id.org:ABCD0001000H', 'clearcast.co.uk:CC/ABC/123']);
    else if (version === '4.0' || version === '4.1') expect(ids).toEqual(['ad-id.org:ABCD0001000H']);
    else expect(xml).not.toContain('UniversalAdId');
  });

  it("a creative that is a VAST URL is a wrapper that tracks its clicks, with or without a click URL of ours (the click-through is the wrapped ad's)", () => {
    for (const clickUrl of ['', 'https://brand.example/land']) {
      const xml = winnerDocument(
        channel(version),
        ours(
          creative({
            videoSource: 'vast',
            vastUrl: 'https://third.example/vast?cb=[CACHEBUSTING]',
            mediaFiles: [],
            clickUrl,
          }),
        ),
        ORIGIN,
        'TOK',
        'srv',
      );
      expect(schemaErrors(version, xml), clickUrl).toBe('');
      const [ad] = clientAds(xml).ads as { nextWrapperURL: string; creatives: ClientCreative[] }[];
      expect(ad!.nextWrapperURL).toBe('https://third.example/vast?cb=[CACHEBUSTING]');
      expect(
        ad!.creatives[0]!.videoClickTrackingURLTemplates.map((t) => t.url),
        clickUrl,
      ).toEqual([`${ORIGIN}/ev?e=click&t=TOK`]);
      expect(xml).not.toContain('<ClickThrough>');
    }
  });

  it("a demand's ad that names no Universal Ad ID is written as the IAB's unknown, not under an id its tag's other ads would share", () => {
    const ids = ['https://partner.example/one.mp4', 'https://partner.example/two.mp4'].map((media) => {
      const xml = winnerDocument(channel(version), demand(demandAnswer(media)), ORIGIN, 'TOK', 'srv');
      expect(schemaErrors(version, xml)).toBe('');
      return (clientAds(xml).ads[0] as { creatives: ClientCreative[] }).creatives[0]!.universalAdIds;
    });
    if (version.startsWith('4'))
      for (const id of ids) expect(id).toEqual([{ idRegistry: 'unknown', value: 'unknown' }]);
    else for (const id of ids) expect(id).toEqual([]);
  });
});
