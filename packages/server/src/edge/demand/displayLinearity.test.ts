import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { demandAgent } from './deadline.js';
import { failedAdUrls } from './errorPings.js';
import { readVastAnswer } from '../vast/vastAnswer.js';
import { VastFetcher } from './vastFetcher.js';

/**
 * A display slot (a display channel's, whose answer is a NonLinear) reads a demand's VAST for its
 * NonLinear: a linear video cannot play there, so an ad that is only that is the demand's no-fill
 * with VAST 201 ("expecting different linearity"), reported to its own error trackers, and a buffet's
 * next ad is tried; an ad with both takes its NonLinear. A linear slot reads them as before.
 */
const LINEAR =
  '<Creative><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/spot.mp4</MediaFile></MediaFiles></Linear></Creative>';
const OVERLAY =
  '<Creative><NonLinearAds><TrackingEvents><Tracking event="creativeView">https://d.example/nl-view</Tracking></TrackingEvents><NonLinear width="300" height="250"><StaticResource creativeType="image/png">https://cdn.example/o.png</StaticResource><NonLinearClickThrough>https://brand.example/</NonLinearClickThrough></NonLinear></NonLinearAds></Creative>';
const inline = (name: string, creatives: string) =>
  `<Ad id="${name}"><InLine><AdSystem>S</AdSystem><AdTitle>${name}</AdTitle><Error>https://d.example/${name}-error?c=[ERRORCODE]</Error><Impression>https://d.example/${name}-imp</Impression><Creatives>${creatives}</Creatives></InLine></Ad>`;
const vast = (...ads: string[]) => `<VAST version="4.1">${ads.join('')}</VAST>`;
/** readVastAnswer for a display slot. */
const forDisplay = (xml: string) => readVastAnswer(xml, '', false, 0, undefined, true);

describe('a linear video answered to a display slot', () => {
  it('is a 201 no-fill (linear_on_display) with its own error trackers, not an ad', () => {
    const xml = vast(inline('spot', LINEAR));
    expect(forDisplay(xml)).toEqual({
      kind: 'empty',
      vastError: 201,
      reason: 'linear_on_display',
      errorUrls: ['https://d.example/spot-error?c=[ERRORCODE]'],
    });
    // a linear slot plays it, as before
    expect(readVastAnswer(xml)).toMatchObject({
      kind: 'inline',
      title: 'spot',
      mediaFiles: [{ url: 'https://cdn.example/spot.mp4' }],
    });
  });

  it("takes an ad's NonLinear when it has a Linear too (a linear slot still takes the Linear)", () => {
    const xml = vast(inline('both', LINEAR + OVERLAY));
    expect(forDisplay(xml)).toMatchObject({
      kind: 'inline',
      title: 'both',
      mediaFiles: [],
      duration: 0,
      clickThrough: 'https://brand.example/',
      nonLinear: { width: 300, height: 250, resource: { type: 'image', url: 'https://cdn.example/o.png' } },
      trackers: { events: [['creativeView', 'https://d.example/nl-view']] },
    });
    const linear = readVastAnswer(xml);
    expect(linear).toMatchObject({ kind: 'inline', mediaFiles: [{ url: 'https://cdn.example/spot.mp4' }] });
    expect(linear.kind === 'inline' && linear.nonLinear).toBeUndefined();
  });

  it("passes over a buffet's linear ad for the NonLinear after it, the linear one's trackers told 201", () => {
    const got = forDisplay(vast(inline('spot', LINEAR), inline('overlay', OVERLAY)));
    expect(got).toMatchObject({
      kind: 'inline',
      title: 'overlay',
      failedBefore: [{ vastError: 201, errorUrls: ['https://d.example/spot-error?c=[ERRORCODE]'] }],
    });
    expect(failedAdUrls(got.failedBefore)).toEqual(['https://d.example/spot-error?c=201']);
  });

  it('keeps a companion alone not_linear (201) and an ad without creatives 303 on a display slot', () => {
    const companion =
      '<Creative><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png">https://cdn.example/c.png</StaticResource></Companion></CompanionAds></Creative>';
    expect(forDisplay(vast(inline('c', companion)))).toMatchObject({
      kind: 'empty',
      vastError: 201,
      reason: 'not_linear',
    });
    expect(forDisplay(vast(inline('none', '')))).toMatchObject({
      kind: 'empty',
      vastError: 303,
      reason: 'no_creative',
    });
  });
});

describe('VastFetcher for a display slot: a wrapper chain ending in a linear video', () => {
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const answers: Record<string, string> = {
        '/wrapped': `<VAST version="4.1"><Ad id="w"><Wrapper><AdSystem>W</AdSystem><Error>https://d.example/w-error?c=[ERRORCODE]</Error><Impression>https://d.example/w-imp</Impression><VASTAdTagURI>${base}/spot</VASTAdTagURI></Wrapper></Ad></VAST>`,
        '/spot': vast(inline('spot', LINEAR)),
      };
      const body = answers[new URL(req.url ?? '/', 'http://x').pathname];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/xml' });
      res.end(body ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("is the demand's 201 no-fill, every wrapper's error trackers and the ad's told", async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    const viewer = { ua: 'test', ip: '' };
    expect(
      await fetcher.fetch(`${base}/wrapped`, Date.now() + 2000, viewer, undefined, { nonLinear: true }),
    ).toMatchObject({
      kind: 'no_fill',
      reason: 'linear_on_display',
      vastError: 201,
      errorUrls: ['https://d.example/w-error?c=[ERRORCODE]', 'https://d.example/spot-error?c=[ERRORCODE]'],
    });
    expect(await fetcher.fetch(`${base}/wrapped`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'inline',
      hops: 1,
    });
    await fetcher.close();
  });
});
