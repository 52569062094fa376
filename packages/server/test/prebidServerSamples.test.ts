import { describe, expect, it } from 'vitest';
import { prebidPublisher } from './tenantFixture.js';
import { onSqliteStore } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Prebid Server's own request samples (prebid-server's endpoints/openrtb2/sample-requests:
 * invalid-whole, answered 400, and valid-whole/exemplary and supplementary, answered 200), each
 * rewritten for adplane: our own request modelled on the case, with the bidder replaced by adplane and
 * a real channel of the tenant (display, or video for the video cases). One row per case: what
 * Prebid Server answers (`pbs`), what adplane answers, and the part of the message that names the
 * field. Where the two differ it is on purpose (docs/prebid.md, "Bad requests and health").
 *
 * Through the real app; the edge answers from its snapshot, so one store engine is enough.
 */
type Obj = Record<string, unknown>;
interface Channels {
  display: string;
  video: string;
}
interface Answer {
  seatbid: { seat: string; bid: { impid: string }[] }[];
  ext: {
    warnings?: Record<string, { code: number; message: string }[]>;
    errors?: unknown;
    debug?: { resolvedrequest: { user?: Obj } };
  };
}
type Expect =
  | { status: 400; message: RegExp }
  | { status: 200; bids: number; warning?: RegExp; check?: (answer: Answer) => void };
type Row = [name: string, pbs: 200 | 400, body: (c: Channels) => unknown, expected: Expect];

const SITE = { page: 'https://news.example.com/story', publisher: { id: 'acct-1' } };
const BANNER = { format: [{ w: 300, h: 250 }] };
const VIDEO = { mimes: ['video/mp4'], w: 640, h: 360 };
const bidder = (channel: string): Obj => ({ prebid: { bidder: { adplane: { channel } } } });
/** A display request of one banner impression for the display channel; `over` replaces request fields, `imp` impression fields. */
const display = (c: Channels, over: Obj = {}, imp: Obj = {}): Obj => ({
  id: 'req-1',
  site: SITE,
  tmax: 1000,
  imp: [{ id: 'imp-1', banner: BANNER, ext: bidder(c.display), ...imp }],
  ...over,
});
/** The same for the video channel, one video impression. */
const video = (c: Channels, over: Obj = {}, imp: Obj = {}): Obj => ({
  id: 'req-1',
  site: SITE,
  tmax: 1000,
  imp: [{ id: 'imp-1', video: VIDEO, ext: bidder(c.video), ...imp }],
  ...over,
});
const app = (c: Channels, imp: Obj): Obj => ({
  id: 'req-1',
  app: { id: 'app-1' },
  imp: [{ id: 'imp-1', ext: bidder(c.display), ...imp }],
});
const refused = (message: RegExp): Expect => ({ status: 400, message });
const bids = (n: number, warning?: RegExp, check?: (answer: Answer) => void): Expect => ({
  status: 200,
  bids: n,
  ...(warning ? { warning } : {}),
  ...(check ? { check } : {}),
});

