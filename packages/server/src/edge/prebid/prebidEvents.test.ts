import { describe, expect, it } from 'vitest';
import { vastEventUrl, withVastImpression } from './prebidEvents.js';

/** Prebid Server's VAST impression event (endpoints/events/vtrack.go GetVastUrlTracking, ModifyVastXmlString), as adplane writes it. */
describe('the VAST impression event', () => {
  const parts = { origin: 'https://ads.example.com', bidId: 'b-1', account: 'acct 1', bidder: 'adplane', integration: 'pbjs', timestamp: 1_760_000_000_000, token: 'tok.en', notices: 'b=x&bs=y' };

  it("is the imp URL with f=b, its optional parameters in Go's url.Values order, the token and notices last", () => {
    expect(vastEventUrl(parts)).toBe('https://ads.example.com/event?t=imp&b=b-1&a=acct%201&bidder=adplane&f=b&int=pbjs&ts=1760000000000&tk=tok.en&n=b%3Dx%26bs%3Dy');
    expect(vastEventUrl({ ...parts, integration: '', timestamp: 0, notices: '' })).toBe('https://ads.example.com/event?t=imp&b=b-1&a=acct%201&bidder=adplane&f=b&tk=tok.en');
  });

  it('goes in after the first <Impression>, into an empty first one, and nowhere without one', () => {
    const url = 'https://ads.example.com/event?t=imp';
    expect(withVastImpression('<Ad><InLine><Impression><![CDATA[https://a/1]]></Impression><Impression><![CDATA[https://a/2]]></Impression></InLine></Ad>', url)).toBe(
      `<Ad><InLine><Impression><![CDATA[https://a/1]]></Impression><Impression><![CDATA[${url}]]></Impression><Impression><![CDATA[https://a/2]]></Impression></InLine></Ad>`,
    );
    expect(withVastImpression('<Ad><Wrapper><Impression></Impression></Wrapper></Ad>', url)).toBe(`<Ad><Wrapper><Impression><![CDATA[${url}]]></Impression></Wrapper></Ad>`);
    expect(withVastImpression('<Ad><InLine><ViewableImpression></ViewableImpression></InLine></Ad>', url)).toBe('<Ad><InLine><ViewableImpression></ViewableImpression></InLine></Ad>');
    expect(withVastImpression('<VAST version="4.2"/>', url)).toBe('<VAST version="4.2"/>');
  });
});
