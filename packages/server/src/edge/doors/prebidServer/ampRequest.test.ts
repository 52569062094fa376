import { describe, expect, it } from 'vitest';
import { ampSizes, readAmpRequest } from './ampRequest.js';

const q = (s: string) => new URLSearchParams(s);

describe("an AMP page's Real Time Config call", () => {
  it("makes the sizes as Prebid Server does: the slot's (overrides first), then the multi-size list", () => {
    expect(ampSizes(q('w=320&h=50&ow=300&oh=250&ms=728x90'))).toEqual([
      { w: 300, h: 250 },
      { w: 728, h: 90 },
    ]);
    expect(ampSizes(q('w=320&h=50&ow=300'))).toEqual([{ w: 300, h: 50 }]);
    expect(ampSizes(q('w=320&h=50&oh=100'))).toEqual([{ w: 320, h: 100 }]);
    expect(ampSizes(q('w=320&h=50&ms=970x90, 320x50,bogus'))).toEqual([
      { w: 320, h: 50 },
      { w: 970, h: 90 },
    ]);
    expect(ampSizes(q('ms=970x90'))).toEqual([{ w: 970, h: 90 }]);
    expect(ampSizes(q('w=320'))).toEqual([]);
  });

  it('becomes a Prebid Server request for one secure banner of the channel, with tmax at most 1000 ms and the consent in its place', () => {
    const read = readAmpRequest(
      q(
        'tag_id=a1b2c3&w=300&h=250&slot=%2F1%2Famp&curl=https%3A%2F%2Fnews.example%2Fa&timeout=700&targeting=%7B%22k%22%3A%22v%22%7D&gdpr_consent=USPSTRING&consent_type=3&gdpr_applies=false&addtl_consent=1~7.12',
      ),
    );
    if (!read.ok) throw new Error(read.message);
    expect(read.body).toMatchObject({
      imp: [
        {
          id: 'amp',
          banner: { format: [{ w: 300, h: 250 }] },
          secure: 1,
          tagid: '/1/amp',
          ext: { prebid: { storedrequest: { id: 'a1b2c3' } }, data: { k: 'v' } },
        },
      ],
      site: { page: 'https://news.example/a', ext: { amp: 1 } },
      tmax: 700,
      regs: { ext: { us_privacy: 'USPSTRING', gdpr: 0 } },
      user: { ext: { ConsentedProvidersSettings: { consented_providers: '1~7.12' } } },
      ext: { prebid: { cache: { bids: {} }, targeting: { pricegranularity: 'medium', includewinners: true } } },
    });
    const tcf = readAmpRequest(q('tag_id=a1b2c3&timeout=5000&consent_string=CPX&gdpr_applies=true'));
    expect(tcf.ok && tcf.body).toMatchObject({
      tmax: 1000,
      user: { ext: { consent: 'CPX' } },
      regs: { ext: { gdpr: 1 } },
    });
    // a GPP string goes where OpenRTB 2.6 keeps it; a type adplane does not know is not passed on as anything
    const gpp = readAmpRequest(q('tag_id=a1b2c3&gdpr_consent=DBABMA~CPX&consent_type=4&gpp_sid=2,6'));
    expect(gpp.ok && gpp.body).toMatchObject({ regs: { gpp: 'DBABMA~CPX', gpp_sid: [2, 6] } });
    expect(gpp.ok && gpp.body.user).toBeUndefined();
    const unknown = readAmpRequest(q('tag_id=a1b2c3&gdpr_consent=XYZ&consent_type=9'));
    expect(unknown.ok && [unknown.body.user, unknown.body.regs]).toEqual([undefined, undefined]);
  });
});
