import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { buildRequestContext } from '../request/context.js';
import { renderInline } from '../vast/vastWriter.js';
import { demandAgent } from './deadline.js';
import { errorPings, failedAdUrls } from './errorPings.js';
import { demandAdParts, NO_MORE_ADS, readVastAnswer } from '../vast/vastAnswer.js';
import { VastFetcher } from './vastFetcher.js';

/**
 * The ads a player gives up on before the one it plays (a buffet's broken ad, a wrapper chain that
 * gives no ad before the next ad is tried) are reported where they asked, with their own code,
 * whether a later ad fills or not; and a NonLinear-only ad is read as an ad only for a display slot.
 */
const inline = (
  name: string,
  body = `<Creative><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/${name}.mp4</MediaFile></MediaFiles></Linear></Creative>`,
) =>
  `<Ad id="${name}"><InLine><AdSystem>S</AdSystem><AdTitle>${name}</AdTitle><Error>https://d.example/${name}-error?c=[ERRORCODE]</Error><Impression>https://d.example/${name}-imp</Impression><Creatives>${body}</Creatives></InLine></Ad>`;
const noMedia = (name: string) =>
  inline(name, '<Creative><Linear><Duration>00:00:10</Duration><MediaFiles></MediaFiles></Linear></Creative>');
const wrapper = (name: string, uri: string, attrs = '') =>
  `<Ad id="${name}"><Wrapper${attrs}><AdSystem>W</AdSystem><Error>https://d.example/${name}-error?c=[ERRORCODE]</Error><Impression>https://d.example/${name}-imp</Impression><VASTAdTagURI>${uri}</VASTAdTagURI></Wrapper></Ad>`;
const vast = (...ads: string[]) => `<VAST version="4.1">${ads.join('')}</VAST>`;
const overlay = (size = ' width="300" height="250"') =>
  `<Creative><NonLinearAds><TrackingEvents><Tracking event="creativeView">https://d.example/nl-view</Tracking><Tracking event="start">https://d.example/not-a-nonlinear-event</Tracking></TrackingEvents><NonLinear${size}><StaticResource creativeType="image/png">https://cdn.example/o.png</StaticResource><NonLinearClickThrough>https://brand.example/</NonLinearClickThrough><NonLinearClickTracking>https://d.example/nl-click</NonLinearClickTracking></NonLinear></NonLinearAds></Creative>`;

describe("a buffet's ads passed over", () => {
  it('names the broken ads before the one returned, each once over the fallbacks, and those after the last', () => {
    const xml = vast(noMedia('a'), inline('b'), noMedia('c'), noMedia('d'), inline('e'), noMedia('f'));
    expect(readVastAnswer(xml)).toMatchObject({
      title: 'b',
      failedBefore: [{ vastError: 401, errorUrls: ['https://d.example/a-error?c=[ERRORCODE]'] }],
    });
    const second = readVastAnswer(xml, '', false, 1);
    expect(second).toMatchObject({ title: 'e' });
    expect(second.failedBefore?.map((f) => f.errorUrls[0])).toEqual([
      'https://d.example/c-error?c=[ERRORCODE]',
      'https://d.example/d-error?c=[ERRORCODE]',
    ]);
    expect(readVastAnswer(xml, '', false, 2)).toMatchObject({
      kind: 'empty',
      reason: NO_MORE_ADS,
      failedBefore: [{ vastError: 401, errorUrls: ['https://d.example/f-error?c=[ERRORCODE]'] }],
    });
    // none plays: the first one's reason, the others beside it
    const none = readVastAnswer(vast(noMedia('a'), inline('b', ''), noMedia('c')));
    expect(none).toMatchObject({
      kind: 'empty',
      vastError: 401,
      errorUrls: ['https://d.example/a-error?c=[ERRORCODE]'],
    });
    expect(none.failedBefore?.map((f) => f.vastError)).toEqual([303, 401]);
    // one ad: nothing passed over
    expect(readVastAnswer(vast(inline('b'))).failedBefore).toBeUndefined();
  });

  it("fills each one's own code into its trackers, for errorPings to fill the rest", () => {
    const urls = failedAdUrls([
      { vastError: 301, errorUrls: ['https://d.example/w?c=[ERRORCODE]'] },
      { vastError: 100, errorUrls: ['https://d.example/x?c=%5BERRORCODE%5D&s=[SERVERSIDE]'] },
    ]);
    expect(urls).toEqual(['https://d.example/w?c=301', 'https://d.example/x?c=100&s=[SERVERSIDE]']);
    const ctx = buildRequestContext({}, { remoteAddress: '8.8.8.8', userAgent: 'UA' }, Date.now(), () => ({
      country: 'US',
      region: '',
      usState: '',
    }));
    expect(errorPings(urls, 900, ctx)).toEqual(['https://d.example/w?c=301', 'https://d.example/x?c=100&s=1']);
    expect(failedAdUrls(undefined)).toEqual([]);
  });
});

