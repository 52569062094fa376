import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { decisionEntryOf, demandUrlFields, ownEntryPoints } from './ownEntryPoints.js';

describe('decisionEntryOf', () => {
  it('names the decision entry points, however a router might read their path', () => {
    expect(decisionEntryOf('/vast/abc')).toBe('/vast/');
    expect(decisionEntryOf('//vast//abc')).toBe('/vast/');
    expect(decisionEntryOf('/VAST/abc')).toBe('/vast/');
    expect(decisionEntryOf('/v%61st/abc')).toBe('/vast/');
    expect(decisionEntryOf('/rtb/abc')).toBe('/rtb/');
    expect(decisionEntryOf('/rtb/bid/abc')).toBe('/rtb/');
    expect(decisionEntryOf('/openrtb2/auction')).toBe('/openrtb2/auction');
    expect(decisionEntryOf('/openrtb2/amp')).toBe('/openrtb2/amp');
  });

  it('leaves out what starts no decision: notices, syncs, tracking, the demo demand', () => {
    for (const path of [
      '/rtb/win',
      '/rtb/sync/abc',
      '/ev',
      '/cache',
      '/demo/demand/vast',
      '/vast',
      '/inline',
      '/openrtb2/auctions',
      '/%zz',
    ])
      expect(decisionEntryOf(path), path).toBeNull();
  });
});

describe('ownEntryPoints', () => {
  const own = ownEntryPoints('https://ads.example.com', { host: '127.0.0.1', port: 8080 }, () => ({
    host: '127.0.0.1',
    port: 41234,
  }));

  it('knows the public host and every loopback spelling at the port the server listens on', () => {
    for (const url of [
      'https://ads.example.com/vast/abc?w=640',
      'https://ADS.example.com.:443/rtb/abc',
      'http://127.0.0.1:41234/vast/abc',
      'http://localhost:41234/openrtb2/auction',
      'http://127.1:41234/vast/abc',
      'http://2130706433:41234/vast/abc',
      'http://127.0.0.2:41234/vast/abc',
      'http://[::1]:41234/rtb/bid/x',
      'http://[::ffff:127.0.0.1]:41234/vast/abc',
      'http://0.0.0.0:41234/vast/abc',
      'http://edge.localhost:41234/vast/abc',
    ])
      expect(own(url), url).not.toBeNull();
  });

  it('leaves other hosts, other ports, other paths and other schemes alone', () => {
    for (const url of [
      'https://demand.example.com/vast/abc',
      'http://ads.example.com/vast/abc',
      'http://127.0.0.1:8080/vast/abc',
      'http://127.0.0.1:41235/vast/abc',
      'https://ads.example.com/ev?t=1',
      'https://ads.example.com/rtb/win?t=1',
      'ftp://ads.example.com/vast/abc',
      'not a url',
    ])
      expect(own(url), url).toBeNull();
  });

  it("takes the configured port before the server listens, and the machine's addresses when it listens on all of them", () => {
    const before = ownEntryPoints('https://ads.example.com', { host: '0.0.0.0', port: 8080 });
    expect(before('http://127.0.0.1:8080/vast/abc')).toBe('/vast/');
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (address) {
      expect(before(`http://${address}:8080/vast/abc`)).toBe('/vast/');
      expect(
        ownEntryPoints('https://ads.example.com', { host: '127.0.0.1', port: 8080 })(`http://${address}:8080/vast/abc`),
      ).toBeNull();
    }
  });
});

describe('demandUrlFields', () => {
  it("lists the URL a demand tag's integration calls, and an exchange's endpoint", () => {
    expect(demandUrlFields('tags', { vastUrl: ' https://a/vast ', endpoint: 'https://b' })).toEqual([
      ['vastUrl', 'https://a/vast'],
    ]);
    expect(demandUrlFields('tags', { integration: 'RTB', vastUrl: 'https://a', endpoint: 'https://b/rtb' })).toEqual([
      ['endpoint', 'https://b/rtb'],
    ]);
    expect(demandUrlFields('tags', { integration: 'PreBid', vastUrl: 'https://a' })).toEqual([]);
    expect(demandUrlFields('adexchanges', { endpoint: 'https://x/bid' })).toEqual([['endpoint', 'https://x/bid']]);
    expect(demandUrlFields('channels', { endpoint: 'https://x' })).toEqual([]);
    expect(demandUrlFields('tags', null)).toEqual([]);
  });
});
