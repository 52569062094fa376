import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../../test/vastSchema.js';
import { readVastAnswer } from '../vast/vastAnswer.js';
import { noTrackers } from '../vast/vastWriter.js';
import { type MacroValues } from './auctionMacros.js';
import { BID_PRICE } from './demandPricing.js';
import { type OrtbMarkup, ortbVastDocument } from './ortbMarkup.js';

const MACROS = '${AUCTION_PRICE}/${AUCTION_ID}/${AUCTION_BID_ID}';

const INLINE = `<VAST version="4.2"><Ad id="a"><InLine><AdSystem>dsp ${MACROS}</AdSystem><AdTitle>t ${MACROS}</AdTitle>
<Impression><![CDATA[https://d.example/imp?p=\${AUCTION_PRICE}&b=\${AUCTION_BID_ID}]]></Impression><Error>https://d.example/err?p=\${AUCTION_PRICE}</Error>
<Creatives><Creative><Linear><Duration>00:00:15</Duration><TrackingEvents><Tracking event="start">https://d.example/start?p=\${AUCTION_PRICE}</Tracking></TrackingEvents>
<VideoClicks><ClickThrough>https://brand.example/?a=\${AUCTION_ID}</ClickThrough><ClickTracking>https://d.example/click?p=\${AUCTION_PRICE}</ClickTracking></VideoClicks>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://cdn.example/ad.mp4?p=\${AUCTION_PRICE}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;

// what else a bid's VAST carries, with macros in it: viewability, a verification vendor, a progress event and a skip offset
const MEASURED = INLINE.replace(
  '<AdTitle>',
  `<ViewableImpression><Viewable>https://d.example/v?p=\${AUCTION_PRICE}</Viewable></ViewableImpression><AdTitle>`,
)
  .replace(
    '<Creatives>',
    `<AdVerifications><Verification vendor="dv"><JavaScriptResource apiFramework="omid">https://dv.example/omid.js?a=\${AUCTION_ID}</JavaScriptResource><TrackingEvents><Tracking event="verificationNotExecuted">https://dv.example/ne?p=\${AUCTION_PRICE}</Tracking></TrackingEvents><VerificationParameters>x</VerificationParameters></Verification></AdVerifications><Creatives>`,
  )
  .replace(
    '<Linear>',
    `<Linear skipoffset="00:00:05"><Icons><Icon program="AdChoices" width="20" height="20"><StaticResource creativeType="image/png">https://d.example/ac.png?p=\${AUCTION_PRICE}</StaticResource><IconClicks><IconClickThrough>https://d.example/privacy?a=\${AUCTION_ID}</IconClickThrough></IconClicks></Icon></Icons>`,
  )
  .replace('<Duration>', '<AdParameters><![CDATA[{"price":"${AUCTION_PRICE}"}]]></AdParameters><Duration>')
  .replace(
    '</Creative></Creatives>',
    `</Creative><Creative><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png">https://d.example/c.png?p=\${AUCTION_PRICE}</StaticResource><CompanionClickThrough>https://brand.example/c?a=\${AUCTION_ID}</CompanionClickThrough><TrackingEvents><Tracking event="creativeView">https://d.example/cv?p=\${AUCTION_PRICE}</Tracking></TrackingEvents></Companion></CompanionAds></Creative></Creatives>`,
  )
  .replace(
    '<Tracking event="start">',
    '<Tracking event="progress" offset="25%">https://d.example/q?p=${AUCTION_PRICE}</Tracking><Tracking event="start">',
  )
  // captions, a mezzanine and a SIMID file; its advertiser and category
  .replace(
    '<MediaFiles>',
    '<MediaFiles><ClosedCaptionFiles><ClosedCaptionFile type="text/vtt" language="en">https://d.example/cc.vtt?p=${AUCTION_PRICE}</ClosedCaptionFile></ClosedCaptionFiles>',
  )
  .replace(
    '</MediaFiles>',
    '<Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080">https://d.example/mezz.mp4?a=${AUCTION_ID}</Mezzanine><InteractiveCreativeFile type="text/html" apiFramework="SIMID">https://d.example/simid.html?p=${AUCTION_PRICE}</InteractiveCreativeFile></MediaFiles>',
  )
  .replace(
    '<Creatives>',
    '<Advertiser>brand.example</Advertiser><Category authority="https://iabtechlab.com/standards/content-taxonomy">IAB2</Category><Creatives>',
  );