/** invalid-whole: refused as Prebid Server refuses them, before this change too. */
const ALREADY_REFUSED: Row[] = [
  ['app-empty (site and app)', 400, (c) => display(c, { app: {} }), refused(/app must not be sent together with site/)],
  ['array', 400, () => [], refused(/the body must be a JSON object/)],
  ['boolean', 400, () => false, refused(/the body must be a JSON object/)],
  ['float', 400, () => 6.3, refused(/the body must be a JSON object/)],
  ['null', 400, () => null, refused(/the body must be a JSON object/)],
  ['empty-object', 400, () => ({}), refused(/^Invalid request: id must be a non-empty string/)],
  ['malformed-bid-request', 400, () => 'not json at all', refused(/the body is not valid JSON/)],
  ['only-request-id', 400, () => ({ id: 'req-1' }), refused(/imp must be a non-empty array/)],
  ['imp-empty-array', 400, () => ({ id: 'req-1', site: SITE, imp: [] }), refused(/imp must be a non-empty array/)],
  [
    'imp-empty-object',
    400,
    () => ({ id: 'req-1', site: SITE, imp: [{}] }),
    refused(/imp\[0\]\.id must be a non-empty string/),
  ],
  [
    'imp-id-duplicates',
    400,
    (c) => ({
      ...display(c),
      imp: [
        { id: 'x', banner: BANNER, ext: bidder(c.display) },
        { id: 'x', banner: { format: [{ w: 200, h: 250 }] }, ext: bidder(c.display) },
      ],
    }),
    refused(/imp\[1\]\.id must be unique/),
  ],
  [
    'imp-no-type',
    400,
    (c) => display(c, {}, { banner: undefined }),
    refused(/imp\[0\] must contain at least one of "banner", "video", "audio" or "native"/),
  ],
  ['banner-null', 400, (c) => display(c, {}, { banner: null }), refused(/imp\[0\] must contain at least one of/)],
  ['no-site-or-app-or-dooh', 400, (c) => video(c, { site: undefined }), refused(/site or app or dooh must be defined/)],
  ['site-app-both', 400, (c) => video(c, { app: { id: 'a' } }), refused(/app must not be sent together with site/)],
  ['site-dooh-both', 400, (c) => video(c, { dooh: { id: 'd' } }), refused(/dooh must not be sent together with site/)],
  [
    'site-empty',
    400,
    (c) => video(c, { site: {} }),
    refused(/site must include at least one of site\.id or site\.page/),
  ],
  [
    'site-ext-amp',
    400,
    (c) => display(c, { site: { page: SITE.page, ext: { amp: 2 } } }),
    refused(/site\.ext\.amp must be 0, 1 or absent/),
  ],
  ['tmax-negative', 400, (c) => display(c, { tmax: -2 }), refused(/tmax must be a number of milliseconds/)],
  [
    'storedrequest-id-int',
    400,
    (c) => video(c, { ext: { prebid: { storedrequest: { id: 13 } } } }),
    refused(/ext\.prebid\.storedrequest\.id must be a channel uid/),
  ],
  [
    'imp-ext-invalid-params',
    400,
    (c) => display(c, {}, { ext: { adplane: 'channel-please' } }),
    refused(/imp\[0\]\.ext\.adplane must be an object/),
  ],
  [
    'invalid-bidder-params',
    400,
    (c) => display(c, {}, { ext: { adplane: { channel: [] } } }),
    refused(/imp\[0\]\.ext\.adplane\.channel must be a channel uid/),
  ],
  [
    'bid-adjustment-negative',
    400,
    (c) => video(c, { ext: { prebid: { bidadjustmentfactors: { adplane: -2 } } } }),
    refused(/ext\.prebid\.bidadjustmentfactors\.adplane must be a positive number/),
  ],
  [
    'cache-nothing',
    400,
    (c) => video(c, { ext: { prebid: { cache: {} } } }),
    refused(/ext\.prebid\.cache requires one of the "bids" or "vastxml" properties/),
  ],
  [
    'deal-no-id',
    400,
    (c) => video(c, {}, { pmp: { deals: [{ id: '', private_auction: 1 }] } }),
    refused(/imp\[0\]\.pmp\.deals\[0\]\.id must be a non-empty string/),
  ],
  [
    'banner-w-negative',
    400,
    (c) => display(c, {}, { banner: { w: -1, h: 50 } }),
    refused(/imp\[0\]\.banner\.w must be a number of at least 0/),
  ],
  [
    'banner-h-negative',
    400,
    (c) => display(c, {}, { banner: { w: 50, h: -1 } }),
    refused(/imp\[0\]\.banner\.h must be a number of at least 0/),
  ],
  ['banner-w-only', 400, (c) => display(c, {}, { banner: { w: 50 } }), refused(/imp\[0\]\.banner has no sizes/)],
  ['banner-h-only', 400, (c) => display(c, {}, { banner: { h: 300 } }), refused(/imp\[0\]\.banner has no sizes/)],
  ['banner-w-zero', 400, (c) => display(c, {}, { banner: { w: 0, h: 250 } }), refused(/imp\[0\]\.banner has no sizes/)],
  ['banner-h-zero', 400, (c) => display(c, {}, { banner: { w: 250, h: 0 } }), refused(/imp\[0\]\.banner has no sizes/)],
  ['banner-no-size', 400, (c) => display(c, {}, { banner: {} }), refused(/imp\[0\]\.banner has no sizes/)],
  ['banner-wmin', 400, (c) => app(c, { banner: { wmin: 50 } }), refused(/imp\[0\]\.banner\.wmin is not supported/)],
  ['banner-wmax', 400, (c) => app(c, { banner: { wmax: 50 } }), refused(/imp\[0\]\.banner\.wmax is not supported/)],
  ['banner-hmin', 400, (c) => app(c, { banner: { hmin: 50 } }), refused(/imp\[0\]\.banner\.hmin is not supported/)],
  ['banner-hmax', 400, (c) => app(c, { banner: { hmax: 50 } }), refused(/imp\[0\]\.banner\.hmax is not supported/)],
  [
    'format-empty-array',
    400,
    (c) => display(c, {}, { banner: { format: [] } }),
    refused(/imp\[0\]\.banner has no sizes/),
  ],
  [
    'format-empty-object',
    400,
    (c) => display(c, {}, { banner: { format: [{}] } }),
    refused(/imp\[0\]\.banner\.format\[0\] must define \{w, h\}/),
  ],
  [
    'format-w-negative',
    400,
    (c) => display(c, {}, { banner: { format: [{ w: -1, h: 30 }] } }),
    refused(/imp\[0\]\.banner\.format\[0\]\.w must be a positive number/),
  ],
  [
    'format-h-negative',
    400,
    (c) => display(c, {}, { banner: { format: [{ w: 30, h: -1 }] } }),
    refused(/imp\[0\]\.banner\.format\[0\]\.h must be a positive number/),
  ],
  [
    'format-wmin-negative',
    400,
    (c) => display(c, {}, { banner: { format: [{ wmin: -30, wratio: 1, hratio: 1 }] } }),
    refused(/format\[0\]\.wmin must be a positive number/),
  ],
  [
    'format-wratio-negative',
    400,
    (c) => display(c, {}, { banner: { format: [{ wmin: 30, wratio: -1, hratio: 1 }] } }),
    refused(/format\[0\]\.wratio must be a positive number/),
  ],
  [
    'format-hratio-negative',
    400,
    (c) => display(c, {}, { banner: { format: [{ wmin: 30, wratio: 1, hratio: -1 }] } }),
    refused(/format\[0\]\.hratio must be a positive number/),
  ],
  [
    'format-no-height',
    400,
    (c) => display(c, {}, { banner: { format: [{ w: 30, h: 0 }] } }),
    refused(/format\[0\] must define non-zero "w" and "h"/),
  ],
  [
    'format-no-hratio',
    400,
    (c) => display(c, {}, { banner: { format: [{ wratio: 30 }] } }),
    refused(/format\[0\] must define non-zero "wmin", "wratio" and "hratio"/),
  ],
  [
    'format-two-widths',
    400,
    (c) => display(c, {}, { banner: { format: [{ w: 30, wratio: 23 }] } }),
    refused(/format\[0\] must define either \{w, h\} or \{wmin, wratio, hratio\}/),
  ],
  [
    'video-empty',
    400,
    (c) => video(c, {}, { video: {} }),
    refused(/imp\[0\]\.video\.mimes must contain at least one supported MIME type/),
  ],
  [
    'video-mimes-empty',
    400,
    (c) => video(c, {}, { video: { mimes: [] } }),
    refused(/imp\[0\]\.video\.mimes must contain/),
  ],
  [
    'video-w-negative',
    400,
    (c) => video(c, {}, { video: { mimes: ['video/mp4'], w: -1 } }),
    refused(/imp\[0\]\.video\.w must be a number of at least 0/),
  ],
  [
    'video-h-negative',
    400,
    (c) => video(c, {}, { video: { mimes: ['video/mp4'], h: -1 } }),
    refused(/imp\[0\]\.video\.h must be a number of at least 0/),
  ],
  [
    'video-minbitrate-negative',
    400,
    (c) => video(c, {}, { video: { mimes: ['video/mp4'], minbitrate: -1 } }),
    refused(/imp\[0\]\.video\.minbitrate must be a positive number/),
  ],
  [
    'video-maxbitrate-negative',
    400,
    (c) => video(c, {}, { video: { mimes: ['video/mp4'], maxbitrate: -1 } }),
    refused(/imp\[0\]\.video\.maxbitrate must be a positive number/),
  ],
  ['audio-mimes-empty', 400, (c) => app(c, { audio: { mimes: [] } }), refused(/imp\[0\]\.audio\.mimes must contain/)],
  [
    'audio-minbitrate-negative',
    400,
    (c) => display(c, {}, { banner: undefined, audio: { mimes: ['audio/mp4'], minbitrate: -1 } }),
    refused(/imp\[0\]\.audio\.minbitrate must be a positive number/),
  ],
  [
    'audio-maxbitrate-negative',
    400,
    (c) => display(c, {}, { banner: undefined, audio: { mimes: ['audio/mp4'], maxbitrate: -1 } }),
    refused(/imp\[0\]\.audio\.maxbitrate must be a positive number/),
  ],
  [
    'audio-sequence-negative',
    400,
    (c) => display(c, {}, { banner: undefined, audio: { mimes: ['audio/mp4'], sequence: -1 } }),
    refused(/imp\[0\]\.audio\.sequence must be a positive number/),
  ],
  [
    'audio-maxseq-negative',
    400,
    (c) => display(c, {}, { banner: undefined, audio: { mimes: ['audio/mp4'], maxseq: -1 } }),
    refused(/imp\[0\]\.audio\.maxseq must be a positive number/),
  ],
  [
    'native-empty',
    400,
    (c) => display(c, {}, { banner: undefined, native: {} }),
    refused(/imp\[0\]\.native\.request is required/),
  ],
  [
    'device-w-negative',
    400,
    (c) => display(c, { device: { w: -1, h: 50 } }),
    refused(/device\.w must be a positive number/),
  ],
  [
    'device-h-negative',
    400,
    (c) => display(c, { device: { w: 50, h: -1 } }),
    refused(/device\.h must be a positive number/),
  ],
  [
    'device-ppi-negative',
    400,
    (c) => display(c, { device: { ppi: -1 } }),
    refused(/device\.ppi must be a positive number/),
  ],
  [
    'device-geo-accuracy-negative',
    400,
    (c) => display(c, { device: { geo: { accuracy: -1 } } }),
    refused(/device\.geo\.accuracy must be a positive number/),
  ],
  [
    'user-geo-accuracy-negative',
    400,
    (c) => display(c, { user: { geo: { accuracy: -1 } } }),
    refused(/user\.geo\.accuracy must be a positive number/),
  ],
  ['regs-gdpr-invalid', 400, (c) => display(c, { regs: { gdpr: 2 } }), refused(/regs\.gdpr must be either 0 or 1/)],
  [
    'regs-ext-gdpr-invalid',
    400,
    (c) => display(c, { regs: { ext: { gdpr: 2 } } }),
    refused(/regs\.ext\.gdpr must be either 0 or 1/),
  ],
  [
    'regs-ext-gdpr-string',
    400,
    (c) => display(c, { regs: { ext: { gdpr: 'yes' } } }),
    refused(/regs\.ext\.gdpr must be either 0 or 1/),
  ],
  [
    'regs-ext-malformed',
    400,
    (c) => display(c, { regs: { ext: 'malformed' } }),
    refused(/regs\.ext must be an object/),
  ],
  [
    'user-ext-consent-int',
    400,
    (c) => display(c, { regs: { ext: { gdpr: 1 } }, user: { ext: { consent: 1 } } }),
    refused(/user\.ext\.consent must be a string/),
  ],
  [
    'imps-over-limit (ours: 100)',
    400,
    (c) => ({
      ...display(c),
      imp: Array.from({ length: 101 }, (_, i) => ({ id: `imp-${i}`, banner: BANNER, ext: bidder(c.display) })),
    }),
    refused(/imp must hold at most 100 impressions/),
  ],
];