describe('a NonLinear-only ad', () => {
  it('is a 201 for a linear slot, and the ad itself for a display slot, with its NonLinearAds trackers', () => {
    const xml = vast(inline('nl', overlay()));
    expect(readVastAnswer(xml)).toMatchObject({ kind: 'empty', vastError: 201, reason: 'not_linear' });
    const ad = readVastAnswer(xml, '', false, 0, undefined, true);
    expect(ad).toMatchObject({
      kind: 'inline',
      mediaFiles: [],
      duration: 0,
      clickThrough: 'https://brand.example/',
      nonLinear: {
        width: 300,
        height: 250,
        resource: { type: 'image', url: 'https://cdn.example/o.png', mime: 'image/png' },
      },
      trackers: {
        impression: ['https://d.example/nl-imp'],
        events: [['creativeView', 'https://d.example/nl-view']],
        clickTracking: ['https://d.example/nl-click'],
      },
    });
    // written as our display creatives are: a NonLinear, no Linear
    if (ad.kind !== 'inline') throw new Error('inline expected');
    const parts = demandAdParts(ad, { impression: [], error: [], events: [], clickTracking: [] });
    expect(parts.linear).toBeNull();
    const doc = renderInline('4.2', {
      id: 'x',
      adSystem: 'S',
      title: 'T',
      advertiser: '',
      servingId: 's',
      pricingCpm: null,
      creativeId: 'c',
      universalAdId: 'u',
      ...parts,
    });
    expect(doc).toContain(
      '<NonLinear width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[https://cdn.example/o.png]]></StaticResource>',
    );
    expect(doc).not.toContain('<Linear');
    // a NonLinear with nothing to show: 503
    const blank = vast(
      inline('nl', '<Creative><NonLinearAds><NonLinear width="1" height="1"></NonLinear></NonLinearAds></Creative>'),
    );
    expect(readVastAnswer(blank, '', false, 0, undefined, true)).toMatchObject({
      kind: 'empty',
      vastError: 503,
      reason: 'no_nonlinear_resource',
      errorUrls: ['https://d.example/nl-error?c=[ERRORCODE]'],
    });
  });
});

describe('VastFetcher reports the chains a fallback replaced', () => {
  let demand: LocalServer;
  let base = '';
  const viewer = { ua: 'test', ip: '' };

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const answers: Record<string, string> = {
        '/empty': '<VAST version="4.1"><Error>https://d.example/empty-root?c=[ERRORCODE]</Error></VAST>',
        '/broken': '<VAST version="4.1"><Ad><InLine>',
        '/buffet': vast(wrapper('w1', `${base}/empty`), noMedia('n'), wrapper('w2', `${base}/broken`), inline('good')),
        '/all-fail': vast(wrapper('w1', `${base}/empty`), wrapper('w2', `${base}/missing`)),
        '/no-fallback': vast(wrapper('w1', `${base}/empty`, ' fallbackOnNoAd="false"'), inline('good')),
        '/overlay': vast(wrapper('w', `${base}/overlay-inline`)),
        '/overlay-inline': vast(inline('nl', overlay(''))),
      };
      const body = answers[path];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/xml' });
      res.end(body ?? '');
    });
    base = demand.url;
  });

  afterAll(() => demand.close());

  it('a later ad fills: every ad given up on before it, in the order tried, with its code', async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    const got = await fetcher.fetch(`${base}/buffet`, Date.now() + 2000, viewer);
    expect(got).toMatchObject({ kind: 'inline', ad: { title: 'good' } });
    if (got.kind !== 'inline') throw new Error('inline expected');
    expect(got.ad.failedBefore).toBeUndefined();
    expect(got.failed).toEqual([
      {
        vastError: 303,
        errorUrls: ['https://d.example/w1-error?c=[ERRORCODE]', 'https://d.example/empty-root?c=[ERRORCODE]'],
      },
      { vastError: 401, errorUrls: ['https://d.example/n-error?c=[ERRORCODE]'] },
      { vastError: 100, errorUrls: ['https://d.example/w2-error?c=[ERRORCODE]'] },
    ]);
    await fetcher.close();
  });

  it("none fills: the first chain's no-fill, the later ones' failures beside it; no fallback past fallbackOnNoAd=false", async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    expect(await fetcher.fetch(`${base}/all-fail`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'no_fill',
      reason: 'no_ad',
      vastError: 303,
      errorUrls: ['https://d.example/w1-error?c=[ERRORCODE]', 'https://d.example/empty-root?c=[ERRORCODE]'],
      failed: [{ vastError: 301, errorUrls: ['https://d.example/w2-error?c=[ERRORCODE]'] }],
    });
    const kept = await fetcher.fetch(`${base}/no-fallback`, Date.now() + 2000, viewer);
    expect(kept).toMatchObject({ kind: 'no_fill', reason: 'no_ad' });
    expect(kept.kind === 'no_fill' && kept.failed).toBeUndefined();
    await fetcher.close();
  });

  it("a NonLinear ad behind a wrapper: a no-fill for a linear slot, the ad with the chain's trackers for a display slot", async () => {
    const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
    expect(await fetcher.fetch(`${base}/overlay`, Date.now() + 2000, viewer)).toMatchObject({
      kind: 'no_fill',
      vastError: 201,
      reason: 'not_linear',
    });
    const got = await fetcher.fetch(`${base}/overlay`, Date.now() + 2000, viewer, undefined, { nonLinear: true });
    expect(got).toMatchObject({
      kind: 'inline',
      hops: 1,
      ad: {
        nonLinear: { width: 0, height: 0 },
        trackers: {
          impression: ['https://d.example/w-imp', 'https://d.example/nl-imp'],
          error: ['https://d.example/w-error?c=[ERRORCODE]', 'https://d.example/nl-error?c=[ERRORCODE]'],
        },
      },
    });
    await fetcher.close();
  });
});
