import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../../test/vastSchema.js';
import { type Winner } from '../auction/runAuction.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../snapshot/types.js';
import { jsonText, winnerDocument, winnerDocumentJson, withImpressionPixels } from './adResponse.js';
import { type VastVersion } from '../vast/vastVersion.js';

const creative: SnapCreative = {
  id: 7,
  tenantId: 1,
  name: 'Spot',
  advertiserId: 3,
  format: 'video',
  videoSource: 'media',
  vastUrl: '',
  duration: 15,
  displayType: 'image',
  imageUrl: '',
  html: '',
  mediaFiles: [
    { url: 'https://cdn.example/spot.mp4', mime: 'video/mp4', duration: 15, width: 1280, height: 720, bitrate: 2000 },
  ],
  width: 0,
  height: 0,
  clickUrl: 'https://brand.example/',
  adomain: ['brand.example'],
  iabCategories: [],
};
const campaign = (over: Partial<SnapCampaign> = {}): SnapCampaign =>
  ({
    id: 5,
    tenantId: 1,
    name: 'Autumn',
    advertiserId: 3,
    advertiserName: 'Brand & Co',
    bidCpm: 4_000_000,
    creatives: [creative],
    ...over,
  }) as SnapCampaign;
const channel = (vastVersion: VastVersion) => ({ vastVersion }) as SnapChannel;
const winner = (c: SnapCampaign, clearingCpm: number) =>
  ({
    clearingCpm,
    bid: {
      priceCpm: c.bidCpm,
      markup: { kind: 'campaign', campaign: c, creative },
      tagId: 0,
      campaignId: c.id,
      creativeId: creative.id,
      advertiserId: c.advertiserId,
    },
  }) as unknown as Winner;

describe("a campaign's VAST answer", () => {
  it('states each decision its own price, token and serving id, from one pre-rendered document', () => {
    const c = campaign();
    const first = winnerDocument(channel('4.2'), winner(c, 2_500_000), 'https://ad.example', 'tok1', 'd1');
    const second = winnerDocument(channel('4.2'), winner(c, 3_125_000), 'https://ad.example', 'tok2', 'd2');
    expect(first).toContain('<Pricing model="cpm" currency="USD">2.5000</Pricing>');
    expect(second).toContain('<Pricing model="cpm" currency="USD">3.1250</Pricing>');
    expect(second).toContain('/ev?e=impression&t=tok2');
    expect(second).toContain('<AdServingId>d2</AdServingId>');
    expect(second).not.toMatch(/ADPLANE[A-Z]+0|tok1|2\.5000/);
    expect(first.replace('2.5000', '3.1250').replaceAll('tok1', 'tok2').replace('>d1<', '>d2<')).toBe(second);
    expect(schemaErrors('4.2', second)).toBe('');
  });

  it("answers in the channel's version, valid in each, with no price in VAST 2.0; another origin or a changed campaign renders anew", () => {
    const c = campaign();
    for (const version of ['2.0', '3.0', '4.0', '4.1', '4.2'] as const) {
      const xml = winnerDocument(channel(version), winner(c, 1_000_000), 'https://ad.example', 'tok', 'd');
      expect(xml).toContain(`version="${version}"`);
      expect(schemaErrors(version, xml), version).toBe('');
      expect(xml.includes('<Pricing'), version).toBe(version !== '2.0');
    }
    expect(winnerDocument(channel('4.2'), winner(c, 1_000_000), 'https://other.example', 'tok', 'd')).toContain(
      'https://other.example/ev?',
    );
    const renamed = campaign({ advertiserName: 'Other Brand' });
    expect(winnerDocument(channel('4.2'), winner(renamed, 1_000_000), 'https://ad.example', 'tok', 'd')).toContain(
      '<Advertiser>Other Brand</Advertiser>',
    );
  });
});

describe("the document as JSON string contents (a bid response's adm)", () => {
  it('is exactly jsonText of the document, from the pre-escaped template, in every version', () => {
    // names JSON must escape: quotes, a backslash, a control character, line separators, non-ASCII
    const odd = campaign({ id: 6, name: 'Say "hi" \\ to\tall', advertiserName: 'Crème & "Brûlée"\u2028Co' });
    for (const version of ['2.0', '3.0', '4.0', '4.1', '4.2'] as const) {
      for (const [c, price, token, id] of [
        [odd, 2_500_000, 'tok1.x~2E-_', 'd1'],
        [odd, 3_125_000, 'tok2', 'd2'],
        [campaign(), 1_000_000, 'tok3', 'd3'],
      ] as const) {
        const json = winnerDocumentJson(channel(version), winner(c, price), 'https://ad.example', token, id);
        expect(json, version).toBe(
          jsonText(winnerDocument(channel(version), winner(c, price), 'https://ad.example', token, id)),
        );
        expect(JSON.parse(`"${json}"`)).toBe(
          winnerDocument(channel(version), winner(c, price), 'https://ad.example', token, id),
        );
      }
    }
  });

  it('escapes a spliced value that JSON does not write as it is, and post-bid pixels spliced into it', () => {
    const c = campaign();
    const json = winnerDocumentJson(channel('4.2'), winner(c, 1_000_000), 'https://ad.example', 'a"b\\c', 'd"1');
    expect(JSON.parse(`"${json}"`)).toBe(
      winnerDocument(channel('4.2'), winner(c, 1_000_000), 'https://ad.example', 'a"b\\c', 'd"1'),
    );
    const pixels = ['https://ivt.example/p?a=1&b="2"', 'https://ivt.example/\u00e9'];
    const xml = winnerDocument(channel('4.2'), winner(c, 1_000_000), 'https://ad.example', 'tok', 'd');
    const withPixels = withImpressionPixels(
      winnerDocumentJson(channel('4.2'), winner(c, 1_000_000), 'https://ad.example', 'tok', 'd'),
      pixels,
      jsonText,
    );
    expect(JSON.parse(`"${withPixels}"`)).toBe(withImpressionPixels(xml, pixels));
    expect(schemaErrors('4.2', JSON.parse(`"${withPixels}"`) as string)).toBe('');
  });
});