/** invalid-whole: answered 200 before this change (or, for the last, a bid for a malformed request), now refused as Prebid Server refuses them. */
const NOW_REFUSED: Row[] = [
  [
    'alias-bidder-self',
    400,
    (c) => video(c, { ext: { prebid: { aliases: { adplane: 'adplane' } } } }),
    refused(/ext\.prebid\.aliases\.adplane defines a no-op alias/),
  ],
  [
    'bid-adj-factors-case-invalid-same-bidder-names',
    400,
    (c) => display(c, { ext: { prebid: { bidadjustmentfactors: { ADPLANE: 1.01, AdPlane: 2 } } } }),
    refused(/ext\.prebid\.bidadjustmentfactors cannot have multiple bidders that differ only in case style/),
  ],
  [
    'imp-ext-empty',
    400,
    (c) => video(c, {}, { ext: {} }),
    refused(/imp\[0\]\.ext\.prebid\.bidder must contain at least one bidder/),
  ],
  [
    'imp-ext-prebid-bidder-empty (and nothing else)',
    400,
    (c) => display(c, {}, { ext: { prebid: { bidder: {} }, gpid: '/1234/slot' } }),
    refused(/imp\[0\]\.ext\.prebid\.bidder must contain at least one bidder/),
  ],
  ['imp-no-ext', 400, (c) => video(c, {}, { ext: undefined }), refused(/imp\[0\]\.ext is required/)],
  [
    'native-empty-object (no assets)',
    400,
    (c) => display(c, {}, { banner: undefined, native: { request: '{}' } }),
    refused(/imp\[0\]\.native\.request\.assets must be an array containing at least one object/),
  ],
  [
    'native-assets-no-id (not JSON)',
    400,
    (c) => display(c, {}, { banner: undefined, native: { request: '{"assets": [{}]' } }),
    refused(/imp\[0\]\.native\.request must be a JSON object \(the native request\): it is not valid JSON/),
  ],
  [
    'native-assets-mixedtype, beside a banner',
    400,
    (c) => display(c, {}, { native: { request: '{"assets": [{"title": {"len": 20}, "img": {"wmin": }]' } }),
    refused(/imp\[0\]\.native\.request must be a JSON object/),
  ],
  [
    'device-sua-browsers-brand',
    400,
    (c) => display(c, { device: { sua: { browsers: [{ brand: 'Chromium', version: ['140'] }, { brand: '' }] } } }),
    refused(/device\.sua\.browsers\[1\]\.brand cannot be empty/),
  ],
  [
    'device-sua-platform',
    400,
    (c) => display(c, { device: { sua: { platform: { brand: '' }, model: 'mac' } } }),
    refused(/device\.sua\.platform\.brand cannot be empty/),
  ],
  [
    'source-schain-nodes (none)',
    400,
    (c) => display(c, { source: { tid: 't', schain: { complete: 1, ver: '1.0' } } }),
    refused(/source\.schain\.nodes cannot be empty/),
  ],
  [
    'source-schain-nodes-asi',
    400,
    (c) => display(c, { source: { schain: { complete: 1, ver: '1.0', nodes: [{ sid: 'pub-1', hp: 1 }] } } }),
    refused(/source\.schain\.nodes\[0\]\.asi cannot be empty/),
  ],
  [
    'source-schain-nodes-sid',
    400,
    (c) =>
      display(c, {
        source: { schain: { complete: 1, ver: '1.0', nodes: [{ asi: 'exchange.example', sid: '', hp: 1 }] } },
      }),
    refused(/source\.schain\.nodes\[0\]\.sid cannot be empty/),
  ],
  [
    'source-schain-ver',
    400,
    (c) =>
      display(c, {
        source: { schain: { complete: 1, ver: '', nodes: [{ asi: 'exchange.example', sid: 'pub-1', hp: 1 }] } },
      }),
    refused(/source\.schain\.ver cannot be empty/),
  ],
  [
    'source.ext.schain (OpenRTB 2.5) complete 2',
    400,
    (c) =>
      display(c, {
        source: { ext: { schain: { complete: 2, ver: '1.0', nodes: [{ asi: 'exchange.example', sid: 'pub-1' }] } } },
      }),
    refused(/source\.ext\.schain\.complete must be either 0 or 1/),
  ],
  [
    'user-ext-prebid-empty',
    400,
    (c) => display(c, { user: { ext: { prebid: {} } } }),
    refused(/user\.ext\.prebid requires a "buyeruids" property with at least one ID defined/),
  ],
  [
    'user-ext-prebid-buyeruids-empty',
    400,
    (c) => display(c, { user: { ext: { prebid: { buyeruids: {} } } } }),
    refused(/user\.ext\.prebid requires a "buyeruids" property/),
  ],
  [
    'buyeruids an id not a string',
    400,
    (c) => display(c, { user: { ext: { prebid: { buyeruids: { adplane: 42 } } } } }),
    refused(/user\.ext\.prebid\.buyeruids\.adplane must be a string/),
  ],
  [
    'user.eids not a list',
    400,
    (c) => display(c, { user: { eids: { source: 'id5-sync.com' } } }),
    refused(/user\.eids must be an array/),
  ],
  [
    'req-ext-prebid-channel-name-empty',
    400,
    (c) => display(c, { ext: { prebid: { channel: { name: '', version: '' } } } }),
    refused(/^Invalid request: ext\.prebid\.channel\.name can't be empty/),
  ],
  [
    'req-ext-prebid-channel without a name',
    400,
    (c) => display(c, { ext: { prebid: { channel: { version: '9.1' } } } }),
    refused(/ext\.prebid\.channel\.name can't be empty/),
  ],
  [
    'req-ext-prebid-channel not an object',
    400,
    (c) => display(c, { ext: { prebid: { channel: 'pbjs' } } }),
    refused(/ext\.prebid\.channel must be an object/),
  ],
  [
    'a uid id not a string',
    400,
    (c) => display(c, { user: { eids: [{ source: 'id5-sync.com', uids: [{ id: 7 }] }] } }),
    refused(/user\.eids\[0\]\.uids\[0\]\.id must be a string/),
  ],
];

const debugEids = (where: 'eids' | 'ext') => (answer: Answer) => {
  const user = answer.ext.debug!.resolvedrequest.user!;
  expect(where === 'eids' ? user.eids : (user.ext as Obj).eids).toEqual([
    { source: 'kept.example', uids: [{ id: 'u-1' }] },
  ]);
};

/** The request's regs as the auction read them (Prebid Server drops an invalid US Privacy string with warning 10001). */
const debugRegs = (regs: Obj) => (answer: Answer) => {
  expect((answer.ext.debug!.resolvedrequest as { regs?: Obj }).regs).toEqual(regs);
};

/** Accepted as Prebid Server accepts them, where adplane refused them or did not bid before. */
const NOW_ACCEPTED: Row[] = [
  // Prebid Server removes empty eids and uids with a warning (10013, 10014) rather than refusing the request; demand is not sent them
  [
    'user-eids-source-empty',
    200,
    (c) =>
      display(c, {
        test: 1,
        user: { eids: [{ uids: [{ id: 'A' }] }, { source: 'kept.example', uids: [{ id: 'u-1' }] }] },
      }),
    bids(1, /user\.eids\[0\] removed due to missing source/, debugEids('eids')),
  ],
  [
    'user-eids-uids-id-empty',
    200,
    (c) => display(c, { test: 1, user: { eids: [{ source: 'kept.example', uids: [{ id: '' }, { id: 'u-1' }] }] } }),
    bids(1, /user\.eids\[0\]\.uids\[0\] removed due to empty ids/, debugEids('eids')),
  ],
  [
    'user-eids-uids-missing',
    200,
    (c) =>
      display(c, {
        test: 1,
        user: { eids: [{ source: 'gone.example' }, { source: 'kept.example', uids: [{ id: 'u-1' }] }] },
      }),
    bids(1, /user\.eids\[0\] \(source: gone\.example\) removed due to empty uids/, debugEids('eids')),
  ],
  [
    'user-ext-eids-source-empty (OpenRTB 2.5)',
    200,
    (c) =>
      display(c, {
        test: 1,
        user: {
          ext: {
            eids: [
              { source: '', uids: [{ id: 'A' }] },
              { source: 'kept.example', uids: [{ id: 'u-1' }] },
            ],
          },
        },
      }),
    bids(1, /user\.ext\.eids\[0\] removed due to missing source/, debugEids('ext')),
  ],
  // imp.ext.<bidder> in any case, as Prebid Server promotes it into ext.prebid.bidder and normalises the code
  [
    'all-ext-case-insensitive (imp.ext.AdPlane)',
    200,
    (c) =>
      display(
        c,
        {
          ext: {
            prebid: {
              aliases: { districtm: 'APPNEXUS' },
              bidadjustmentfactors: { AdPlane: 0.99, APPNEXUS: 1.01 },
              cache: { bids: {} },
              targeting: { includewinners: false },
            },
          },
        },
        { ext: { AdPlane: { channel: c.display }, Appnexus: { placementId: 1 } } },
      ),
    bids(1),
  ],
  [
    'bid-adj-factors-case-insensitive (imp.ext.ADPLANE)',
    200,
    (c) =>
      display(
        c,
        { ext: { prebid: { bidadjustmentfactors: { AdPlane: 2 } } } },
        { ext: { ADPLANE: { channel: c.display } } },
      ),
    bids(1),
  ],
  [
    'an alias under imp.ext',
    200,
    (c) => display(c, { ext: { prebid: { aliases: { mine: 'adplane' } } } }, { ext: { mine: { channel: c.display } } }),
    bids(1),
  ],
  // ext.prebid.bidderparams: the request's params for a bidder, merged into each impression's where it lacks them
  [
    'req-ext-bidder-params',
    200,
    (c) =>
      display(
        c,
        { ext: { prebid: { bidderparams: { adplane: { channel: c.display }, pubmatic: { publisherId: '1' } } } } },
        { ext: { prebid: { bidder: { adplane: {}, pubmatic: {} } } } },
      ),
    bids(1),
  ],
  [
    'req-ext-bidder-params-promotion (imp.ext.adplane)',
    200,
    (c) =>
      display(
        c,
        { ext: { prebid: { bidderparams: { adplane: { channel: c.display } } } } },
        { ext: { adplane: {}, arbitraryObject: { field: 1 } } },
      ),
    bids(1),
  ],
  [
    "req-ext-bidder-params: the impression's own first",
    200,
    (c) => display(c, { ext: { prebid: { bidderparams: { adplane: { channel: 'not-a-channel' } } } } }),
    bids(1),
  ],
  // ae and igs (Protected Audience) name no bidder: the impression still takes the request's stored request
  [
    'imp.ext.ae under a stored request',
    200,
    (c) => ({
      id: 'req-1',
      site: SITE,
      imp: [{ id: 'imp-1', banner: BANNER, ext: { ae: 1, igs: { ae: 1 } } }],
      ext: { prebid: { storedrequest: { id: c.display } } },
    }),
    bids(1),
  ],
];

/** Prebid Server refuses these; adplane answers 200 on purpose (docs/prebid.md). */
const DIFFERENT_ON_PURPOSE: Row[] = [
  [
    'imp-ext-unknown-bidder (only another bidder)',
    400,
    (c) => display(c, {}, { ext: { noBidderShouldEverHaveThisName: { bogusParam: 5 } } }),
    bids(0, /no impression is for adplane/),
  ],
  [
    'unknown-bidder (beside adplane)',
    400,
    (c) => display(c, {}, { ext: { adplane: { channel: c.display }, unknownbidder: { param1: 'foobar' } } }),
    bids(1),
  ],
  [
    'alias-unknown-core',
    400,
    (c) => ({
      ...video(c, { ext: { prebid: { aliases: { unknown: 'other-unknown' } } } }),
      imp: [
        { id: 'a', video: VIDEO, ext: { unknown: {} } },
        { id: 'b', video: VIDEO, ext: bidder(c.video) },
      ],
    }),
    bids(1),
  ],
  [
    'bid-adjustment-invalid-bidder',
    400,
    (c) => video(c, { ext: { prebid: { bidadjustmentfactors: { unknown: 2 } } } }),
    bids(1),
  ],
  [
    'imp-ext-prebid-bidder-empty, adplane under imp.ext',
    400,
    (c) => display(c, {}, { ext: { prebid: { bidder: {} }, adplane: { channel: c.display } } }),
    bids(1),
  ],
  ['metric-empty-object (imp.metric)', 400, (c) => display(c, {}, { metric: [{}] }), bids(1)],
  [
    'interstitial-empty (no size to make the list from)',
    400,
    (c) =>
      display(
        c,
        { device: { ext: { prebid: { interstitial: { minwidthperc: 60, minheightperc: 60 } } } } },
        { instl: 1, banner: {} },
      ),
    bids(1),
  ],
  [
    'interstital-bad-perc',
    400,
    (c) =>
      display(
        c,
        { device: { w: 320, h: 640, ext: { prebid: { interstitial: { minwidthperc: 120, minheightperc: 60 } } } } },
        { instl: 1 },
      ),
    bids(1),
  ],
  [
    'app-bad-ext / invalid-source (app.ext.prebid.source an object)',
    400,
    (c) => ({
      ...display(c, {
        site: undefined,
        app: { bundle: 'com.example.news', ext: { prebid: { source: { foo: 'prebid-mobile' }, version: '1.0' } } },
      }),
    }),
    { status: 200, bids: 1 },
  ],
  [
    'digitrust (retired)',
    400,
    (c) => display(c, { user: { ext: { digitrust: { id: 'x', keyv: 1, pref: 1 } } } }),
    bids(1),
  ],
  // Prebid Server no longer refuses these either
  [
    'regs-ext-usprivacy-invalid',
    400,
    (c) => display(c, { regs: { ext: { us_privacy: 'invalid by length' } } }),
    bids(
      1,
      /"code":10001,"message":"CCPA consent is invalid and will be ignored\. \(request\.regs\.ext\.us_privacy must contain 4 characters\)"/,
    ),
  ],
  ['user-ext-empty', 400, (c) => display(c, { user: { ext: {} } }), bids(1)],
  [
    'user-ext-eids-source-duplicate',
    400,
    (c) =>
      display(c, {
        user: {
          ext: {
            eids: [
              { source: 's.example', uids: [{ id: 'A' }] },
              { source: 's.example', uids: [{ id: 'B' }] },
            ],
          },
        },
      }),
    bids(1),
  ],
];

/** valid-whole exemplary and supplementary, for one bidder: 200 and a bid. */
const VALID: Row[] = [
  [
    'all-ext',
    200,
    (c) =>
      display(
        c,
        {
          user: { ext: { consent: 'CO-consent', prebid: { buyeruids: { appnexus: 'a-1', adplane: 'p-1' } } } },
          regs: { ext: { gdpr: 1, us_privacy: '1NYN' } },
          ext: {
            prebid: {
              aliases: { districtm: 'appnexus' },
              bidadjustmentfactors: { appnexus: 1.01, districtm: 0.98, adplane: 0.99 },
              cache: { bids: {} },
              targeting: {
                includewinners: false,
                pricegranularity: { precision: 2, ranges: [{ max: 20, increment: 0.1 }] },
              },
            },
          },
        },
        { ext: { adplane: { channel: c.display }, appnexus: { placementId: 1 }, districtm: { placementId: 105 } } },
      ),
    bids(1),
  ],
  [
    'bidadjustments (rules, not applied)',
    200,
    (c) =>
      display(c, {
        ext: {
          prebid: {
            currency: { rates: { EUR: { USD: 2 } }, usepbsrates: false },
            bidadjustments: {
              mediatype: { banner: { adplane: { '*': [{ adjtype: 'cpm', value: 5, currency: 'EUR' }] } } },
            },
          },
        },
      }),
    bids(1),
  ],
  [
    'device-sua',
    200,
    (c) =>
      display(c, {
        device: {
          ua: 'Mozilla',
          geo: { lat: 123.456, lon: 678.9 },
          sua: { browsers: [{ brand: 'MS', ext: {} }, { brand: 'MS' }], platform: { brand: 'MS' }, model: 'mac' },
          dnt: 1,
          lmt: 1,
        },
      }),
    bids(1),
  ],
  ['dooh', 200, (c) => display(c, { site: undefined, dooh: { id: 'screen-1' } }), bids(1)],
  [
    'eidpermissions',
    200,
    (c) =>
      display(c, {
        ext: {
          prebid: {
            data: { eidpermissions: [{ source: 'source1', bidders: ['ADPLANE'] }] },
            channel: { name: 'video', version: '1.0' },
          },
        },
      }),
    bids(1),
  ],
  ['interstitial-no-size', 200, (c) => display(c, {}, { instl: 1, banner: {} }), bids(1)],
  [
    'ortb-2.5-to-2.6-upconvert',
    200,
    (c) =>
      display(
        c,
        {
          regs: { ext: { gdpr: 1, us_privacy: '1YYY' } },
          user: {
            ext: {
              consent: 'c',
              eids: [
                {
                  source: 'source',
                  uids: [
                    { id: '1', atype: 1 },
                    { id: '1', atype: 1 },
                  ],
                },
              ],
            },
          },
          source: {
            ext: {
              schain: { complete: 1, nodes: [{ asi: 'whatever.com', sid: '1234', rid: '123', hp: 1 }], ver: '2.0' },
            },
          },
        },
        { ext: { prebid: { bidder: { adplane: { channel: c.display } }, is_rewarded_inventory: 1 } } },
      ),
    bids(1),
  ],
  [
    'ortb-2.6-to-2.5-downconvert',
    200,
    (c) =>
      display(
        c,
        { site: { page: SITE.page, inventorypartnerdomain: 'partner.example' }, cattax: 2, acat: ['IAB1'] },
        { refresh: { count: 10 }, rwdd: 1 },
      ),
    bids(1),
  ],
  [
    'preferred-media-type (banner and video, display channel)',
    200,
    (c) =>
      display(
        c,
        { ext: { prebid: { biddercontrols: { adplane: { prefmtype: 'video' } } } } },
        { video: { mimes: ['video/mp4'], w: 640, h: 480 } },
      ),
    bids(1),
  ],
  ['skadn', 200, (c) => display(c, {}, { ext: { ...bidder(c.display), skadn: { version: '2.0' } } }), bids(1)],
  [
    'source-schain',
    200,
    (c) =>
      display(c, {
        source: {
          fd: 1,
          tid: 't',
          pchain: 'p',
          schain: {
            complete: 1,
            nodes: [{ asi: 'exchange.example', sid: 'pub-1', rid: 'r', ext: {} }],
            ver: '1.0',
            ext: {},
          },
        },
      }),
    bids(1),
  ],
  [
    'targeting-optional-includeformat-only',
    200,
    (c) => display(c, { ext: { prebid: { targeting: { includeformat: true } } } }),
    bids(1),
  ],
  ['user-ext-eids-empty', 200, (c) => display(c, { user: { ext: { eids: [] } } }), bids(1)],
  [
    'user-ext-prebid-buyeruids',
    200,
    (c) => display(c, { user: { consent: 'c', ext: { prebid: { buyeruids: { appnexus: 'a', adplane: 'b' } } } } }),
    bids(1),
  ],
  [
    'aliased-buyeruids',
    200,
    (c) =>
      display(
        c,
        { user: { ext: { prebid: { buyeruids: { mine: 'x' } } } }, ext: { prebid: { aliases: { mine: 'adplane' } } } },
        { ext: { prebid: { bidder: { mine: { channel: c.display } } } } },
      ),
    bids(1),
  ],
  ['app', 200, (c) => display(c, { site: undefined, app: { id: 'app-1', bundle: 'com.example.app' } }), bids(1)],
  [
    'app-ios140-no-ifa',
    200,
    (c) =>
      display(c, {
        site: undefined,
        app: { bundle: 'com.example.app' },
        device: { os: 'iOS', osv: '14.0', ifa: '', ext: { atts: 0 } },
      }),
    bids(1),
  ],
  ['cache-bids', 200, (c) => display(c, { ext: { prebid: { cache: { bids: {} } } } }), bids(1)],
  ['cache-vast', 200, (c) => video(c, { ext: { prebid: { cache: { vastxml: {} } } } }), bids(1)],
  [
    'ccpa-invalid',
    200,
    (c) => display(c, { test: 1, regs: { us_privacy: '{invalid}' } }),
    bids(
      1,
      /"code":10001,"message":"CCPA consent is invalid and will be ignored\. \(request\.regs\.us_privacy must contain 4 characters\)"/,
      debugRegs({}),
    ),
  ],
  [
    'ccpa-invalid (a version other than 1)',
    200,
    (c) => display(c, { test: 1, regs: { ext: { gdpr: 0, us_privacy: '2YNN' } } }),
    bids(1, /\(request\.regs\.ext\.us_privacy must specify version 1\)"/, debugRegs({ ext: { gdpr: 0 } })),
  ],
  [
    'ccpa-invalid (a signal other than Y, N or -)',
    200,
    (c) => display(c, { test: 1, regs: { us_privacy: '1NXN' } }),
    bids(1, /\(request\.regs\.us_privacy must specify 'N', 'Y' or '-' for the opt-out sale\)"/, debugRegs({})),
  ],
  [
    'ccpa-valid, lower case: kept',
    200,
    (c) => display(c, { test: 1, regs: { us_privacy: '1nyn' } }),
    bids(1, undefined, debugRegs({ us_privacy: '1nyn' })),
  ],
  [
    'empty-gppsid-conflict',
    200,
    (c) =>
      display(c, {
        regs: {
          gpp: 'DBACNYA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1NYN',
          gpp_sid: [],
          gdpr: 1,
          ext: { us_privacy: '1YYY' },
        },
        user: { consent: 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA' },
      }),
    bids(1),
  ],
  [
    'first-party-data',
    200,
    (c) =>
      video(
        c,
        {
          site: {
            id: 's',
            page: SITE.page,
            content: { episode: 6, data: [{ id: 'd' }] },
            ext: { amp: 1, data: { key: 'v' } },
          },
          user: { id: 'u', yob: 1982, data: [{ id: 'd' }], ext: { data: { key: 'v' } } },
          test: 1,
          ext: {
            prebid: {
              data: { bidders: ['adplane'] },
              bidderconfig: [{ bidders: ['adplane'], config: { ortb2: { site: { keywords: 'k' } } } }],
            },
          },
        },
        { ext: { adplane: { channel: c.video }, telaria: { seatCode: 't' } } },
      ),
    bids(1),
  ],
  [
    'multi-bid-error',
    200,
    (c) => display(c, { ext: { prebid: { multibid: [{ bidder: 'adplane' }, { maxbids: -1, bidder: 'rubicon' }] } } }),
    bids(1),
  ],
  ['site-amp', 200, (c) => display(c, { site: { page: SITE.page, ext: { amp: 1 } } }), bids(1)],
  ['site-has-ipv6', 200, (c) => display(c, { device: { ipv6: '2001:4860:4860::8888' } }), bids(1)],
  [
    'imp-with-stored-bid-resp (not used)',
    200,
    (c) =>
      display(
        c,
        {},
        {
          ext: {
            prebid: {
              bidder: { adplane: { channel: c.display } },
              storedbidresponse: [{ bidder: 'adplane', id: '1' }],
            },
          },
        },
      ),
    bids(1),
  ],
];

onSqliteStore((t) => {
  const publisher = prebidPublisher(t, {
    label: 'Samples',
    imageUrl: 'https://cdn.example.com/s300x250.png',
    mediaUrl: 'https://cdn.example.com/samples.mp4',
    listen: false,
  });

  const check = async (body: unknown, expected: Expect) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const res = await edgeRequest(publisher.app, {
      method: 'POST',
      url: '/openrtb2/auction',
      payload,
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode, res.body).toBe(expected.status);
    if (expected.status === 400) {
      expect(res.body).toMatch(/^Invalid request: /);
      expect(res.body).toMatch(expected.message);
      return;
    }
    const answer = res.json() as Answer;
    expect(answer.ext.errors, res.body).toBeUndefined();
    expect(
      answer.seatbid.flatMap((s) => s.bid),
      res.body,
    ).toHaveLength(expected.bids);
    const warnings = JSON.stringify(answer.ext.warnings ?? null);
    if (expected.warning) expect(warnings).toMatch(expected.warning);
    else if (expected.bids) expect(answer.ext.warnings, res.body).toBeUndefined();
    expected.check?.(answer);
  };
  const channels = (): Channels => ({ display: publisher.ids.display!.uid, video: publisher.ids.instream!.uid });

  describe("Prebid Server's request samples", () => {
    it.each(ALREADY_REFUSED)('%s: Prebid Server %i, refused here too', async (_name, _pbs, body, expected) =>
      check(body(channels()), expected),
    );
    it.each(NOW_REFUSED)('%s: Prebid Server %i, refused here too', async (_name, _pbs, body, expected) =>
      check(body(channels()), expected),
    );
    it.each(NOW_ACCEPTED)('%s: Prebid Server %i, accepted here too', async (_name, _pbs, body, expected) =>
      check(body(channels()), expected),
    );
    it.each(DIFFERENT_ON_PURPOSE)(
      '%s: Prebid Server %i, answered 200 here on purpose',
      async (_name, _pbs, body, expected) => check(body(channels()), expected),
    );
    it.each(VALID)('%s: Prebid Server %i, bid here', async (_name, _pbs, body, expected) =>
      check(body(channels()), expected),
    );
  });
});
