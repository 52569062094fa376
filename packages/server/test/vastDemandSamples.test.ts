import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Price } from '@adplane/shared';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { eventIn } from '../src/edge/vast/vastWriter.js';
import { VAST_VERSIONS, type VastVersion } from '../src/edge/vast/vastVersion.js';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { buildTestApp, createAs, login, onSqliteStore } from './helpers.js';
import { localServer } from './localServer.js';
import { clientAds, schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Real-world VAST shapes (fixtures/vast/demand/, their sources in the README there) served as a
 * demand tag's answer through the real app: for every channel VAST version, the answer validates
 * against that version's XSD, parses in @dailymotion/vast-client, keeps the demand's impression,
 * error, event and click trackers and its media, and adds ours; an answer with no ad, or a broken
 * one, is the tag's counted no-fill with the VAST error code a player would report, and its error
 * trackers hear of it. The operator's exchange rates (ADPLANE_CURRENCY_RATES) make 1 EUR worth
 * 1.25 USD, for an answer priced in euros.
 */
const DIR = new URL('./fixtures/vast/demand/', import.meta.url);
const PLACEHOLDER = /__DEMAND__/g;

interface Fill {
  media: string[];
  impressions: string[];
  /** Linear events by their name in the sample (checked in each version that has the event). */
  events?: Record<string, string[]>;
  clicks?: string[];
  clickThrough?: string;
  /** The ad's <Error>s: all kept in 4.x; in 2.0 and 3.0 (one per ad there) forwarded by ours.  */
  errors?: string[];
  /** What else the answer must say in these versions (raw XML substrings). */
  contains?: Partial<Record<VastVersion | 'all', string[]>>;
  /** What it must not say in these versions. */
  lacks?: Partial<Record<VastVersion | 'all', string[]>>;
  skipDelay?: Partial<Record<VastVersion, number | null>>;
  duration?: number;
  /** How many <Verification>s the answer holds (in AdVerifications or its Extension), in every version. */
  verifications?: number;
  /**
   * Error trackers of the ads the answer gave that failed before the one that fills (a buffet's
   * broken ad, a wrapper chain that gave no ad): the decision calls them with their code.
   */
  pings?: string[];
}

/** A NonLinear ad passed through on a display channel (our display answers are NonLinear ads). */
interface DisplayFill {
  /** What the NonLinear shows: its StaticResource or IFrameResource URL. */
  resource: string;
  size: [number, number];
  impressions: string[];
  /** The ad's <Error>s: all kept in 4.x; in 2.0 and 3.0 forwarded by ours. */
  errors?: string[];
  clickThrough?: string;
  /** NonLinearClickTracking (3.0 and later; 2.0 has no place for them). */
  clicks?: string[];
  /** NonLinearAds events by name (checked in each version that has the event). */
  events?: Record<string, string[]>;
}

interface NoFill {
  vastError: number;
  reason: string;
  /** Error trackers the decision must call with the code (paths on the demand server). */
  pings?: string[];
}

interface Sample {
  file: string;
  path?: string;
  timeoutMs?: number;
  /** The tag's price (a $5 CPM unless said). */
  price?: Price;
  fill?: Fill;
  noFill?: NoFill;
  /** The channel's format (video unless said) and the request's slot (`w=640&h=360` unless said). */
  format?: 'video' | 'display';
  query?: string;
  display?: DisplayFill;
}

const D = '__DEMAND__';
const SAMPLES: Sample[] = [
  {
    file: 'iab42-inline-linear.xml',
    fill: {
      media: ['https://cdn.sample.test/spot-720.mp4', 'https://cdn.sample.test/spot-360.mp4'],
      impressions: [`${D}/t/impression`],
      errors: [`${D}/t/error?c=[ERRORCODE]`],
      events: {
        start: [`${D}/t/start`],
        firstQuartile: [`${D}/t/q1`],
        midpoint: [`${D}/t/mid`],
        thirdQuartile: [`${D}/t/q3`],
        complete: [`${D}/t/complete`],
      },
      clickThrough: 'https://brand.sample.test/',
      contains: {
        '3.0': ['offset="00:00:10"'],
        '4.2': ['offset="00:00:10"', '<UniversalAdId idRegistry="Ad-ID">ABCD1234000H</UniversalAdId>'],
        '4.1': ['<UniversalAdId idRegistry="Ad-ID">ABCD1234000H</UniversalAdId>'],
        '4.0': ['idValue="ABCD1234000H"'],
      },
      duration: 16,
    },
  },
  {
    file: 'iab42-wrapper.xml',
    fill: {
      media: ['https://cdn.sample.test/companion-spot.mp4'],
      impressions: [`${D}/t/wrapper-impression`, `${D}/t/companion-ad-impression`],
      errors: [`${D}/t/wrapper-error?c=[ERRORCODE]`, `${D}/t/companion-ad-error`],
      events: { start: [`${D}/t/companion-ad-start`] },
      contains: { all: ['companion-300x250.png'] },
      lacks: { all: ['wrapper-companion.png'] },
    },
  },
  {
    file: 'iab42-inline-companion.xml',
    fill: {
      media: ['https://cdn.sample.test/companion-spot.mp4'],
      impressions: [`${D}/t/companion-ad-impression`],
      contains: {
        all: ['companion-300x250.png', `${D}/t/companion-view`],
        '4.2': [`${D}/t/companion-click`, 'required="any"'],
        '3.0': ['required="any"'],
      },
    },
  },
  {
    file: 'iab41-nonlinear-only.xml',
    noFill: { vastError: 201, reason: 'not_linear', pings: ['/t/overlay-error?c=201'] },
  },
  {
    file: 'companion-only.xml',
    noFill: { vastError: 201, reason: 'not_linear', pings: ['/t/companion-only-error?c=201'] },
  },
  {
    file: 'iab41-ad-verification.xml',
    fill: {
      media: ['https://cdn.sample.test/verified.mp4'],
      impressions: [`${D}/t/verify-ad-impression`],
      contains: {
        all: [
          'https://verify.sample.test/omid.js',
          'vendor="vendor.sample.test-omid"',
          `${D}/t/verification-not-executed?reason=[REASON]`,
          'https://verify.sample.test/native.bin',
        ],
        '2.0': ['<Extension type="AdVerifications">'],
        '3.0': ['<Extension type="AdVerifications">'],
        '4.0': ['<Extension type="AdVerifications">'],
      },
    },
  },
  // a vendor written both in 4.1's AdVerifications and in the Extension older players read: measured once, its trackers kept
  {
    file: 'verification-both-forms.xml',
    fill: {
      media: ['https://cdn.sample.test/both.mp4'],
      impressions: [`${D}/t/both-forms-impression`],
      verifications: 1,
      contains: { all: ['https://verify.sample.test/both.js', `${D}/t/both-not-executed?r=[REASON]`] },
    },
  },
  {
    file: 'vast3-omid-extension.xml',
    fill: {
      media: ['https://cdn.sample.test/omid3.mp4'],
      impressions: [`${D}/t/omid3-impression`],
      events: { start: [`${D}/t/omid3-start`] },
      contains: { all: ['https://verify.sample.test/ext.js', '<![CDATA[a=1&b=2]]>'] },
    },
  },
  {
    file: 'iab42-closed-captions.xml',
    fill: {
      media: ['https://cdn.sample.test/captioned.mp4'],
      impressions: [`${D}/t/cc-impression`],
      contains: {
        '4.1': ['captions-en.srt', 'captions-zh.vtt', 'captions-fr.ttml'],
        '4.2': ['captions-en.srt', 'language="zh-TW"'],
      },
      lacks: { '2.0': ['ClosedCaption'], '3.0': ['ClosedCaption'], '4.0': ['ClosedCaption'] },
    },
  },
  {
    file: 'iab41-ssai-mezzanine.xml',
    fill: {
      media: ['https://cdn.sample.test/ssai-1080.mp4', 'https://cdn.sample.test/ssai.m3u8'],
      impressions: [`${D}/t/ssai-impression`],
      contains: {
        '4.0': ['mezzanine.mp4', 'simid.html'],
        '4.1': ['mezzanine.mp4', 'variableDuration="true"'],
        '4.2': ['mezzanine.mp4', 'simid.html'],
        all: ['delivery="streaming"'],
      },
      lacks: { '2.0': ['Mezzanine', 'InteractiveCreativeFile'], '3.0': ['Mezzanine', 'InteractiveCreativeFile'] },
      duration: 31,
    },
  },
  {
    file: 'iab40-universal-ad-id.xml',
    fill: {
      media: ['https://cdn.sample.test/uid.mp4'],
      impressions: [`${D}/t/uid-impression`],
      clicks: [`${D}/t/uid-click`],
      clickThrough: 'https://brand.sample.test/uid',
      contains: {
        '4.0': ['idValue="8465"', 'uid-mezzanine.mp4', '<Category authority='],
        '4.2': ['<UniversalAdId idRegistry="Ad-ID">8465</UniversalAdId>'],
      },
      lacks: { '4.1': ['uid-mezzanine.mp4'], '2.0': ['Category'], '3.0': ['Category'] },
    },
  },
  {
    file: 'iab42-viewable-impression.xml',
    fill: {
      media: ['https://cdn.sample.test/view.webm'],
      impressions: [`${D}/t/view-impression`],
      contains: { '4.0': [`${D}/t/viewable`, `${D}/t/view-undetermined`], '4.2': [`${D}/t/not-viewable`] },
      lacks: { '2.0': ['Viewable'], '3.0': ['Viewable'] },
    },
  },
  {
    file: 'iab42-event-tracking.xml',
    fill: {
      media: ['https://cdn.sample.test/events.mp4'],
      impressions: [`${D}/t/ev-impression`],
      events: Object.fromEntries(
        [
          'loaded',
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
          'playerExpand',
          'playerCollapse',
          'closeLinear',
          'otherAdInteraction',
          'interactiveStart',
        ].map((e) => [e, [`${D}/t/ev-${e}`]]),
      ),
      contains: { '3.0': ['offset="75%"', `${D}/t/ev-progress-5s`], '4.2': ['offset="75%"', 'offset="00:00:05.000"'] },
      lacks: { all: ['notUsed'], '2.0': ['event="progress"', 'skipoffset'] },
      skipDelay: { '2.0': null, '3.0': 5, '4.2': 5 },
    },
  },
  {
    file: 'iab42-icon-click-fallbacks.xml',
    fill: {
      media: ['https://cdn.sample.test/icon.mp4'],
      impressions: [`${D}/t/icon-impression`],
      contains: {
        '3.0': ['adchoices.png', `${D}/t/icon-click`, `${D}/t/icon-view`],
        '4.1': ['adchoices.png'],
        '4.2': ['adchoices.png', 'logo.html'],
      },
      lacks: { '2.0': ['Icon'], '4.1': ['logo.html'] },
    },
  },
  {
    file: 'iab30-video-clicks.xml',
    fill: {
      media: ['https://cdn.sample.test/click.mp4'],
      impressions: [`${D}/t/click-impression-a`, `${D}/t/click-impression-b`],
      errors: [`${D}/t/click-error?c=[ERRORCODE]`],
      clicks: [`${D}/t/click-tracking-1`, `${D}/t/click-tracking-2`],
      clickThrough: 'https://brand.sample.test/click?src=vast&amp=1',
    },
  },
  {
    file: 'iab30-skippable-icon.xml',
    fill: {
      media: ['https://cdn.sample.test/skip.mp4'],
      impressions: [`${D}/t/skip-impression`],
      events: {
        creativeView: [`${D}/t/skip-creativeView`],
        start: [`${D}/t/skip-start`],
        skip: [`${D}/t/skip-skip`],
        fullscreen: [`${D}/t/skip-fullscreen`],
        exitFullscreen: [`${D}/t/skip-exitFullscreen`],
        closeLinear: [`${D}/t/skip-closeLinear`],
        complete: [`${D}/t/skip-complete`],
      },
      contains: {
        '3.0': ['skipoffset="25%"', '<Advertiser>brand.sample.test</Advertiser>', 'adchoices3.png'],
        '4.2': ['skipoffset="25%"', 'playerExpand'],
      },
      lacks: { '2.0': ['skipoffset', 'Advertiser'] },
    },
  },
  {
    file: 'iab20-inline-linear.xml',
    fill: {
      media: ['https://cdn.sample.test/v2.mp4', 'https://cdn.sample.test/v2.flv'],
      impressions: [`${D}/t/v2-impression?a=1&b=two%20words`, `${D}/t/v2-impression-plain?x=1&y=2`],
      errors: [`${D}/t/v2-error`],
      clickThrough: 'https://brand.sample.test/v2',
      contains: { all: ['c300.jpg'] },
      duration: 30,
    },
  },
  {
    file: 'iab20-vpaid.xml',
    fill: {
      media: ['https://cdn.sample.test/vpaid.js', 'https://cdn.sample.test/vpaid.swf'],
      impressions: [`${D}/t/vpaid-impression`],
      // (2.0's expand and collapse are VAST 4's adExpand and adCollapse)
      events: {
        start: [`${D}/t/vpaid-start`],
        close: [`${D}/t/vpaid-close`],
        acceptInvitation: [`${D}/t/vpaid-accept`],
        expand: [`${D}/t/vpaid-expand`],
        collapse: [`${D}/t/vpaid-collapse`],
      },
      contains: { all: ['apiFramework="VPAID"', 'vpaid-inner.mp4'] },
    },
  },
  {
    file: 'client-multi-creative.xml',
    fill: {
      media: ['https://cdn.sample.test/multi.mp4'],
      impressions: [`${D}/t/multi-impression1_asset:[ASSETURI]_[CACHEBUSTING]`, `${D}/t/multi-impression2_[random]`],
      errors: [`${D}/t/multi-error_[ERRORCODE]`],
      events: {
        start: [`${D}/t/multi-start`],
        midpoint: [`${D}/t/multi-midpoint`],
        complete: [`${D}/t/multi-complete`],
      },
      clicks: [`${D}/t/multi-click_ts:[TIMESTAMP]_playhead:[ADPLAYHEAD]`],
      contains: {
        all: ['https://verify.sample.test/omid1', 'companion1.jpg', 'companion2.html'],
        '3.0': ['multi-icon.gif', `${D}/t/multi-progress-60%25`],
        '4.2': ['multi-mezzanine.mp4'],
      },
      lacks: { all: ['multi-nonlinear', 'parser.js', 'multi2-vpaid.js'] },
      duration: 90,
    },
  },
  {
    file: 'client-vpaid-no-duration.xml',
    fill: {
      media: ['https://cdn.sample.test/admanager.js?PUB=1331&AUTOPLAY=0&TITLE=Foo&FORMAT=application/javascript'],
      impressions: [],
      contains: { all: ['comp_300x250', 'comp_728x90'] },
    },
  },
  { file: 'no-ad-root-error.xml', noFill: { vastError: 303, reason: 'no_ad', pings: ['/t/no-ad?c=303'] } },
  { file: 'no-ad-self-closed.xml', noFill: { vastError: 303, reason: 'no_ad' } },
  {
    file: 'inline-no-creative.xml',
    noFill: { vastError: 303, reason: 'no_creative', pings: ['/t/no-creative-error?c=303'] },
  },
  {
    file: 'wrapper-to-empty.xml',
    noFill: { vastError: 303, reason: 'no_ad', pings: ['/t/wrapper-to-empty-error?c=303', '/t/no-ad?c=303'] },
  },
  {
    file: 'wrapper-unavailable.xml',
    noFill: { vastError: 301, reason: 'http_404', pings: ['/t/wrapper-unavailable-error?c=301'] },
  },
  {
    file: 'wrapper-to-timeout.xml',
    timeoutMs: 300,
    noFill: { vastError: 301, reason: 'wrapper_timeout', pings: ['/t/wrapper-timeout-error?c=301'] },
  },
  {
    file: 'wrapper-loop.xml',
    noFill: { vastError: 302, reason: 'too_many_wrappers', pings: ['/t/wrapper-loop-error?c=302'] },
  },
  {
    file: 'wrapper-no-follow.xml',
    noFill: { vastError: 302, reason: 'wrapper_not_allowed', pings: ['/t/no-follow-error?c=302'] },
  },
  {
    file: 'wrapper-legacy.xml',
    fill: {
      media: ['https://cdn.sample.test/v2.mp4', 'https://cdn.sample.test/v2.flv'],
      impressions: [`${D}/t/legacy-wrapper-impression`, `${D}/t/v2-impression?a=1&b=two%20words`],
      errors: [`${D}/t/legacy-wrapper-error`, `${D}/t/v2-error`],
      events: { start: [`${D}/t/legacy-wrapper-start`], complete: [`${D}/t/legacy-wrapper-complete`] },
      clicks: [`${D}/t/legacy-wrapper-click`],
    },
  },
  { file: 'not-xml.txt', noFill: { vastError: 100, reason: 'bad_xml' } },
  { file: 'vast1-template.xml', noFill: { vastError: 102, reason: 'unsupported_version' } },
  { file: 'truncated.xml', noFill: { vastError: 100, reason: 'bad_xml' } },
  { file: 'ad-without-body.xml', noFill: { vastError: 101, reason: 'bad_ad' } },
  {
    file: 'pod-with-sequence.xml',
    fill: {
      media: ['https://cdn.sample.test/pod-a.mp4'],
      impressions: [`${D}/t/pod-a-impression`],
      events: { start: [`${D}/t/pod-a-start`] },
      lacks: { all: ['pod-b', 'pod-c', 'pod-standalone'] },
    },
  },
  // a wrapper allows multiple ads only when it says so (allowMultipleAds, false by default): else the first stand-alone ad
  {
    file: 'wrapper-to-pod-default.xml',
    fill: {
      media: ['https://cdn.sample.test/pod-standalone.mp4'],
      impressions: [`${D}/t/wrapper-pod-default-impression`, `${D}/t/pod-standalone-impression`],
      lacks: { all: ['pod-a'] },
    },
  },
  {
    file: 'wrapper-to-pod-true.xml',
    fill: {
      media: ['https://cdn.sample.test/pod-a.mp4'],
      impressions: [`${D}/t/wrapper-pod-true-impression`, `${D}/t/pod-a-impression`],
      lacks: { all: ['pod-standalone'] },
    },
  },
  {
    file: 'wrapper-no-follow-capitalized.xml',
    noFill: { vastError: 302, reason: 'wrapper_not_allowed', pings: ['/t/no-follow-cap-error?c=302'] },
  },
  // a buffet whose first ad is a wrapper to no ad: the next ad plays, unless the wrapper says fallbackOnNoAd="false"
  {
    file: 'buffet-wrapper-fallback-default.xml',
    fill: {
      media: ['https://cdn.sample.test/fallback.mp4'],
      impressions: [`${D}/t/fallback-default-inline-impression`],
      lacks: { all: ['fallback-default-wrapper'] },
      // the wrapper whose chain gave no ad, and the empty answer's root <Error>, hear of it (303)
      pings: ['/t/fallback-default-wrapper-error?c=303', '/t/no-ad?c=303'],
    },
  },
  // a buffet's failed chain before the ad that fills: its error trackers are called all the same, with its code (VAST 4.x 2.3.6: every wrapper of a failed chain)
  {
    file: 'buffet-fallback-chain.xml',
    fill: {
      media: ['https://cdn.sample.test/chain-third.mp4'],
      impressions: [`${D}/t/chain-third-impression`],
      errors: [`${D}/t/chain-third-error?c=[ERRORCODE]`],
      lacks: { all: ['chain-first', 'chain-second'] },
      pings: ['/t/chain-first-error?c=301', '/t/chain-second-error?c=100'],
    },
  },
  // none of a buffet's ads plays: the first one's no-fill is the tag's, and every ad tried hears of its own failure
  {
    file: 'buffet-fallbacks-all-fail.xml',
    noFill: {
      vastError: 303,
      reason: 'no_ad',
      pings: ['/t/all-fail-first-error?c=303', '/t/all-fail-broken-error?c=401', '/t/all-fail-second-error?c=301'],
    },
  },
  {
    file: 'buffet-wrapper-fallback-false.xml',
    noFill: { vastError: 303, reason: 'no_ad', pings: ['/t/fallback-false-wrapper-error?c=303', '/t/no-ad?c=303'] },
  },
  {
    file: 'ad-buffet.xml',
    fill: {
      media: ['https://cdn.sample.test/buffet-good.mp4'],
      impressions: [`${D}/t/buffet-good-impression`],
      errors: [`${D}/t/buffet-good-error?c=[ERRORCODE]`],
      lacks: { all: ['buffet-spare', 'buffet-broken'] },
      // the broken ad passed over hears of it (401: no usable media file)
      pings: ['/t/buffet-broken-error?c=401'],
    },
  },
  {
    file: 'bom-prefixed.xml',
    fill: { media: ['https://cdn.sample.test/bom.mp4'], impressions: [`${D}/t/bom-impression?x=1`], duration: 12 },
  },
  {
    file: 'html-entities.xml',
    fill: {
      media: ['https://cdn.sample.test/ent.mp4?a=1&b=2'],
      impressions: [`${D}/t/ent-impression?a=1&b=2&c=%5Bx%5D`, `${D}/t/ent-impression2?a=1&b=2`],
      events: { start: [`${D}/t/ent-start?q=%22x%22`] },
      clickThrough: 'https://brand.sample.test/?a=1&b=2',
    },
  },
  {
    file: 'adserver-dfp-style.xml',
    fill: {
      media: [
        'https://cdn.sample.test/dfp-360.mp4',
        'https://cdn.sample.test/dfp.m3u8',
        'https://cdn.sample.test/dfp-720.webm',
      ],
      impressions: [`${D}/t/dfp-impression?label=videoimpression&ad_mt=[AD_MT]`],
      errors: [`${D}/t/dfp-error?label=videoadplay&ad_mt=[AD_MT]&err=[ERRORCODE]&sdkv=[SDKV]`],
      events: {
        start: [`${D}/t/dfp-start?label=part2viewed&ad_mt=[AD_MT]`],
        mute: [`${D}/t/dfp-mute?label=admute`],
        pause: [`${D}/t/dfp-pause?label=adpause`],
        skip: [`${D}/t/dfp-skip?label=videoskipped`],
        fullscreen: [`${D}/t/dfp-fullscreen?label=adfullscreen`],
        acceptInvitation: [`${D}/t/dfp-accept?label=acceptinvitation`],
      },
      clicks: [`${D}/t/dfp-click`],
      skipDelay: { '3.0': 5, '4.0': 5 },
      contains: { all: ['type="video/webm"'] },
      // an Extension's own elements are not the ad's trackers
      lacks: { all: ['dfp-extension-click', 'dfp-activeview', 'dfp-showad'] },
    },
  },
  // an ad server that answers with an HTTP redirect first (a browser follows it, so must we), up to 3
  {
    file: 'iab30-video-clicks.xml',
    path: '/redirect?n=2&to=/sample/iab30-video-clicks.xml',
    fill: {
      media: ['https://cdn.sample.test/click.mp4'],
      impressions: [`${D}/t/click-impression-a`, `${D}/t/click-impression-b`],
    },
  },
  {
    file: 'iab30-video-clicks.xml',
    path: '/redirect?n=4&to=/sample/iab30-video-clicks.xml',
    noFill: { vastError: 303, reason: 'http_302' },
  },
  {
    file: 'wrapper-relative-uri.xml',
    fill: {
      media: ['http://cdn.sample.test/proto.mp4'],
      impressions: [`${D}/t/relative-wrapper-impression`, `${D}/t/proto-impression`],
    },
  },
  // a wrapper's VASTAdTagURI is a VAST request URI: its IAB macros are filled before it is called (its trackers' are the player's)
  {
    file: 'wrapper-macros.xml',
    fill: {
      media: ['https://cdn.sample.test/click.mp4'],
      impressions: [
        `${D}/t/wrapper-macros-impression?cb=[CACHEBUSTING]`,
        `${D}/t/click-impression-a`,
        `${D}/t/click-impression-b`,
      ],
    },
  },
  {
    file: 'protocol-relative-media.xml',
    fill: { media: ['http://cdn.sample.test/proto.mp4'], impressions: [`${D}/t/proto-impression`] },
  },
  // a revshare tag whose answer states its price in euros (8 EUR, $10 at the test's rates): half of it, in dollars
  {
    file: 'pricing-eur-revshare.xml',
    price: { type: 'revshare', percent: 50 },
    fill: {
      media: ['https://cdn.sample.test/eur.mp4'],
      impressions: [`${D}/t/eur-impression`],
      errors: [`${D}/t/eur-error?c=[ERRORCODE]`],
      events: { start: [`${D}/t/eur-start`] },
      contains: {
        '3.0': ['<Pricing model="cpm" currency="USD">5.0000</Pricing>'],
        '4.2': ['<Pricing model="cpm" currency="USD">5.0000</Pricing>'],
      },
      lacks: { all: ['EUR', 'eur"'] },
    },
  },
  // a skipoffset in bare seconds (as some ad servers write it), written as VAST's HH:MM:SS; macros in mixed and lower case
  {
    file: 'skipoffset-seconds.xml',
    fill: {
      media: ['https://cdn.sample.test/seconds.mp4'],
      impressions: [`${D}/t/seconds-impression?ts=[Timestamp]&cb=[random]`],
      events: { start: [`${D}/t/seconds-start`], skip: [`${D}/t/seconds-skip?ts=[timestamp]`] },
      contains: {
        '3.0': ['skipoffset="00:00:05"'],
        '4.0': ['skipoffset="00:00:05"'],
        '4.2': ['skipoffset="00:00:05"'],
      },
      lacks: { all: ['skipoffset="5"'], '2.0': ['skipoffset'] },
      skipDelay: { '2.0': null, '3.0': 5, '4.1': 5, '4.2': 5 },
    },
  },
  {
    file: 'media-without-size.xml',
    fill: {
      media: ['https://cdn.sample.test/nosize.m3u8'],
      impressions: [`${D}/t/nosize-impression`],
      contains: { all: ['delivery="streaming"'] },
    },
  },
  // a long answer (real ones carry big Extensions and HTML companions): 400 KB fills, past the 512 KB cap is a no-fill
  {
    file: 'iab42-inline-linear.xml',
    path: '/long?kb=400',
    fill: {
      media: ['https://cdn.sample.test/spot-720.mp4', 'https://cdn.sample.test/spot-360.mp4'],
      impressions: [`${D}/t/impression`],
      lacks: { all: ['padding'] },
    },
  },
  { file: 'iab42-inline-linear.xml', path: '/long?kb=600', noFill: { vastError: 303, reason: 'http_413' } },
  // a 4.1 wrapper with several impressions (one empty), its own viewability and verification vendor, in front of an SSAI ad
  {
    file: 'wrapper-verification-impressions.xml',
    fill: {
      media: ['https://cdn.sample.test/ssai-1080.mp4', 'https://cdn.sample.test/ssai.m3u8'],
      impressions: [`${D}/t/wv-impression-a`, `${D}/t/wv-impression-b`, `${D}/t/ssai-impression`],
      errors: [`${D}/t/wv-error?c=[ERRORCODE]`, `${D}/t/ssai-error`],
      events: { start: [`${D}/t/wv-start`] },
      clicks: [`${D}/t/wv-click`],
      contains: {
        all: ['https://verify.sample.test/wrapper-omid.js', `${D}/t/wv-not-executed?r=[REASON]`],
        '4.2': [`${D}/t/wv-viewable`, 'mezzanine.mp4'],
      },
    },
  },
  // display channels: their answer is a NonLinear (docs/ad-server.md), so a demand's NonLinear-only ad is passed through there
  {
    file: 'iab41-nonlinear-only.xml',
    format: 'display',
    query: 'w=300&h=250',
    display: {
      resource: 'https://cdn.sample.test/overlay.png',
      size: [0, 0],
      impressions: [`${D}/t/overlay-impression`],
      errors: [`${D}/t/overlay-error?c=[ERRORCODE]`],
      clickThrough: 'https://brand.sample.test/overlay',
    },
  },
  {
    file: 'nonlinear-wrapper.xml',
    format: 'display',
    query: 'w=300&h=250',
    display: {
      resource: 'https://cdn.sample.test/overlay-300x250.html',
      size: [300, 250],
      impressions: [`${D}/t/nl-wrapper-impression-a`, `${D}/t/nl-wrapper-impression-b`, `${D}/t/nl-inline-impression`],
      errors: [`${D}/t/nl-wrapper-error?c=[ERRORCODE]`, `${D}/t/nl-inline-error?c=[ERRORCODE]`],
      clickThrough: 'https://brand.sample.test/nl',
      clicks: [`${D}/t/nl-wrapper-click`, `${D}/t/nl-click`],
      events: {
        creativeView: [`${D}/t/nl-wrapper-view`, `${D}/t/nl-view`],
        acceptInvitation: [`${D}/t/nl-accept`],
        collapse: [`${D}/t/nl-collapse`],
      },
    },
  },
  // a NonLinear larger than the slot stated: VAST 501, as our own banners must fit the slot
  {
    file: 'nonlinear-wrapper.xml',
    format: 'display',
    query: 'w=320&h=50',
    noFill: {
      vastError: 501,
      reason: 'nonlinear_too_large',
      pings: ['/t/nl-wrapper-error?c=501', '/t/nl-inline-error?c=501'],
    },
  },
  // on a video channel a NonLinear is still not the linear ad the player asked for; nor is a companion alone on a display channel
  {
    file: 'nonlinear-wrapper.xml',
    noFill: { vastError: 201, reason: 'not_linear', pings: ['/t/nl-wrapper-error?c=201', '/t/nl-inline-error?c=201'] },
  },
  {
    file: 'companion-only.xml',
    format: 'display',
    query: 'w=300&h=250',
    noFill: { vastError: 201, reason: 'not_linear', pings: ['/t/companion-only-error?c=201'] },
  },
];

/** A local demand server: /sample/<file> answers the fixture (its __DEMAND__ URLs pointing back here), /t/* are its trackers. */
async function sampleServer(): Promise<{ url: string; pings: string[]; close(): Promise<void> }> {
  const pings: string[] = [];
  const hanging = new Set<ServerResponse>();
  let base = '';
  const fixture = (name: string) => readFileSync(new URL(name, DIR)).toString('latin1').replace(PLACEHOLDER, base);
  const demand = await localServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname.startsWith('/t/')) {
      pings.push(url.pathname + url.search);
      res.writeHead(204);
      return res.end();
    }
    if (url.pathname === '/hang') return void hanging.add(res);
    if (url.pathname === '/redirect') {
      // n hops of 302, the last to `to` (a relative Location, as servers often send)
      const n = Number(url.searchParams.get('n'));
      const to = url.searchParams.get('to') ?? '/';
      res.writeHead(302, { location: n > 1 ? `/redirect?n=${n - 1}&to=${encodeURIComponent(to)}` : to });
      return res.end();
    }
    let body: string | null = null;
    if (url.pathname.startsWith('/sample/')) {
      try {
        body = fixture(url.pathname.slice('/sample/'.length));
      } catch {
        body = null;
      }
    } else if (url.pathname.startsWith('/filled/')) {
      // a wrapper's target that answers only when the player's macros in its URI were filled (none left in brackets, [SERVERSIDE] 1)
      const filled = !/\[|%5B/i.test(url.search) && url.searchParams.get('ss') === '1';
      body = filled ? fixture(url.pathname.slice('/filled/'.length)) : null;
    } else if (url.pathname === '/long') {
      const padding = `<Extension type="padding"><Data><![CDATA[${'x'.repeat(Number(url.searchParams.get('kb')) * 1024)}]]></Data></Extension>`;
      body = fixture('iab42-inline-linear.xml').replace('<Extensions>', `<Extensions>${padding}`);
    }
    if (body === null) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(Buffer.from(body, 'latin1'));
  });
  base = demand.url;
  return {
    url: base,
    pings,
    close: async () => {
      for (const res of hanging) res.destroy();
      await demand.close();
    },
  };
}

