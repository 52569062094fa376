import { describe, expect, it } from 'vitest';
import { adFacts, iconPlacement, loadVast } from './vastPlayback.js';

/** A VAST 4.2 answer as the edge re-renders a measured demand's ad (docs/ad-server.md, "The answer"). */
const MEASURED = `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="tag3"><InLine><AdSystem>DSP</AdSystem>
<Impression><![CDATA[https://ads.test/ev?e=impression]]></Impression><ViewableImpression><Viewable><![CDATA[https://dsp.test/v]]></Viewable></ViewableImpression>
<AdServingId>s</AdServingId><AdTitle>Spot</AdTitle><Advertiser>brand.example.com</Advertiser><Category authority="https://iabtechlab.com/standards/content-taxonomy">IAB2-3</Category>
<AdVerifications><Verification vendor="doubleverify.com-omid"><JavaScriptResource apiFramework="omid"><![CDATA[https://dv.test/omid.js]]></JavaScriptResource></Verification>
<Verification vendor="ias.com-omid"><JavaScriptResource apiFramework="omid"><![CDATA[https://ias.test/omid.js]]></JavaScriptResource></Verification></AdVerifications>
<Creatives><Creative id="c" adId="c"><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[https://dsp.test/c.png]]></StaticResource></Companion></CompanionAds>
<Linear skipoffset="00:00:05"><Icons><Icon program="AdChoices" width="77" height="15" xPosition="right" yPosition="top"><StaticResource creativeType="image/png"><![CDATA[https://dsp.test/ac.png]]></StaticResource></Icon></Icons>
<Duration>00:00:15</Duration><MediaFiles><ClosedCaptionFiles><ClosedCaptionFile type="text/vtt" language="en"><![CDATA[https://dsp.test/en.vtt]]></ClosedCaptionFile></ClosedCaptionFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://dsp.test/a.mp4]]></MediaFile>
<MediaFile delivery="progressive" type="application/javascript" width="640" height="360" apiFramework="VPAID"><![CDATA[https://dsp.test/v.js]]></MediaFile>
<Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080"><![CDATA[https://dsp.test/mezz.mp4]]></Mezzanine><InteractiveCreativeFile type="text/html" apiFramework="SIMID"><![CDATA[https://dsp.test/simid.html]]></InteractiveCreativeFile></MediaFiles></Linear>
<UniversalAdId idRegistry="adplane">u</UniversalAdId></Creative></Creatives></InLine></Ad></VAST>`;

describe('what an ad carries, as the console shows it beside the player', () => {
  it("lists a measured demand's advertiser, category, skip offset, VPAID unit, verification vendors, viewability, icon, companion, captions, mezzanine and SIMID file", async () => {
    const played = await loadVast(MEASURED, (mime) => mime === 'video/mp4');
    if (played.kind !== 'video') throw new Error(played.kind);
    expect(played.media.fileURL).toBe('https://dsp.test/a.mp4');
    expect(adFacts(played.ad)).toEqual([
      'Advertiser: brand.example.com',
      'Category: IAB2-3',
      'Skippable after 5 s',
      'Interactive: VPAID',
      'Verification: doubleverify.com-omid, ias.com-omid',
      'Viewability trackers',
      'Icon: AdChoices',
      'Companion: 300×250',
      'Captions: en',
      'Mezzanine file',
      'Interactive file: SIMID',
    ]);
  });

  it('places an icon over the video where the VAST says: a side, or pixels from the top left', async () => {
    const played = await loadVast(MEASURED, () => true);
    if (played.kind !== 'video') throw new Error(played.kind);
    const icon = played.creative.icons![0]!;
    expect(icon).toMatchObject({
      program: 'AdChoices',
      staticResource: 'https://dsp.test/ac.png',
      width: 77,
      height: 15,
    });
    expect(iconPlacement(icon)).toEqual({ right: 0, top: 0 });
    expect(iconPlacement({ xPosition: 'left', yPosition: 'bottom' })).toEqual({ left: 0, bottom: 0 });
    expect(iconPlacement({ xPosition: 12, yPosition: '30' })).toEqual({ left: 12, top: 30 });
  });

  it('lists nothing for a plain ad', async () => {
    const plain = MEASURED.replace(/<ViewableImpression>.*?<\/ViewableImpression>/s, '')
      .replace(/<AdVerifications>.*?<\/AdVerifications>/s, '')
      .replace(/<CompanionAds>.*?<\/CompanionAds>/s, '')
      .replace(/<Icons>.*?<\/Icons>/s, '')
      .replace(' skipoffset="00:00:05"', '')
      .replace(/<Advertiser>.*?<\/Category>/s, '')
      .replace(/<ClosedCaptionFiles>.*?<\/ClosedCaptionFiles>/s, '')
      .replace(/<Mezzanine .*?<\/InteractiveCreativeFile>/s, '')
      .replace(/<MediaFile [^>]*apiFramework="VPAID">.*?<\/MediaFile>/s, '');
    const played = await loadVast(plain, () => true);
    if (played.kind !== 'video') throw new Error(played.kind);
    expect(adFacts(played.ad)).toEqual([]);
  });
});
