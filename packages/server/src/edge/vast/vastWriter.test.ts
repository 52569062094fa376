import { describe, expect, it } from 'vitest';
import { clientAds, schemaErrors } from '../../../test/vastSchema.js';
import {
  eventIn,
  type InlineAd,
  renderEmpty,
  renderInline,
  renderWrapper,
  type TrackingEvent,
  type Trackers,
} from './vastWriter.js';
import { VAST_VERSIONS } from './vastVersion.js';

const ev = (e: string) => `http://ads.test/ev?e=${e}&t=TOKEN`;
const trackers = (): Trackers => ({
  impression: [ev('impression'), 'http://demand.test/imp'],
  error: [`${ev('error')}&code=[ERRORCODE]`, 'http://demand.test/err'],
  events: (['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const).map((e) => [e, ev(e)]),
  clickTracking: ['http://demand.test/click'],
});

/** Every linear event a demand's VAST of any version may carry. */
const DEMAND_EVENTS = [
  'creativeView',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'mute',
  'unmute',
  'pause',
  'resume',
  'rewind',
  'skip',
  'fullscreen',
  'exitFullscreen',
  'playerExpand',
  'playerCollapse',
  'closeLinear',
  'close',
  'loaded',
  'otherAdInteraction',
  'interactiveStart',
  'acceptInvitation',
  'acceptInvitationLinear',
  'expand',
  'collapse',
  'adExpand',
  'adCollapse',
  'minimize',
  'timeSpentViewing',
  'overlayViewDuration',
];

describe('eventIn', () => {
  it("renames VAST 4's player events to 2.0 and 3.0's and back, closeLinear to close where there is no closeLinear, and drops what a version lacks", () => {
    expect(eventIn('4.2', 'fullscreen')).toBe('playerExpand');
    expect(eventIn('4.1', 'exitFullscreen')).toBe('playerCollapse');
    expect(eventIn('3.0', 'playerCollapse')).toBe('exitFullscreen');
    expect(eventIn('2.0', 'playerCollapse')).toBeNull();
    expect(eventIn('2.0', 'closeLinear')).toBe('close');
    expect(eventIn('4.0', 'closeLinear')).toBe('close');
    expect(eventIn('4.1', 'closeLinear')).toBe('closeLinear');
    expect(eventIn('2.0', 'skip')).toBeNull();
    expect(eventIn('4.0', 'loaded')).toBeNull();
    expect(eventIn('4.2', 'interactiveStart')).toBe('interactiveStart');
  });

  it("keeps 2.0 and 3.0's expand, collapse and acceptInvitation under VAST 4's names, and 4.1 has no acceptInvitationLinear nor timeSpentViewing", () => {
    expect(eventIn('4.2', 'expand')).toBe('adExpand');
    expect(eventIn('4.0', 'collapse')).toBe('adCollapse');
    expect(eventIn('2.0', 'adExpand')).toBe('expand');
    expect(eventIn('2.0', 'acceptInvitation')).toBe('acceptInvitation');
    expect(eventIn('4.2', 'acceptInvitation')).toBe('acceptInvitation');
    expect(eventIn('3.0', 'acceptInvitationLinear')).toBe('acceptInvitationLinear');
    expect(eventIn('4.0', 'acceptInvitationLinear')).toBe('acceptInvitationLinear');
    expect(eventIn('4.1', 'acceptInvitationLinear')).toBe('acceptInvitation');
    expect(eventIn('4.0', 'timeSpentViewing')).toBe('timeSpentViewing');
    expect(eventIn('4.2', 'timeSpentViewing')).toBeNull();
  });
});

const video = (): InlineAd => ({
  id: 'c1-7',
  adSystem: 'adplane',
  title: 'Spring sale & more',
  advertiser: 'Northwind <Foods>',
  categories: [
    { authority: 'https://iabtechlab.com/standards/content-taxonomy', code: 'IAB8-5' },
    { authority: 'iabtechlab.com', code: '232' },
  ],
  servingId: 'd-123',
  pricingCpm: 2_500_000,
  creativeId: '7',
  universalAdId: 'adplane-7',
  clickThrough: ev('click'),
  linear: {
    duration: 15,
    mediaFiles: [{ url: 'http://ads.test/media/demo.mp4', mime: 'video/mp4', width: 640, height: 360, bitrate: 500 }],
  },
  nonLinear: null,
  trackers: trackers(),
});

const display = (html: boolean): InlineAd => ({
  ...video(),
  linear: null,
  nonLinear: {
    width: 300,
    height: 250,
    resource: html
      ? { type: 'html', html: '<div>Hi ]]> there</div>' }
      : { type: 'image', url: 'http://ads.test/b.png', mime: 'image/png' },
  },
});

describe.each(VAST_VERSIONS)('VAST %s', (version) => {
  it('inline video validates and a VAST client reads media, trackers and click-through', () => {
    const xml = renderInline(version, video());
    expect(schemaErrors(version, xml)).toBe('');
    const { ads } = clientAds(xml);
    expect(ads).toHaveLength(1);
    const ad = ads[0] as {
      impressionURLTemplates: { url: string }[];
      creatives: {
        mediaFiles: { fileURL: string }[];
        trackingEvents: Record<string, string[]>;
        videoClickThroughURLTemplate: { url: string };
      }[];
    };
    expect(ad.impressionURLTemplates.map((i) => i.url)).toEqual([ev('impression'), 'http://demand.test/imp']);
    expect(ad.creatives[0]!.mediaFiles[0]!.fileURL).toBe('http://ads.test/media/demo.mp4');
    expect(ad.creatives[0]!.trackingEvents.complete).toEqual([ev('complete')]);
    expect(ad.creatives[0]!.videoClickThroughURLTemplate.url).toBe(ev('click'));
    // whom the ad is for (3.0+), and what it is about (VAST 4's Category, with its authority)
    const read = ads[0] as { advertiser: { value: string } | null; categories: { authority: string; value: string }[] };
    expect(read.advertiser?.value ?? null).toBe(version === '2.0' ? null : 'Northwind <Foods>');
    expect(read.categories.map((c) => `${c.authority} ${c.value}`)).toEqual(
      version.startsWith('4') ? ['https://iabtechlab.com/standards/content-taxonomy IAB8-5', 'iabtechlab.com 232'] : [],
    );
  });

  it.each([false, true])('inline display (html %s) validates', (html) => {
    const xml = renderInline(version, display(html));
    expect(schemaErrors(version, xml)).toBe('');
    expect(clientAds(xml).ads).toHaveLength(1);
  });

  it('wrapper validates and points to the third-party VAST', () => {
    const xml = renderWrapper(version, {
      id: 'w1',
      adSystem: 'adplane',
      servingId: 'd-1',
      tagUri: 'http://demand.test/vast?a=1&b=2',
      trackers: trackers(),
    });
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

  it("keeps a demand's ad as it was: every linear event under the version's name, progress offsets, skip offset, VPAID media, viewability and verification vendors", () => {
    const demand: InlineAd = {
      ...video(),
      linear: {
        duration: 30,
        skipOffset: '00:00:05',
        adParameters: { text: '{"placement":"a<b"}', xmlEncoded: false },
        icons: [
          {
            program: 'AdChoices',
            width: 77,
            height: 15,
            xPosition: 'right',
            yPosition: 'top',
            offset: '00:00:01',
            duration: '',
            apiFramework: '',
            resource: { type: 'static', url: 'https://icons.test/adchoices.png', creativeType: 'image/png' },
            clickThrough: 'https://privacy.test/',
            clickTracking: ['https://icons.test/click'],
            viewTracking: ['https://icons.test/view'],
          },
          {
            program: 'Other',
            width: 20,
            height: 20,
            xPosition: '',
            yPosition: '',
            offset: '',
            duration: '',
            apiFramework: '',
            resource: { type: 'html', html: '<b>i</b>' },
            clickThrough: '',
            clickTracking: [],
            viewTracking: [],
          },
        ],
        mediaFiles: [
          {
            url: 'http://demand.test/spot.mp4',
            mime: 'video/mp4',
            width: 1280,
            height: 720,
            bitrate: 2000,
            codec: 'H.264',
          },
          {
            url: 'http://demand.test/vpaid.js',
            mime: 'application/javascript',
            width: 640,
            height: 360,
            bitrate: 0,
            apiFramework: 'VPAID',
          },
        ],
      },
      trackers: {
        ...trackers(),
        events: [
          ...DEMAND_EVENTS.map((e): TrackingEvent => [e, `http://demand.test/t?e=${e}`]),
          ['progress', 'http://demand.test/t?e=progress5', '00:00:05'],
          ['progress', 'http://demand.test/t?e=progress50', '50%'],
          ['progress', 'http://demand.test/t?e=noOffset'],
          ['start', 'http://demand.test/t?e=badOffset', 'soon'],
        ],
        viewable: {
          viewable: ['http://verify.test/v'],
          notViewable: ['http://verify.test/nv'],
          undetermined: ['http://verify.test/vu'],
        },
        verifications: [
          {
            vendor: 'iabtechlab.com-omid',
            javaScript: [{ url: 'https://verify.test/omid.js', apiFramework: 'omid', browserOptional: 'true' }],
            executable: [],
            tracking: [['verificationNotExecuted', 'https://verify.test/ne?code=[REASON]']],
            parameters: '{"campaign":"a&b"}',
          },
        ],
      },
    };
    demand.companions = {
      required: 'any',
      list: [
        {
          width: 300,
          height: 250,
          id: 'c1',
          apiFramework: '',
          adSlotId: 'side',
          resource: { type: 'static', url: 'https://demand.test/c300.png', creativeType: 'image/png' },
          altText: 'Spring & more',
          clickThrough: 'https://brand.test/c',
          clickTracking: [['ct1', 'https://demand.test/cclick']],
          creativeView: ['https://demand.test/cview'],
          adParameters: '',
        },
        {
          width: 728,
          height: 90,
          id: '',
          apiFramework: '',
          adSlotId: '',
          resource: { type: 'html', html: '<a href="#">x</a>' },
          altText: '',
          clickThrough: '',
          clickTracking: [],
          creativeView: [],
          adParameters: 'p=1',
        },
      ],
    };
    const xml = renderInline(version, demand);
    expect(schemaErrors(version, xml)).toBe('');
    const companions = (
      clientAds(xml).ads[0] as {
        creatives: {
          type: string;
          variations?: {
            staticResources: { url: string }[];
            htmlResources: string[];
            companionClickThroughURLTemplate: string | null;
            companionClickTrackingURLTemplates: { url: string }[];
            trackingEvents: Record<string, string[]>;
            altText: string | null;
          }[];
          required: string | null;
        }[];
      }
    ).creatives.find((c) => c.type === 'companion')!;
    expect(companions.variations!.map((v) => v.staticResources[0]?.url ?? v.htmlResources[0])).toEqual([
      'https://demand.test/c300.png',
      '<a href="#">x</a>',
    ]);
    expect(companions.variations![0]).toMatchObject({
      companionClickThroughURLTemplate: 'https://brand.test/c',
      altText: 'Spring & more',
      trackingEvents: { creativeView: ['https://demand.test/cview'] },
    });
    expect(companions.variations![0]!.companionClickTrackingURLTemplates.map((t) => t.url)).toEqual(
      version.startsWith('4') ? ['https://demand.test/cclick'] : [],
    );
    expect(companions.required).toBe(version === '2.0' ? null : 'any');
    const ad = clientAds(xml).ads[0] as {
      adVerifications: {
        resource: string;
        vendor: string;
        apiFramework: string;
        parameters: string;
        trackingEvents: Record<string, string[]>;
      }[];
      viewableImpression: { viewable: string[]; notViewable: string[]; viewUndetermined: string[] }[];
      creatives: {
        skipDelay: number | null;
        trackingEvents: Record<string, string[]>;
        mediaFiles: { fileURL: string; apiFramework: string | null; codec: string | null }[];
      }[];
    };
    const creative = (ad.creatives as unknown as { type: string }[]).find(
      (c) => c.type === 'linear',
    ) as unknown as (typeof ad.creatives)[number];
    const v2 = version === '2.0';
    const v4 = version.startsWith('4');
    // the events the version names, under its names; none it lacks (the XSD check above)
    expect(Object.keys(creative.trackingEvents)).toEqual(
      expect.arrayContaining([
        'start',
        'complete',
        'pause',
        'resume',
        'rewind',
        'mute',
        'unmute',
        'creativeView',
        'close',
      ]),
    );
    expect(creative.trackingEvents[v4 ? 'playerExpand' : 'fullscreen']).toEqual([
      'http://demand.test/t?e=fullscreen',
      'http://demand.test/t?e=playerExpand',
    ]);
    expect(creative.trackingEvents.skip).toEqual(v2 ? undefined : ['http://demand.test/t?e=skip']);
    // progress: with its offset from 3.0 on, and never without one
    expect(creative.trackingEvents['progress-5']).toEqual(v2 ? undefined : ['http://demand.test/t?e=progress5']);
    expect(creative.trackingEvents['progress-50%']).toEqual(v2 ? undefined : ['http://demand.test/t?e=progress50']);
    expect(xml).not.toContain('noOffset');
    expect(creative.trackingEvents.start).toContain('http://demand.test/t?e=badOffset');
    expect(creative.skipDelay).toBe(v2 ? null : 5);
    expect(creative.mediaFiles.map((m) => [m.apiFramework, m.codec])).toEqual([
      [null, v2 ? null : 'H.264'],
      ['VPAID', null],
    ]);
    // icons from 3.0 on (one in 4.0 and 4.1, whose XSDs allow one), AdParameters in every version
    const icons = (
      creative as unknown as {
        icons: {
          program: string;
          staticResource: string | null;
          iconClickThroughURLTemplate: string | null;
          iconViewTrackingURLTemplate: string;
        }[];
      }
    ).icons;
    expect(icons.map((i) => i.program)).toEqual(
      v2 ? [] : version === '4.0' || version === '4.1' ? ['AdChoices'] : ['AdChoices', 'Other'],
    );
    if (!v2)
      expect(icons[0]).toMatchObject({
        staticResource: 'https://icons.test/adchoices.png',
        iconClickThroughURLTemplate: 'https://privacy.test/',
        iconViewTrackingURLTemplate: 'https://icons.test/view',
      });
    expect((creative as unknown as { adParameters: { value: string } | string | null }).adParameters).toEqual(
      expect.objectContaining({ value: '{"placement":"a<b"}' }),
    );
    // verification vendors in every version (4.1+ in AdVerifications, before that in an Extension), viewability in VAST 4
    expect(ad.adVerifications).toEqual([
      expect.objectContaining({
        resource: 'https://verify.test/omid.js',
        vendor: 'iabtechlab.com-omid',
        apiFramework: 'omid',
        parameters: '{"campaign":"a&b"}',
        trackingEvents: { verificationNotExecuted: ['https://verify.test/ne?code=[REASON]'] },
      }),
    ]);
    expect(xml.includes('<Extension type="AdVerifications">')).toBe(version !== '4.1' && version !== '4.2');
    expect(ad.viewableImpression).toEqual(
      v4
        ? [
            expect.objectContaining({
              viewable: ['http://verify.test/v'],
              notViewable: ['http://verify.test/nv'],
              viewUndetermined: ['http://verify.test/vu'],
            }),
          ]
        : [],
    );
  });

  it("a wrapper carries the demand's events, viewability and verification vendors too, valid", () => {
    const xml = renderWrapper(version, {
      id: 'w2',
      adSystem: 'adplane',
      servingId: 'd-2',
      tagUri: 'http://demand.test/vast',
      followAdditionalWrappers: false,
      trackers: {
        ...trackers(),
        events: DEMAND_EVENTS.map((e): TrackingEvent => [e, `http://demand.test/t?e=${e}`]),
        viewable: { viewable: ['http://verify.test/v'], notViewable: [], undetermined: [] },
        verifications: [
          {
            vendor: 'v',
            javaScript: [{ url: 'https://verify.test/omid.js', apiFramework: 'omid', browserOptional: '' }],
            executable: [],
            tracking: [],
            parameters: '',
          },
        ],
      },
    });
    expect(schemaErrors(version, xml)).toBe('');
    expect((clientAds(xml).ads[0] as { adVerifications: unknown[] }).adVerifications).toHaveLength(1);
    // a demand wrapper's "no further wrapper" passes on where the version has the attribute (VAST 4)
    expect((clientAds(xml).ads[0] as { followAdditionalWrappers: boolean }).followAdditionalWrappers).toBe(
      !version.startsWith('4'),
    );

    // the icons (3.0+) and companions a wrapper adds, valid in every version, read by a VAST client
    const adding = renderWrapper(version, {
      id: 'w3',
      adSystem: 'adplane',
      servingId: 'd-3',
      tagUri: 'http://demand.test/vast',
      trackers: trackers(),
      icons: [
        {
          program: 'AdChoices',
          width: 20,
          height: 20,
          xPosition: 'right',
          yPosition: 'top',
          offset: '',
          duration: '',
          apiFramework: '',
          resource: { type: 'static', url: 'https://demand.test/ac.png', creativeType: 'image/png' },
          clickThrough: 'https://privacy.test/',
          clickTracking: [],
          viewTracking: [],
        },
      ],
      companions: {
        required: '',
        list: [
          {
            width: 300,
            height: 250,
            id: '',
            apiFramework: '',
            adSlotId: '',
            resource: { type: 'static', url: 'https://demand.test/w300.png', creativeType: 'image/png' },
            altText: '',
            clickThrough: 'https://brand.test/w',
            clickTracking: [],
            creativeView: [],
            adParameters: '',
          },
        ],
      },
    });
    expect(schemaErrors(version, adding)).toBe('');
    expect(adding.includes('https://demand.test/ac.png'), version).toBe(version !== '2.0');
    const read = clientAds(adding).ads[0] as {
      creatives: { type: string; variations?: { staticResources: { url: string }[] }[] }[];
    };
    expect(read.creatives.find((c) => c.type === 'companion')?.variations?.[0]?.staticResources[0]?.url).toBe(
      'https://demand.test/w300.png',
    );
  });

  it('a schema check that can fail: a document missing its Impression is refused', () => {
    const xml = renderInline(version, { ...video(), trackers: { ...trackers(), impression: [] } });
    expect(schemaErrors(version, xml)).not.toBe('');
  });
});

describe('sloppy URLs', () => {
  it('percent-encodes what a URI may not hold, so the document stays valid', () => {
    const xml = renderWrapper('4.2', {
      id: 'w',
      adSystem: 'adplane',
      servingId: 's',
      tagUri: 'http://demand.test/v?q=a b<c>"d"',
      trackers: trackers(),
    });
    expect(schemaErrors('4.2', xml)).toBe('');
    expect((clientAds(xml).ads[0] as { nextWrapperURL: string }).nextWrapperURL).toBe(
      'http://demand.test/v?q=a%20b%3Cc%3E%22d%22',
    );
  });

  it("encodes a '%' that starts no escape (vast-client's own sample: progress-60%) and a second '#', keeping real escapes", () => {
    const xml = renderWrapper('3.0', {
      id: 'w',
      adSystem: 'adplane',
      servingId: 's',
      tagUri: 'http://demand.test/v?p=60%&e=%2F#a#b',
      trackers: trackers(),
    });
    expect(schemaErrors('3.0', xml)).toBe('');
    expect((clientAds(xml).ads[0] as { nextWrapperURL: string }).nextWrapperURL).toBe(
      'http://demand.test/v?p=60%25&e=%2F#a%23b',
    );
  });
});