// a tracker that is a macro alone, with no value at the win, is dropped both ways
const BARE_MACRO = '<Impression>${AUCTION_LOSS}</Impression>';

const WRAPPER = `<VAST version="3.0"><Ad><Wrapper><AdSystem>dsp</AdSystem><VASTAdTagURI>https://d.example/vast?p=\${AUCTION_PRICE}&amp;id=\${AUCTION_ID}</VASTAdTagURI>
<Impression>https://d.example/imp?p=\${AUCTION_PRICE}</Impression><Creatives/></Wrapper></Ad></VAST>`;

// a wrapper adding its own AdChoices icon and a companion, with macros in them
const WRAPPER_WITH_CREATIVE = WRAPPER.replace(
  '<Creatives/>',
  `<Creatives><Creative><Linear><Icons><Icon program="AdChoices" width="20" height="20"><StaticResource creativeType="image/png">https://d.example/ac.png?p=\${AUCTION_PRICE}</StaticResource></Icon></Icons></Linear></Creative>
<Creative><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png">https://d.example/w.png?a=\${AUCTION_ID}</StaticResource></Companion></CompanionAds></Creative></Creatives>`,
);

function markup(adm: string, read: boolean): OrtbMarkup {
  const answer = readVastAnswer(adm);
  if (answer.kind === 'empty') throw new Error(`fixture unreadable: ${answer.reason}`);
  return {
    kind: 'ortb',
    media: 'video',
    adm,
    ...(read ? { vast: answer } : {}),
    nurl: '',
    burl: '',
    lurl: '',
    adomain: ['brand.example'],
    cat: [],
    crid: 'c1',
    adid: '',
    dealId: '',
    seat: 's',
    w: 640,
    h: 360,
    mtype: 2,
    requestId: 'r',
    impId: '1',
    bidId: 'b',
    bidCpm: 3_000_000,
    pricing: BID_PRICE,
  };
}

