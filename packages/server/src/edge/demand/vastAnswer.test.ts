import { describe, expect, it } from 'vitest';
import { inlineVast } from '../../../test/demandServers.js';
import { readVastAnswer } from './vastAnswer.js';
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
      trackers: { impression: ['https://up.example.com/imp?a=1&b=2'], error: [], events: [['start', 'https://up.example.com/start']], clickTracking: [] },
    });
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
    expect(readVastAnswer('<html><body>oops</body></html>')).toMatchObject({ kind: 'empty', vastError: 100, reason: 'not_vast' });
    expect(readVastAnswer('\u0000\u0001 not xml at all <<<')).toMatchObject({ kind: 'empty', vastError: 100 });
  });
});
