import { describe, expect, it } from 'vitest';
import { inlineVast } from '../../../test/demandServers.js';
import {
  type DemandInline,
  type DemandWrapper,
  demandAdParts,
  mergeTrackers,
  NO_MORE_ADS,
  readVastAnswer,
  wrapperCreative,
} from './vastAnswer.js';
import { mediaTailXml } from './mediaExtras.js';
import { renderInline, type Verification } from './vastWriter.js';
import { CurrencyRates } from '../ortb/currency.js';
import { parseXmlTree } from './xmlTree.js';

const VAST4_WRAPPER = `<?xml version="1.0"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="w"><Wrapper><AdSystem>Up</AdSystem>
<VASTAdTagURI><![CDATA[https://up.example.com/vast?id=1&b=2]]></VASTAdTagURI><Pricing model="cpm" currency="USD">2.25</Pricing>
<Impression>https://up.example.com/imp?a=1&amp;b=2</Impression><Creatives><Creative><Linear><TrackingEvents>
<Tracking event="start"><![CDATA[https://up.example.com/start]]></Tracking><Tracking event="bogus">https://x</Tracking></TrackingEvents></Linear></Creative>
<Creative><CompanionAds><Companion><TrackingEvents><Tracking event="creativeView">https://up.example.com/companion</Tracking></TrackingEvents></Companion></CompanionAds></Creative></Creatives></Wrapper></Ad></VAST>`;

