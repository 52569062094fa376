import { describe, expect, it } from 'vitest';
import { vastEventUrl } from './prebidEvents.js';

/** Prebid Server's VAST impression event (endpoints/events/vtrack.go GetVastUrlTracking, ModifyVastXmlString), as adplane writes it. */
describe('the VAST impression event', () => {
  const parts = {
    origin: 'https://ads.example.com',
    bidId: 'b-1',
    account: 'acct 1',
    bidder: 'adplane',
    integration: 'pbjs',
    timestamp: 1_760_000_000_000,
    token: 'tok.en',
    notices: 'b=x&bs=y',
  };

  it("is the imp URL with f=b, its optional parameters in Go's url.Values order, the token and notices last", () => {
    expect(vastEventUrl(parts)).toBe(
      'https://ads.example.com/event?t=imp&b=b-1&a=acct%201&bidder=adplane&f=b&int=pbjs&ts=1760000000000&tk=tok.en&n=b%3Dx%26bs%3Dy',
    );
    expect(vastEventUrl({ ...parts, integration: '', timestamp: 0, notices: '' })).toBe(
      'https://ads.example.com/event?t=imp&b=b-1&a=acct%201&bidder=adplane&f=b&tk=tok.en',
    );
  });
});