describe('a winning programmatic VAST bid', () => {
  const macros: MacroValues = { AUCTION_PRICE: '2.5', AUCTION_ID: 'req <1>&2', AUCTION_BID_ID: 'bid "x"' };
  const settle = (m: OrtbMarkup) => ({ ...m, settled: { macros, billingQuery: '' } });
  const ours = { ...noTrackers(), impression: ['https://ad.example/ev?t=tok'] };

  it.each([
    ['an inline', INLINE],
    ['a wrapper', WRAPPER],
    ['an inline with a bare macro tracker', INLINE.replace('<Error>', `${BARE_MACRO}<Error>`)],
    ['an inline measured by a verification vendor', MEASURED],
    ['a wrapper adding an icon and a companion', WRAPPER_WITH_CREATIVE],
  ])(
    '%s: rendered from the answer read when the bid came in, exactly as from its markup read again with the macros filled',
    (_, adm) => {
      const fromRead = ortbVastDocument(
        '4.2',
        settle(markup(adm, true)),
        { id: 'tag1', adSystem: 'adplane' },
        ours,
        'sid',
        2_500_000,
      );
      const fromMarkup = ortbVastDocument(
        '4.2',
        settle(markup(adm, false)),
        { id: 'tag1', adSystem: 'adplane' },
        ours,
        'sid',
        2_500_000,
      );
      expect(fromRead).toBe(fromMarkup);
      expect(fromRead).not.toContain('${AUCTION_');
      expect(fromRead).toContain('p=2.5');
      expect(fromRead).toContain('https://ad.example/ev?t=tok');
    },
  );

  it("an inline bid without a Universal Ad ID of its own says unknown (not the tag's id, which every ad it answers would share), and expires before its token", () => {
    const doc = ortbVastDocument(
      '4.2',
      settle(markup(INLINE, true)),
      { id: 'tag1', adSystem: 'adplane' },
      ours,
      'sid',
      2_500_000,
    );
    expect(doc).toContain('<UniversalAdId idRegistry="unknown">unknown</UniversalAdId>');
    expect(doc).toMatch(/<\/Creatives><Expires>82800<\/Expires>/);
  });

  it("serves a bid's wrapper with the icon and companion it adds, valid, its macros filled", () => {
    const doc = ortbVastDocument(
      '4.2',
      settle(markup(WRAPPER_WITH_CREATIVE, true)),
      { id: 'tag1', adSystem: 'adplane' },
      ours,
      'sid',
      2_500_000,
    );
    expect(doc).toContain('<Wrapper>');
    expect(doc).toContain(
      '<Icon program="AdChoices" width="20" height="20"><StaticResource creativeType="image/png"><![CDATA[https://d.example/ac.png?p=2.5]]></StaticResource></Icon>',
    );
    expect(doc).toContain('<![CDATA[https://d.example/w.png?a=req%20%3C1%3E%262]]>');
    expect(schemaErrors('4.2', doc)).toBe('');
  });

  it("keeps the bid's viewability, verification vendor, progress offset and skip offset, its macros filled", () => {
    const doc = ortbVastDocument(
      '4.2',
      settle(markup(MEASURED, true)),
      { id: 'tag1', adSystem: 'adplane' },
      ours,
      'sid',
      2_500_000,
    );
    expect(doc).toContain(
      '<ViewableImpression><Viewable><![CDATA[https://d.example/v?p=2.5]]></Viewable></ViewableImpression>',
    );
    expect(doc).toContain(
      '<JavaScriptResource apiFramework="omid"><![CDATA[https://dv.example/omid.js?a=req%20%3C1%3E%262]]></JavaScriptResource>',
    );
    expect(doc).toContain(
      '<Tracking event="verificationNotExecuted"><![CDATA[https://dv.example/ne?p=2.5]]></Tracking>',
    );
    expect(doc).toContain('<Tracking event="progress" offset="25%"><![CDATA[https://d.example/q?p=2.5]]></Tracking>');
    expect(doc).toContain(
      '<Linear skipoffset="00:00:05"><Icons><Icon program="AdChoices" width="20" height="20"><StaticResource creativeType="image/png"><![CDATA[https://d.example/ac.png?p=2.5]]></StaticResource><IconClicks><IconClickThrough><![CDATA[https://d.example/privacy?a=req%20%3C1%3E%262]]></IconClickThrough></IconClicks></Icon></Icons>',
    );
    expect(doc).toContain('<AdParameters><![CDATA[{"price":"2.5"}]]></AdParameters>');
    expect(doc).toContain(
      '<CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[https://d.example/c.png?p=2.5]]></StaticResource><CompanionClickThrough><![CDATA[https://brand.example/c?a=req%20%3C1%3E%262]]></CompanionClickThrough><TrackingEvents><Tracking event="creativeView"><![CDATA[https://d.example/cv?p=2.5]]></Tracking></TrackingEvents></Companion></CompanionAds>',
    );
  });

  it('an answer without macros is rendered as read, its text untouched', () => {
    const plain = INLINE.replaceAll(MACROS, 'x').replace(/\$\{AUCTION_[A-Z_]+\}/g, '1');
    const m = markup(plain, true);
    const doc = ortbVastDocument('4.2', settle(m), { id: 'tag1', adSystem: 'adplane' }, ours, 'sid', 2_500_000);
    expect(doc).toBe(
      ortbVastDocument(
        '4.2',
        settle(markup(plain, false)),
        { id: 'tag1', adSystem: 'adplane' },
        ours,
        'sid',
        2_500_000,
      ),
    );
    expect(doc).toContain('https://cdn.example/ad.mp4?p=1');
  });
});