/** URLs as a VAST client lists them (strings, or { url } objects). */
const urls = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((u) => (typeof u === 'string' ? u : (u as { url: string }).url)) : [];

interface ClientLinear {
  type: string;
  duration: number;
  skipDelay: number | null;
  mediaFiles: { fileURL: string }[];
  trackingEvents: Record<string, string[]>;
  videoClickThroughURLTemplate: { url: string } | string | null;
  videoClickTrackingURLTemplates: unknown[];
}

interface ClientNonLinear {
  type: string;
  trackingEvents: Record<string, string[]>;
  variations: {
    staticResource: string | null;
    iframeResource: string | null;
    width: string | number;
    height: string | number;
    nonlinearClickThroughURLTemplate: { url: string } | string | null;
    nonlinearClickTrackingURLTemplates: unknown[];
  }[];
}

onSqliteStore((t) => {
  let app: FastifyInstance;
  let demand: Awaited<ReturnType<typeof sampleServer>>;
  let cookie: string;
  const channels: { uid: string; tagId: number }[] = [];

  beforeAll(async () => {
    demand = await sampleServer();
    // the operator's exchange rates, a currency file in Prebid's format: 1 USD = 0.8 EUR
    const rates = join(mkdtempSync(join(tmpdir(), 'adplane-rates-')), 'latest.json');
    writeFileSync(rates, JSON.stringify({ dataAsOf: '2026-11-24', conversions: { USD: { EUR: 0.8 } } }));
    app = await buildTestApp(t.store, { currencyRates: rates });
    // a tenant of its own (no campaigns of the demo's to compete with the samples)
    cookie = await login(app, 'acme');
    for (const [i, s] of SAMPLES.entries()) {
      const tag = await createAs(app, cookie, 'tags', {
        name: `Sample ${i} ${s.file}`,
        vastUrl: `${demand.url}${s.path ?? `/sample/${s.file}`}`,
        price: s.price ?? { type: 'cpm', cpm: 5_000_000 },
        timeoutMs: s.timeoutMs ?? 1500,
      });
      const channel = await createAs(app, cookie, 'channels', {
        name: `Samples ${i}`,
        vastVersion: '4.2',
        format: s.format ?? 'video',
        demandMode: 'auction',
        timeoutMs: 2000,
        demand: [{ tagId: tag.id, priority: 1 }],
      });
      channels.push({ uid: channel.uid, tagId: tag.id });
    }
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    await demand?.close();
  });

  const served = (u: string) => u.replace(PLACEHOLDER, demand.url);
  /** The answer with what we write at random masked: our signed tokens (`t`, `ds`) and the decision id (AdServingId). */
  const withoutRandom = (xml: string) =>
    xml
      .replace(/([?&](?:t|ds)=)[\w.~-]+/g, '$1TOKEN')
      .replace(/<AdServingId>[^<]*<\/AdServingId>/g, '<AdServingId>ID</AdServingId>');
  /**
   * The demand's error trackers an answer carries: its <Error>s in 4.x; in 2.0 and 3.0, whose one
   * <Error> is ours, those ours forwards (its `de`: errorPings.ts errorForwardQuery).
   */
  const demandErrors = (version: VastVersion, errors: string[]): string[] => {
    if (version.startsWith('4')) return errors.filter((u) => !u.includes('/ev?e=error'));
    const ours = errors.find((u) => u.includes('/ev?e=error'));
    const forwarded = ours ? new URL(ours.replace('[ERRORCODE]', '0')).searchParams.get('de') : null;
    return forwarded ? forwarded.split('\n') : [];
  };
  const request = (at: number, version: VastVersion, debug = false) =>
    edgeRequest(app, {
      cookie: debug ? cookie : null,
      method: 'GET',
      url: `/vast/${channels[at]!.uid}?${SAMPLES[at]!.query ?? 'w=640&h=360'}&ip=8.8.8.8&vast_version=${version}${debug ? '&debug=1' : ''}`,
    });

  describe.each(SAMPLES.map((s, at) => ({ ...s, at, name: `${s.file}${s.path ? ` ${s.path}` : ''}` })))(
    '$name',
    (sample) => {
      if (sample.fill) {
        const f = sample.fill;
        it.each([...VAST_VERSIONS])(
          "fills in VAST %s: valid, parsed by a VAST client, with the demand's trackers and media and ours",
          async (version) => {
            const res = await request(sample.at, version);
            expect(res.statusCode).toBe(200);
            const xml = res.body;
            expect(xml, 'a filled answer').toContain('<InLine>');
            // (libxml2 refuses brackets in xs:anyURI: vastSchema.ts fills the macros, the legacy [random] some samples carry too)
            expect(schemaErrors(version, xml), xml).toBe('');
            const { ads } = clientAds(xml);
            expect(ads).toHaveLength(1);
            const ad = ads[0] as {
              impressionURLTemplates: unknown[];
              errorURLTemplates: string[];
              creatives: ClientLinear[];
            };
            const linear = ad.creatives.find((c) => c.type === 'linear')!;
            expect(linear.mediaFiles.map((m) => m.fileURL)).toEqual(f.media);
            const impressions = urls(ad.impressionURLTemplates);
            expect(impressions.slice(0, f.impressions.length)).toEqual(f.impressions.map(served));
            expect(impressions.some((u) => u.includes('/ev?e=impression'))).toBe(true);
            const errors = ad.errorURLTemplates;
            if (f.errors) expect(demandErrors(version, errors).slice(0, f.errors.length)).toEqual(f.errors.map(served));
            // ours beside the demand's in 4.x; 2.0 and 3.0 have room for one: ours, carrying the demand's (demandErrors)
            expect(errors.some((u) => u.includes('/ev?e=error'))).toBe(true);
            if (!version.startsWith('4')) expect(errors).toHaveLength(1);
            for (const [event, list] of Object.entries(f.events ?? {})) {
              const name = eventIn(version, event);
              if (!name) continue;
              const key = name === 'fullscreen' || name === 'exitFullscreen' ? name : name;
              expect(linear.trackingEvents[key], `${event} as ${name}`).toEqual(
                expect.arrayContaining(list.map(served)),
              );
            }
            expect(linear.trackingEvents.start?.some((u) => u.includes('/ev?e=start'))).toBe(true);
            expect(urls(linear.videoClickTrackingURLTemplates)).toEqual(
              expect.arrayContaining((f.clicks ?? []).map(served)),
            );
            if (f.clickThrough) {
              const through = linear.videoClickThroughURLTemplate;
              expect(typeof through === 'string' ? through : through?.url).toBe(f.clickThrough);
            }
            if (f.duration !== undefined) expect(Math.round(linear.duration)).toBe(f.duration);
            if (f.verifications !== undefined)
              expect(xml.match(/<Verification[\s>]/g) ?? []).toHaveLength(f.verifications);
            if (f.skipDelay && version in f.skipDelay) expect(linear.skipDelay).toBe(f.skipDelay[version]);
            for (const s of [...(f.contains?.all ?? []), ...(f.contains?.[version] ?? [])])
              expect(xml).toContain(served(s));
            // what we write at random is masked: a short word ('EUR') may turn up in it (our signed tokens'
            // base64url, and the decision id, a random prefix per process, that 4.x states as AdServingId)
            const visible = withoutRandom(xml);
            for (const s of [...(f.lacks?.all ?? []), ...(f.lacks?.[version] ?? [])])
              expect(visible).not.toContain(served(s));
            for (const ping of f.pings ?? [])
              await expect.poll(() => demand.pings.some((p) => p.startsWith(ping)), { timeout: 5000 }).toBe(true);
          },
        );
      }
      if (sample.display) {
        const d = sample.display;
        it.each([...VAST_VERSIONS])(
          "passes a NonLinear ad through on a display channel in VAST %s: valid, parsed, the demand's trackers and ours",
          async (version) => {
            const res = await request(sample.at, version);
            expect(res.statusCode).toBe(200);
            const xml = res.body;
            expect(schemaErrors(version, xml), xml).toBe('');
            expect(xml).not.toContain('<Linear');
            const { ads } = clientAds(xml);
            expect(ads).toHaveLength(1);
            const ad = ads[0] as {
              impressionURLTemplates: unknown[];
              errorURLTemplates: string[];
              creatives: ClientNonLinear[];
            };
            const creative = ad.creatives.find((c) => c.type === 'nonlinear')!;
            expect(creative, xml).toBeDefined();
            const variation = creative.variations[0]!;
            expect([variation.staticResource, variation.iframeResource]).toContain(d.resource);
            // (4.0's inline NonLinear has no size attributes)
            if (version !== '4.0') expect([Number(variation.width), Number(variation.height)]).toEqual(d.size);
            const impressions = urls(ad.impressionURLTemplates);
            expect(impressions.slice(0, d.impressions.length)).toEqual(d.impressions.map(served));
            expect(impressions.some((u) => u.includes('/ev?e=impression'))).toBe(true);
            if (d.errors)
              expect(demandErrors(version, ad.errorURLTemplates).slice(0, d.errors.length)).toEqual(
                d.errors.map(served),
              );
            if (d.clickThrough) {
              const through = variation.nonlinearClickThroughURLTemplate;
              expect(typeof through === 'string' ? through : through?.url).toBe(d.clickThrough);
            }
            if (version !== '2.0')
              expect(urls(variation.nonlinearClickTrackingURLTemplates)).toEqual(
                expect.arrayContaining((d.clicks ?? []).map(served)),
              );
            for (const [event, list] of Object.entries(d.events ?? {})) {
              const name = eventIn(version, event);
              if (name)
                expect(creative.trackingEvents[name], `${event} as ${name}`).toEqual(
                  expect.arrayContaining(list.map(served)),
                );
            }
            const { trace } = (await request(sample.at, version, true)).json() as { trace: DecisionTrace };
            expect(trace.result).toBe('filled');
          },
        );
      }
      if (sample.noFill) {
        const n = sample.noFill;
        it(`is a no-fill with VAST error ${n.vastError} (${n.reason}), an empty answer in every version, and the demand hears of it`, async () => {
          const { trace, vast } = (await request(sample.at, '4.2', true)).json() as {
            vast: string;
            trace: DecisionTrace;
          };
          expect(trace.result).not.toBe('filled');
          const fate = trace.sources.find((s) => s.source === 'vast_tag' && s.id === channels[sample.at]!.tagId);
          expect(fate, JSON.stringify(fate)).toMatchObject({
            fate: 'no_fill',
            reason: n.reason,
            vastError: n.vastError,
          });
          expect(schemaErrors('4.2', vast)).toBe('');
          for (const version of VAST_VERSIONS) {
            const res = await request(sample.at, version);
            expect(res.statusCode).toBe(200);
            expect(res.body).not.toContain('<Ad');
            expect(schemaErrors(version, res.body), version).toBe('');
            expect(clientAds(res.body).ads).toHaveLength(0);
          }
          for (const ping of n.pings ?? [])
            await expect.poll(() => demand.pings.some((p) => p.startsWith(ping)), { timeout: 5000 }).toBe(true);
        });
      }
    },
  );

  it('counts each no-fill on its tag with its reason and VAST error code', async () => {
    await app.edge.flush();
    for (const [at, s] of SAMPLES.entries()) {
      if (!s.noFill) continue;
      const rows = await app.stats.select(
        `SELECT nofill_reason, vast_error, sum(source_reqs) AS n FROM ${STATS_TABLE} WHERE tag_id = ${channels[at]!.tagId} GROUP BY nofill_reason, vast_error`,
      );
      expect(rows, `${s.file}: ${JSON.stringify(rows)}`).toEqual([
        { nofill_reason: s.noFill.reason, vast_error: String(s.noFill.vastError), n: expect.anything() },
      ]);
      expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(VAST_VERSIONS.length);
    }
  });
});
