import { describe, expect, it } from 'vitest';
import { clientAds, schemaErrors } from '../../../test/vastSchema.js';
import { type InlineAd, renderEmpty, renderInline, renderWrapper, type Trackers } from './vastWriter.js';
import { VAST_VERSIONS } from './vastVersion.js';

const ev = (e: string) => `http://ads.test/ev?e=${e}&t=TOKEN`;
const trackers = (): Trackers => ({
  impression: [ev('impression'), 'http://demand.test/imp'],
  error: [`${ev('error')}&code=[ERRORCODE]`, 'http://demand.test/err'],
  events: (['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const).map((e) => [e, ev(e)]),
  clickTracking: ['http://demand.test/click'],
});

const video = (): InlineAd => ({
  id: 'c1-7',
  adSystem: 'adplane',
  title: 'Spring sale & more',
  advertiser: 'Northwind <Foods>',
  servingId: 'd-123',
  pricingCpm: 2_500_000,
  creativeId: '7',
  universalAdId: 'adplane-7',
  clickThrough: ev('click'),
  linear: { duration: 15, mediaFiles: [{ url: 'http://ads.test/media/demo.mp4', mime: 'video/mp4', width: 640, height: 360, bitrate: 500 }] },
  nonLinear: null,
  trackers: trackers(),
});

const display = (html: boolean): InlineAd => ({
  ...video(),
  linear: null,
  nonLinear: {
    width: 300,
    height: 250,
    resource: html ? { type: 'html', html: '<div>Hi ]]> there</div>' } : { type: 'image', url: 'http://ads.test/b.png', mime: 'image/png' },
  },
});

describe.each(VAST_VERSIONS)('VAST %s', (version) => {
  it('inline video validates and a VAST client reads media, trackers and click-through', () => {
    const xml = renderInline(version, video());
    expect(schemaErrors(version, xml)).toBe('');
    const { ads } = clientAds(xml);
    expect(ads).toHaveLength(1);
    const ad = ads[0] as { impressionURLTemplates: { url: string }[]; creatives: { mediaFiles: { fileURL: string }[]; trackingEvents: Record<string, string[]>; videoClickThroughURLTemplate: { url: string } }[] };
    expect(ad.impressionURLTemplates.map((i) => i.url)).toEqual([ev('impression'), 'http://demand.test/imp']);
    expect(ad.creatives[0]!.mediaFiles[0]!.fileURL).toBe('http://ads.test/media/demo.mp4');
    expect(ad.creatives[0]!.trackingEvents.complete).toEqual([ev('complete')]);
    expect(ad.creatives[0]!.videoClickThroughURLTemplate.url).toBe(ev('click'));
  });

  it.each([false, true])('inline display (html %s) validates', (html) => {
    const xml = renderInline(version, display(html));
    expect(schemaErrors(version, xml)).toBe('');
    expect(clientAds(xml).ads).toHaveLength(1);
  });

  it('wrapper validates and points to the third-party VAST', () => {
    const xml = renderWrapper(version, { id: 'w1', adSystem: 'adplane', servingId: 'd-1', tagUri: 'http://demand.test/vast?a=1&b=2', trackers: trackers() });
    expect(schemaErrors(version, xml)).toBe('');
    const ad = clientAds(xml).ads[0] as { nextWrapperURL: string };
    expect(ad.nextWrapperURL).toBe('http://demand.test/vast?a=1&b=2');
  });

  it('empty validates and carries our error URL where the version allows', () => {
    const xml = renderEmpty(version, [`${ev('error')}&code=[ERRORCODE]`]);
    expect(schemaErrors(version, xml)).toBe('');
    const { ads, errorURLTemplates } = clientAds(xml);
    expect(ads).toHaveLength(0);
    expect(errorURLTemplates.length).toBe(version.startsWith('4') ? 1 : 0);
  });

  it('a schema check that can fail: a document missing its Impression is refused', () => {
    const xml = renderInline(version, { ...video(), trackers: { ...trackers(), impression: [] } });
    expect(schemaErrors(version, xml)).not.toBe('');
  });
});

describe('sloppy URLs', () => {
  it('percent-encodes what a URI may not hold, so the document stays valid', () => {
    const xml = renderWrapper('4.2', { id: 'w', adSystem: 'adplane', servingId: 's', tagUri: 'http://demand.test/v?q=a b<c>"d"', trackers: trackers() });
    expect(schemaErrors('4.2', xml)).toBe('');
    expect((clientAds(xml).ads[0] as { nextWrapperURL: string }).nextWrapperURL).toBe('http://demand.test/v?q=a%20b%3Cc%3E%22d%22');
  });
});