describe('demand VAST answers', () => {
  it('reads an inline answer: price, media, duration, click-through and every linear tracker', () => {
    const answer = readVastAnswer(inlineVast('https://d.example.com', 3.5));
    expect(answer.kind).toBe('inline');
    if (answer.kind !== 'inline') return;
    expect(answer.pricingCpm).toBe(3_500_000);
    expect(answer.mediaFiles.length).toBeGreaterThan(0);
    expect(answer.mediaFiles[0]!.url).toMatch(/^https?:\/\//);
    expect(answer.trackers.impression.length).toBeGreaterThan(0);
    expect(answer.trackers.events.map(([e]) => e)).toContain('start');
  });

  it('reads a VAST 4 wrapper with a default namespace, decoding entities, linear trackers only', () => {
    const answer = readVastAnswer(VAST4_WRAPPER);
    expect(answer).toEqual({
      kind: 'wrapper',
      tagUri: 'https://up.example.com/vast?id=1&b=2',
      pricingCpm: 2_250_000,
      trackers: {
        impression: ['https://up.example.com/imp?a=1&b=2'],
        error: [],
        events: [['start', 'https://up.example.com/start']],
        clickTracking: [],
      },
      followAdditionalWrappers: true,
      allowMultipleAds: false,
      fallbackOnNoAd: true,
      // its companion has no size or resource: nothing a player could show
      icons: [],
      companions: { list: [], required: '' },
      nonLinearTrackers: { events: [], clickTracking: [] },
    });
    const final = readVastAnswer(VAST4_WRAPPER.replace('<Wrapper>', '<Wrapper followAdditionalWrappers="false">'));
    expect(final.kind === 'wrapper' && final.followAdditionalWrappers).toBe(false);
    // xs:boolean as servers write it
    const capital = readVastAnswer(
      VAST4_WRAPPER.replace('<Wrapper>', '<Wrapper followAdditionalWrappers="False" allowMultipleAds="1">'),
    );
    expect(capital).toMatchObject({ followAdditionalWrappers: false, allowMultipleAds: true });
  });

  it("reads what a real exchange's VAST 4.2 carries beyond the basics: skip offset, progress offsets, VPAID and codec, viewability, verification vendors", () => {
    const xml = `<VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="x"><InLine><AdSystem>DSP</AdSystem>
<Impression>https://dsp.example.com/imp</Impression>
<ViewableImpression id="vi"><Viewable>https://dsp.example.com/v</Viewable><NotViewable>https://dsp.example.com/nv</NotViewable><ViewUndetermined>https://dsp.example.com/vu</ViewUndetermined></ViewableImpression>
<AdServingId>s</AdServingId><AdTitle>T</AdTitle>
<AdVerifications><Verification vendor="doubleverify.com-omid"><JavaScriptResource apiFramework="omid" browserOptional="false"><![CDATA[https://cdn.dv.example/dvtp.js]]></JavaScriptResource>
<TrackingEvents><Tracking event="verificationNotExecuted"><![CDATA[https://dv.example/ne?r=[REASON]]]></Tracking></TrackingEvents>
<VerificationParameters><![CDATA[{"ctx":"1"}]]></VerificationParameters></Verification></AdVerifications>
<Creatives><Creative><Linear skipoffset=" 00:00:05 "><Icons><Icon program="AdChoices" width="77" height="15" xPosition="right" yPosition="nowhere" offset="00:00:01" duration="soon">
<StaticResource creativeType="image/png">https://icons.example/ac.png</StaticResource><IconClicks><IconClickThrough>https://privacy.example/</IconClickThrough><IconClickTracking>https://icons.example/c</IconClickTracking></IconClicks>
<IconViewTracking>https://icons.example/v</IconViewTracking></Icon><Icon program="no size"><StaticResource creativeType="image/png">https://icons.example/x.png</StaticResource></Icon>
<Icon program="no resource" width="10" height="10"></Icon></Icons><TrackingEvents><Tracking event="progress" offset="00:00:10">https://dsp.example.com/p10</Tracking><Tracking event="start">https://dsp.example.com/start</Tracking></TrackingEvents>
<AdParameters xmlEncoded="true"><![CDATA[{"id":7}]]></AdParameters><Duration>00:00:30</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" codec="H.264">https://cdn.example.com/a.mp4</MediaFile>
<MediaFile delivery="progressive" type="application/javascript" width="640" height="360" apiFramework="VPAID">https://cdn.example.com/vpaid.js</MediaFile></MediaFiles></Linear></Creative>
<Creative><CompanionAds required="all"><Companion id="c1" width="300" height="250" adSlotID="side"><StaticResource creativeType="image/jpeg">https://cdn.example.com/c.jpg</StaticResource><AltText>Alt</AltText>
<CompanionClickThrough>https://brand.example.com/c</CompanionClickThrough><CompanionClickTracking id="k">https://dsp.example.com/cc</CompanionClickTracking>
<TrackingEvents><Tracking event="creativeView">https://dsp.example.com/cv</Tracking><Tracking event="start">https://dsp.example.com/not-a-companion-event</Tracking></TrackingEvents></Companion>
<Companion width="0" height="90"><HTMLResource>x</HTMLResource></Companion><Companion width="728" height="90"></Companion></CompanionAds></Creative></Creatives></InLine></Ad></VAST>`;
    const answer = readVastAnswer(xml);
    if (answer.kind !== 'inline') throw new Error(answer.kind);
    expect(answer.skipOffset).toBe('00:00:05');
    expect(answer.trackers.events).toEqual([
      ['progress', 'https://dsp.example.com/p10', '00:00:10'],
      ['start', 'https://dsp.example.com/start'],
    ]);
    expect(answer.mediaFiles.map((m) => [m.codec, m.apiFramework])).toEqual([
      ['H.264', undefined],
      [undefined, 'VPAID'],
    ]);
    expect(answer.icons).toEqual([
      {
        program: 'AdChoices',
        width: 77,
        height: 15,
        xPosition: 'right',
        yPosition: '',
        offset: '00:00:01',
        duration: '',
        apiFramework: '',
        resource: { type: 'static', url: 'https://icons.example/ac.png', creativeType: 'image/png' },
        clickThrough: 'https://privacy.example/',
        clickTracking: ['https://icons.example/c'],
        viewTracking: ['https://icons.example/v'],
      },
    ]);
    expect(answer.adParameters).toEqual({ text: '{"id":7}', xmlEncoded: true });
    // companions with a size and something to show; only their creativeView trackers
    expect(answer.companions).toEqual({
      required: 'all',
      list: [
        {
          width: 300,
          height: 250,
          id: 'c1',
          apiFramework: '',
          adSlotId: 'side',
          resource: { type: 'static', url: 'https://cdn.example.com/c.jpg', creativeType: 'image/jpeg' },
          altText: 'Alt',
          clickThrough: 'https://brand.example.com/c',
          clickTracking: [['k', 'https://dsp.example.com/cc']],
          creativeView: ['https://dsp.example.com/cv'],
          adParameters: '',
        },
      ],
    });
    expect(answer.trackers.viewable).toEqual({
      viewable: ['https://dsp.example.com/v'],
      notViewable: ['https://dsp.example.com/nv'],
      undetermined: ['https://dsp.example.com/vu'],
    });
    expect(answer.trackers.verifications).toEqual([
      {
        vendor: 'doubleverify.com-omid',
        javaScript: [{ url: 'https://cdn.dv.example/dvtp.js', apiFramework: 'omid', browserOptional: 'false' }],
        executable: [],
        tracking: [['verificationNotExecuted', 'https://dv.example/ne?r=[REASON]']],
        parameters: '{"ctx":"1"}',
      },
    ]);
  });

  it("reads the verification vendors a VAST 3 answer puts in an Extension, and a wrapper chain's vendors and viewability add up", () => {
    const v3 = `<VAST version="3.0"><Ad><Wrapper><AdSystem>Up</AdSystem><VASTAdTagURI>https://up.example.com/v</VASTAdTagURI><Impression>https://up.example.com/imp</Impression>
<Extensions><Extension type="other"><AdVerifications><Verification vendor="ignored"><JavaScriptResource>https://no.example/x.js</JavaScriptResource></Verification></AdVerifications></Extension>
<Extension type="AdVerifications"><AdVerifications><Verification vendor="ias.com-omid"><JavaScriptResource apiFramework="omid">https://ias.example/omid.js</JavaScriptResource></Verification>
<Verification vendor="no-script"><VerificationParameters>p</VerificationParameters></Verification></AdVerifications></Extension></Extensions></Wrapper></Ad></VAST>`;
    const wrapper = readVastAnswer(v3);
    if (wrapper.kind !== 'wrapper') throw new Error(wrapper.kind);
    expect(wrapper.trackers.verifications).toEqual([
      {
        vendor: 'ias.com-omid',
        javaScript: [{ url: 'https://ias.example/omid.js', apiFramework: 'omid', browserOptional: '' }],
        executable: [],
        tracking: [],
        parameters: '',
      },
    ]);
    const merged = mergeTrackers(wrapper.trackers, {
      impression: [],
      error: [],
      events: [],
      clickTracking: [],
      viewable: { viewable: ['https://d/v'], notViewable: [], undetermined: [] },
      verifications: [{ ...wrapper.trackers.verifications![0]!, vendor: 'dv' }],
    });
    expect(merged.verifications!.map((v) => v.vendor)).toEqual(['ias.com-omid', 'dv']);
    expect(merged.viewable).toEqual({ viewable: ['https://d/v'], notViewable: [], undetermined: [] });
    expect(mergeTrackers(wrapper.trackers, wrapper.trackers).viewable).toBeUndefined();
  });

  it("lists a wrapper chain's repeated measurement once, its trackers joined, and the same vendor with other parameters apart", () => {
    const ias: Verification = {
      vendor: 'ias.com-omid',
      javaScript: [{ url: 'https://ias.example/omid.js', apiFramework: 'omid', browserOptional: '' }],
      executable: [],
      tracking: [],
      parameters: 'c=1',
    };
    const notRun: [string, string] = ['verificationNotExecuted', 'https://ias.example/ne?r=[REASON]'];
    const t = (verifications: Verification[]) => ({
      impression: [],
      error: [],
      events: [],
      clickTracking: [],
      verifications,
    });
    const merged = mergeTrackers(
      t([ias]),
      t([
        { ...ias, tracking: [notRun] },
        { ...ias, parameters: 'c=2' },
      ]),
    );
    expect(merged.verifications).toEqual([
      { ...ias, tracking: [notRun] },
      { ...ias, parameters: 'c=2' },
    ]);
  });

  it('still reads what a careless server writes (a raw & in a URL, an HTML entity): the forgiving parser takes over', () => {
    const sloppy = VAST4_WRAPPER.replace('imp?a=1&amp;b=2', 'imp?a=1&b=2&nbsp;');
    expect(() => parseXmlTree(sloppy)).not.toThrow();
    const answer = readVastAnswer(sloppy);
    expect(answer.kind).toBe('wrapper');
    if (answer.kind === 'wrapper') expect(answer.tagUri).toBe('https://up.example.com/vast?id=1&b=2');
  });

  it('answers the empty and broken cases with their VAST error codes', () => {
    expect(readVastAnswer('')).toMatchObject({ kind: 'empty', vastError: 303 });
    expect(readVastAnswer('<VAST version="3.0"></VAST>')).toMatchObject({ kind: 'empty', reason: 'no_ad' });
    expect(readVastAnswer('<html><body>oops</body></html>')).toMatchObject({
      kind: 'empty',
      vastError: 100,
      reason: 'not_vast',
    });
    expect(readVastAnswer('\u0000\u0001 not xml at all <<<')).toMatchObject({ kind: 'empty', vastError: 100 });
  });

  it("takes the ad a player would play for one slot: a pod's first by sequence, else the first stand-alone ad that plays, falling back past a broken one", () => {
    const inline = (id: string, attrs = '', media = true) =>
      `<Ad id="${id}"${attrs}><InLine><AdSystem>S</AdSystem><AdTitle>${id}</AdTitle><Impression>https://d.example/${id}</Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration>` +
      `<MediaFiles>${media ? `<MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/${id}.mp4</MediaFile>` : ''}</MediaFiles></Linear></Creative></Creatives></InLine></Ad>`;
    const titleOf = (xml: string) => {
      const a = readVastAnswer(`<VAST version="4.2">${xml}</VAST>`);
      return a.kind === 'inline' ? a.title : a.kind;
    };
    // a buffet whose first ad has no media: the next one plays
    expect(titleOf(inline('broken', '', false) + inline('fallback'))).toBe('fallback');
    // a pod plays before the stand-alone ads, lowest sequence first, wherever it stands in the document
    expect(titleOf(inline('alone') + inline('second', ' sequence="2"') + inline('first', ' sequence="1"'))).toBe(
      'first',
    );
    // nothing plays: why the first could not
    expect(
      readVastAnswer(`<VAST version="4.2">${inline('a', '', false)}${inline('b', '', false)}</VAST>`),
    ).toMatchObject({ kind: 'empty', reason: 'no_media', vastError: 401 });
  });

  it("reads what real ad servers and players' samples send (fixtures/vast/demand: vastDemandSamples.test.ts serves them all)", () => {
    const ad = (creatives: string, head = '<VAST version="3.0">') =>
      `${head}<Ad><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle><Error>https://d.example/e?c=[ERRORCODE]</Error><Impression>https://d.example/i</Impression><Creatives>${creatives}</Creatives></InLine></Ad></VAST>`;
    const linear = (media: string, duration = '00:00:10') =>
      `<Creative><Linear><Duration>${duration}</Duration><MediaFiles>${media}</MediaFiles></Linear></Creative>`;
    const mp4 =
      '<MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile>';
    // VAST 1.0's root: an unsupported version (102), not a parse error
    expect(readVastAnswer('<VideoAdServingTemplate><Ad id="1"><InLine/></Ad></VideoAdServingTemplate>')).toMatchObject({
      kind: 'empty',
      vastError: 102,
      reason: 'unsupported_version',
    });
    // an inline ad with no creative is an empty answer (303, as vast-client reports it), with its error trackers
    expect(readVastAnswer(ad(''))).toMatchObject({
      kind: 'empty',
      vastError: 303,
      reason: 'no_creative',
      errorUrls: ['https://d.example/e?c=[ERRORCODE]'],
    });
    // an overlay or companion-only ad cannot fill a linear slot: 201, "expecting different linearity"
    const overlay =
      '<Creative><NonLinearAds><NonLinear width="300" height="50"><StaticResource creativeType="image/png">https://cdn.example/o.png</StaticResource></NonLinear></NonLinearAds></Creative>';
    expect(readVastAnswer(ad(overlay))).toMatchObject({ kind: 'empty', vastError: 201, reason: 'not_linear' });
    // a Duration in bare seconds; blank lines before the XML declaration; a stream that states no size
    const bare = readVastAnswer(
      `\n\n  <?xml version="1.0"?>${ad(linear('<MediaFile delivery="streaming" type="application/x-mpegURL">https://cdn.example/s.m3u8</MediaFile>', '30'))}`,
    );
    expect(bare).toMatchObject({
      kind: 'inline',
      duration: 30,
      mediaFiles: [{ url: 'https://cdn.example/s.m3u8', width: 0, height: 0 }],
    });
    // protocol-relative media take the answer's scheme; the creative's Universal Ad ID is kept (4.0 names it in idValue)
    const uid = readVastAnswer(
      ad(
        linear(mp4.replace('https://cdn.example', '//cdn.example')).replace(
          '</Linear>',
          '</Linear><UniversalAdId idRegistry="Ad-ID" idValue="ABCD0001"/>',
        ),
      ),
      'https://tags.example/vast',
    );
    expect(uid).toMatchObject({
      kind: 'inline',
      mediaFiles: [{ url: 'https://cdn.example/a.mp4' }],
      universalAdId: { registry: 'Ad-ID', id: 'ABCD0001' },
    });
    // a legacy wrapper's <VASTAdTagURL><URL>, and a relative VASTAdTagURI read against the answer's URL
    const legacy = readVastAnswer(
      '<VAST version="2.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURL><URL><![CDATA[https://next.example/v]]></URL></VASTAdTagURL></Wrapper></Ad></VAST>',
    );
    expect(legacy).toMatchObject({ kind: 'wrapper', tagUri: 'https://next.example/v' });
    const relative = readVastAnswer(
      '<VAST version="3.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI>next.xml?a=1</VASTAdTagURI></Wrapper></Ad></VAST>',
      'http://tags.example/dir/first.xml',
    );
    expect(relative).toMatchObject({ kind: 'wrapper', tagUri: 'http://tags.example/dir/next.xml?a=1' });
    // a price in another currency than US dollars is not read as dollars (500 JPY is not $500)
    const priced = (attrs: string) =>
      readVastAnswer(ad(linear(mp4)).replace('<Impression>', `<Pricing ${attrs}> 500.00 </Pricing><Impression>`));
    expect(priced('model="CPM" currency="usd"')).toMatchObject({ pricingCpm: 500_000_000 });
    expect(priced('model="cpm" currency="JPY"')).toMatchObject({ pricingCpm: null });
    expect(priced('model="cpc" currency="USD"')).toMatchObject({ pricingCpm: null });
    // without allowMultipleAds, a wrapper's answer is read for its first stand-alone ad
    const pod = `<VAST version="4.0">${['1', '', '2'].map((seq, i) => `<Ad${seq ? ` sequence="${seq}"` : ''}><InLine><AdSystem>S</AdSystem><AdTitle>ad${i}</AdTitle><Impression>https://d/i</Impression><Creatives>${linear(mp4)}</Creatives></InLine></Ad>`).join('')}</VAST>`;
    expect(readVastAnswer(pod)).toMatchObject({ title: 'ad0' });
    expect(readVastAnswer(pod, '', true)).toMatchObject({ title: 'ad1' });
    // a player's fallback: the next ad that could play, then none
    expect(readVastAnswer(pod, '', false, 1)).toMatchObject({ title: 'ad2' });
    expect(readVastAnswer(pod, '', false, 3)).toMatchObject({ kind: 'empty', reason: NO_MORE_ADS });
  });

  it("converts a <Pricing> in another currency to US dollars at the operator's rates, as an OpenRTB bid's cur is; without a rate it states no price", () => {
    // 1 USD is 0.80 EUR (1 EUR = 1.25 USD) and 150 JPY
    const rates = new CurrencyRates({ USD: { EUR: 0.8, JPY: 150 } });
    const inline = (pricing: string) =>
      `<VAST version="3.0"><Ad><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle>${pricing}<Impression>https://d.example/i</Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration>` +
      '<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>';
    const priced = (attrs: string, value: string, using: CurrencyRates | 'none' = rates) => {
      const a = readVastAnswer(
        inline(`<Pricing ${attrs}>${value}</Pricing>`),
        '',
        false,
        0,
        using === 'none' ? undefined : using,
      );
      return a.kind === 'inline' ? a.pricingCpm : a.kind;
    };
    expect(priced('model="cpm" currency="EUR"', '8.00')).toBe(10_000_000);
    // the code in any case, with spaces; the value in CDATA with spaces
    expect(priced('model="CPM" currency=" eur "', '<![CDATA[ 8.00 ]]>')).toBe(10_000_000);
    // more units than $1000 is not too much in yen: the bound is in dollars
    expect(priced('model="cpm" currency="JPY"', '1500')).toBe(10_000_000);
    expect(priced('model="cpm" currency="EUR"', '1.234567')).toBe(1_543_209);
    // past $1000 once converted: no price, as a price past $1000 in dollars
    expect(priced('model="cpm" currency="EUR"', '900')).toBeNull();
    // a currency without a rate, or no code at all, states no price adplane can read
    expect(priced('model="cpm" currency="CHF"', '8.00')).toBeNull();
    expect(priced('model="cpm" currency="EURO"', '8.00')).toBeNull();
    expect(priced('model="cpm" currency="EUR"', '8.00', 'none')).toBeNull();
    expect(priced('model="cpm" currency="EUR"', '8.00', CurrencyRates.USD_ONLY)).toBeNull();
    // dollars need no rate; a wrapper's price is converted as an inline ad's
    expect(priced('model="cpm" currency="USD"', '8.00', 'none')).toBe(8_000_000);
    expect(priced('model="cpm"', '8.00', CurrencyRates.USD_ONLY)).toBe(8_000_000);
    const wrapper = readVastAnswer(
      '<VAST version="3.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI>https://next.example/v</VASTAdTagURI><Pricing model="cpm" currency="EUR">4</Pricing></Wrapper></Ad></VAST>',
      '',
      false,
      0,
      rates,
    );
    expect(wrapper).toMatchObject({ kind: 'wrapper', pricingCpm: 5_000_000 });
  });

  it("reads a skipoffset in bare seconds as VAST's HH:MM:SS, keeps a percent and HH:MM:SS(.mmm), and drops garbage", () => {
    const skip = (offset: string) => {
      const a = readVastAnswer(
        `<VAST version="3.0"><Ad><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle><Impression>https://d.example/i</Impression><Creatives><Creative><Linear skipoffset="${offset}"><Duration>00:01:30</Duration>` +
          '<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>',
      );
      if (a.kind !== 'inline') throw new Error(a.kind);
      return a;
    };
    expect(skip('5').skipOffset).toBe('00:00:05');
    expect(skip(' 75 ').skipOffset).toBe('00:01:15');
    expect(skip('0').skipOffset).toBe('00:00:00');
    expect(skip('5.5').skipOffset).toBe('00:00:05.500');
    expect(skip('25%').skipOffset).toBe('25%');
    expect(skip('00:00:05').skipOffset).toBe('00:00:05');
    expect(skip('00:00:05.250').skipOffset).toBe('00:00:05.250');
    // not a time a player reads: the ad is not skippable
    for (const garbage of ['soon', '-5', '5s', '00:5', '']) expect(skip(garbage).skipOffset, garbage).toBe('');
    // written in the answer as VAST's HH:MM:SS (3.0 and later)
    const ad = skip('5');
    const xml = renderInline('4.2', {
      id: 'a',
      adSystem: 'S',
      title: 'T',
      advertiser: '',
      servingId: 's',
      creativeId: 'c',
      universalAdId: 'u',
      pricingCpm: null,
      ...demandAdParts(ad, { impression: [], error: [], events: [], clickTracking: [] }),
    });
    expect(xml).toContain('<Linear skipoffset="00:00:05">');
  });

  it("adds a wrapper's icons and companions to the ad as a player shows them: the creative closest to the inline wins a conflict", () => {
    const icon = (program: string, url: string) =>
      `<Icon program="${program}" width="20" height="20"><StaticResource creativeType="image/png">${url}</StaticResource></Icon>`;
    const companion = (url: string) =>
      `<Companion width="300" height="250"><StaticResource creativeType="image/png">${url}</StaticResource></Companion>`;
    const wrapper = (icons: string, companions: string) => {
      const w = readVastAnswer(
        `<VAST version="3.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI>https://next.example/v</VASTAdTagURI><Creatives><Creative><Linear><Icons>${icons}</Icons></Linear></Creative>${companions ? `<Creative><CompanionAds>${companions}</CompanionAds></Creative>` : ''}</Creatives></Wrapper></Ad></VAST>`,
      );
      if (w.kind !== 'wrapper') throw new Error(w.kind);
      return w;
    };
    const inline = readVastAnswer(inlineVast('https://d.example.com', 3)) as DemandInline;
    const outer: DemandWrapper = wrapper(
      icon('AdChoices', 'https://outer/ac.png') + icon('PartnerMark', 'https://outer/pm.png'),
      companion('https://outer/c.png'),
    );
    const inner: DemandWrapper = wrapper(icon('AdChoices', 'https://inner/ac.png'), companion('https://inner/c.png'));
    expect(outer.icons.map((i) => i.program)).toEqual(['AdChoices', 'PartnerMark']);
    // the inline ad has neither: the inner wrapper's AdChoices and companion win over the outer's
    const merged = wrapperCreative({ ...inline, icons: [], companions: { list: [], required: '' } }, [outer, inner]);
    expect(merged.icons.map((i) => i.resource)).toEqual([
      { type: 'static', url: 'https://inner/ac.png', creativeType: 'image/png' },
      { type: 'static', url: 'https://outer/pm.png', creativeType: 'image/png' },
    ]);
    expect(merged.companions.list.map((c) => c.resource)).toEqual([
      { type: 'static', url: 'https://inner/c.png', creativeType: 'image/png' },
    ]);
    // the inline's own companions are kept over any wrapper's
    const own = {
      list: inner.companions.list.map((c) => ({ ...c, width: 728, height: 90 })),
      required: 'all' as const,
    };
    expect(wrapperCreative({ ...inline, icons: [], companions: own }, [outer]).companions).toBe(own);
  });

  it("keeps a VAST 4.0 answer's bare mezzanine: written bare in 4.0, left out where 4.1+ would need its type and size", () => {
    const v40 = `<VAST version="4.0" xmlns="http://www.iab.com/VAST"><Ad><InLine><AdSystem>D</AdSystem><AdTitle>T</AdTitle><Impression>https://d.example/i</Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile><Mezzanine>https://cdn.example/mezz.mov</Mezzanine></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
    const read = readVastAnswer(v40);
    if (read.kind !== 'inline') throw new Error(read.kind);
    expect(read.mediaExtras.mezzanine.map((m) => m.url)).toEqual(['https://cdn.example/mezz.mov']);
    expect(mediaTailXml('4.0', read.mediaExtras)).toBe(
      '<Mezzanine><![CDATA[https://cdn.example/mezz.mov]]></Mezzanine>',
    );
    expect(mediaTailXml('4.2', read.mediaExtras)).toBe('');
  });
});
