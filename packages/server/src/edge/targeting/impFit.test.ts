import { type BidRequest, type Imp } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { adomainOf, type DemandInline, iabCodesOf, readVastAnswer } from '../vast/vastAnswer.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { buildRequestContext } from '../request/context.js';
import { categoryBlocked, demandAdRefusal as refusalIn, playsOneOf, podRepeats } from './impFit.js';

/** The ad against an OpenRTB impression: the request context an inbound /rtb or Prebid call makes. */
const demandAdRefusal = (ad: DemandInline, imp: Imp, request: BidRequest) =>
  refusalIn(
    ad,
    contextOfBidRequest({ ...request, imp: [imp] }, imp, { remoteAddress: '', userAgent: '' }, Date.now(), () => ({
      country: '',
      region: '',
      usState: '',
    })),
    [],
    [],
  );

const ad = (
  advertiser: string,
  categories = '',
  skip = '',
  duration = '00:00:15',
  mime = 'video/mp4',
): DemandInline => {
  const read =
    readVastAnswer(`<VAST version="4.2"><Ad><InLine><AdSystem>D</AdSystem><AdTitle>T</AdTitle><Impression>https://d.test/i</Impression><Advertiser>${advertiser}</Advertiser>${categories}
<Creatives><Creative><Linear${skip ? ` skipoffset="${skip}"` : ''}><Duration>${duration}</Duration><MediaFiles><MediaFile delivery="progressive" type="${mime}" width="640" height="360">https://d.test/a.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
  if (read.kind !== 'inline') throw new Error(read.kind);
  return read;
};
const IAB = 'https://iabtechlab.com/standards/content-taxonomy';
const noGeo = () => ({ country: '', region: '', usState: '' });
const imp = (video: NonNullable<Imp['video']> = { mimes: ['video/mp4'] }): Imp => ({ id: '1', video });
const request = (extra: Partial<BidRequest> = {}): BidRequest => ({ id: 'r', imp: [imp()], ...extra });

describe("a VAST demand's ad against the OpenRTB impression it would answer", () => {
  it('reads its advertiser as adomain when it is a domain (a URL host counts, www. dropped), and its IAB content codes as cat', () => {
    expect(adomainOf(ad('https://www.Brand.example.com/about'))).toEqual(['brand.example.com']);
    expect(adomainOf(ad('brand.co.uk'))).toEqual(['brand.co.uk']);
    expect(adomainOf(ad('Brand Motors Inc.'))).toEqual([]);
    expect(adomainOf(ad(''))).toEqual([]);
    const cats = ad(
      'b.example',
      `<Category authority="${IAB}">IAB2-3</Category><Category authority="${IAB}">iab7, IAB19-2</Category><Category authority="https://iabtechlab.com/ad-product">232</Category><Category>IAB3</Category>`,
    );
    // a Category without its authority is not one (VAST 4 requires it)
    expect(cats.categories.map((c) => c.code)).toEqual(['IAB2-3', 'iab7, IAB19-2', '232']);
    expect(iabCodesOf(cats)).toEqual(['IAB2-3', 'IAB7', 'IAB19-2']);
  });

  it('refuses what the request blocks: the advertiser (a subdomain too), a category (a subcategory too), a skippable ad under battr 16', () => {
    expect(demandAdRefusal(ad('shop.brand.example'), imp(), request({ badv: ['brand.example'] }))).toBe(
      'blocked_adomain',
    );
    expect(demandAdRefusal(ad('notbrand.example'), imp(), request({ badv: ['brand.example'] }))).toBeNull();
    expect(
      demandAdRefusal(
        ad('b.example', `<Category authority="${IAB}">IAB7-39</Category>`),
        imp(),
        request({ bcat: ['IAB7'] }),
      ),
    ).toBe('blocked_category');
    expect(
      demandAdRefusal(
        ad('b.example', `<Category authority="${IAB}">IAB17</Category>`),
        imp(),
        request({ bcat: ['IAB7'] }),
      ),
    ).toBeNull();
    expect(
      demandAdRefusal(ad('b.example', '', '00:00:05'), imp({ mimes: ['video/mp4'], battr: [16] }), request()),
    ).toBe('blocked_attribute');
    expect(
      demandAdRefusal(ad('b.example', '', '00:00:05'), imp({ mimes: ['video/mp4'], battr: [13] }), request()),
    ).toBeNull();
  });

  it('refuses a length or media type the player does not take; a request stating nothing refuses nothing', () => {
    expect(demandAdRefusal(ad('b.example', '', '', '00:00:30'), imp({ maxduration: 15 }), request())).toBe(
      'duration_not_allowed',
    );
    expect(demandAdRefusal(ad('b.example', '', '', '00:00:06'), imp({ minduration: 10 }), request())).toBe(
      'duration_not_allowed',
    );
    expect(demandAdRefusal(ad('b.example', '', '', '00:00:15.2'), imp({ rqddurs: [15, 30] }), request())).toBeNull();
    expect(demandAdRefusal(ad('b.example', '', '', '00:00:20'), imp({ rqddurs: [15, 30] }), request())).toBe(
      'duration_not_allowed',
    );
    // exact lengths asked (live TV): an ad of unknown length cannot promise one; bounds alone let it through
    expect(demandAdRefusal(ad('b.example', '', '', ''), imp({ rqddurs: [15, 30] }), request())).toBe(
      'duration_not_allowed',
    );
    expect(demandAdRefusal(ad('b.example', '', '', ''), imp({ maxduration: 30 }), request())).toBeNull();
    expect(
      demandAdRefusal(ad('b.example', '', '', '00:00:15', 'video/webm'), imp({ mimes: ['video/mp4'] }), request()),
    ).toBe('mime_not_allowed');
    // a type compares without case and parameters: a player listing its codecs plays the MP4
    expect(
      demandAdRefusal(ad('b.example'), imp({ mimes: ['video/mp4; codecs="avc1.42E01E, mp4a.40.2"'] }), request()),
    ).toBeNull();
    expect(
      demandAdRefusal(ad('b.example', '', '', '00:00:15', 'Video/MP4'), imp({ mimes: ['video/mp4'] }), request()),
    ).toBeNull();
    expect(demandAdRefusal(ad('b.example'), imp({ mimes: ['video/webm; codecs=vp9'] }), request())).toBe(
      'mime_not_allowed',
    );
    expect(
      demandAdRefusal(
        ad('b.example', `<Category authority="${IAB}">IAB7</Category>`, '00:00:05', '00:01:00', 'video/webm'),
        imp({}),
        request(),
      ),
    ).toBeNull();
  });

  it("refuses, on any call, an ad whose IAB category the channel's or the source's targeting blocks (a tier-1 code blocks its sub-categories)", () => {
    // a player's VAST tag call: no OpenRTB request, the targetings' blocked ad categories alone
    const tagCall = buildRequestContext(
      { w: '640', h: '360' },
      { remoteAddress: '127.0.0.1', userAgent: '' },
      Date.now(),
      noGeo,
    );
    const health = ad('b.example', `<Category authority="${IAB}">IAB7-39</Category>`);
    expect(refusalIn(health, tagCall, [], ['IAB7'])).toBe('blocked_category');
    expect(refusalIn(health, tagCall, [], ['IAB7-39'])).toBe('blocked_category');
    expect(refusalIn(health, tagCall, [], ['IAB7-38', 'IAB17'])).toBeNull();
    // a category of another taxonomy (the ad product one) is not an IAB 1.0 code, and no category blocks nothing
    expect(
      refusalIn(
        ad('b.example', '<Category authority="https://iabtechlab.com/ad-product">7</Category>'),
        tagCall,
        [],
        ['IAB7'],
      ),
    ).toBeNull();
    expect(refusalIn(ad('b.example'), tagCall, [], ['IAB7'])).toBeNull();
    // answering an OpenRTB impression: ours and the request's bcat both hold
    expect(demandAdRefusal(health, imp(), request({ bcat: ['IAB25'] }))).toBeNull();
    const ortb = contextOfBidRequest(
      request({ bcat: ['IAB25'] }),
      imp(),
      { remoteAddress: '', userAgent: '' },
      Date.now(),
      noGeo,
    );
    expect(refusalIn(health, ortb, [], ['IAB7'])).toBe('blocked_category');
  });

  it('matches a blocked category by itself or as the tier-1 parent of a sub-category, never by a prefix alone', () => {
    expect(categoryBlocked('IAB7-39', ['IAB7'])).toBe(true);
    expect(categoryBlocked('IAB7', ['IAB7'])).toBe(true);
    expect(categoryBlocked('IAB17', ['IAB1'])).toBe(false);
    expect(categoryBlocked('IAB1-7', ['IAB1-7', 'IAB2'])).toBe(true);
    expect(categoryBlocked('IAB7', ['IAB7-39'])).toBe(false);
  });

  it('tells an ad that repeats, in an ad pod, an advertiser (a subdomain too) or the video an earlier slot has', () => {
    const pod = {
      id: 'p',
      sequence: 2,
      slots: 3,
      campaigns: new Set<number>(),
      advertisers: new Set<number>(),
      domains: ['brand.example'],
      media: new Set(['https://cdn.example/a.mp4']),
    };
    expect(podRepeats(pod, ['shop.Brand.example'], '')).toBe('pod_separation');
    expect(podRepeats(pod, ['notbrand.example'], 'https://cdn.example/b.mp4')).toBeNull();
    expect(podRepeats(pod, [], 'https://cdn.example/a.mp4')).toBe('pod_repeat');
    // the same video of the same advertiser: the video is what it repeats
    expect(podRepeats(pod, ['brand.example'], 'https://cdn.example/a.mp4')).toBe('pod_repeat');
    expect(
      podRepeats({ ...pod, domains: [], media: new Set() }, ['brand.example'], 'https://cdn.example/a.mp4'),
    ).toBeNull();
  });
});

describe('the media types an impression plays', () => {
  it('matches a file by its type, without case or parameters; entries that are not text match nothing', () => {
    expect(playsOneOf(['video/mp4; codecs="avc1"'], [{ mime: 'video/mp4' }])).toBe(true);
    expect(playsOneOf(['VIDEO/MP4'], [{ mime: 'video/mp4;  codecs=avc1' }])).toBe(true);
    expect(playsOneOf(['application/x-mpegURL'], [{ mime: 'application/x-mpegurl' }])).toBe(true);
    expect(playsOneOf(['video/webm'], [{ mime: 'video/mp4' }])).toBe(false);
    expect(playsOneOf([7, null], [{ mime: 'video/mp4' }])).toBe(false);
  });
});
