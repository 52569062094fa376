import { describe, expect, it } from 'vitest';
import { readVast, withErrorCode } from './trafficVast.js';

const INLINE = `<?xml version="1.0" encoding="UTF-8"?>
<VAST version="4.2"><Ad id="1"><InLine><AdSystem>adplane</AdSystem><AdTitle>x</AdTitle>
<Error><![CDATA[https://ads.test/ev?e=error&c=[ERRORCODE]&t=abc]]></Error>
<Impression id="i"><![CDATA[https://ads.test/ev?e=impression&t=abc]]></Impression>
<Creatives><Creative><Linear><Duration>00:00:15</Duration><TrackingEvents>
<Tracking event="start"><![CDATA[https://ads.test/ev?e=start&t=abc]]></Tracking>
<Tracking event="complete"><![CDATA[https://ads.test/ev?e=complete&t=abc]]></Tracking>
</TrackingEvents><VideoClicks><ClickTracking><![CDATA[https://ads.test/ev?e=click&t=abc]]></ClickTracking></VideoClicks>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://cdn.test/a.mp4]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>`;

describe('readVast', () => {
  it('finds what a player calls while it plays an inline ad', () => {
    const play = readVast(INLINE);
    expect(play.filled).toBe(true);
    expect(play.impressions).toEqual(['https://ads.test/ev?e=impression&t=abc']);
    expect(play.events.start).toEqual(['https://ads.test/ev?e=start&t=abc']);
    expect(play.events.complete).toHaveLength(1);
    expect(play.clicks).toEqual(['https://ads.test/ev?e=click&t=abc']);
    expect(withErrorCode(play.errors[0], 405)).toBe('https://ads.test/ev?e=error&c=405&t=abc');
  });

  it('reads an empty VAST as nothing to play', () => {
    expect(readVast('<VAST version="4.2"/>')).toMatchObject({ filled: false, impressions: [] });
  });
});
