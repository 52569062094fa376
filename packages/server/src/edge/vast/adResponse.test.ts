import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../../test/vastSchema.js';
import { type Winner } from '../auction/runAuction.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../snapshot/types.js';
import { winnerDocument } from './adResponse.js';
import { type VastVersion } from './vastVersion.js';

const creative: SnapCreative = {
  id: 7, tenantId: 1, name: 'Spot', advertiserId: 3, format: 'video', videoSource: 'media', vastUrl: '', duration: 15, displayType: 'image', imageUrl: '', html: '',
  mediaFiles: [{ url: 'https://cdn.example/spot.mp4', mime: 'video/mp4', duration: 15, width: 1280, height: 720, bitrate: 2000 }],
  width: 0, height: 0, clickUrl: 'https://brand.example/', adomain: ['brand.example'], iabCategories: [],
};
const campaign = (over: Partial<SnapCampaign> = {}): SnapCampaign =>
  ({ id: 5, tenantId: 1, name: 'Autumn', advertiserId: 3, advertiserName: 'Brand & Co', bidCpm: 4_000_000, creatives: [creative], ...over }) as SnapCampaign;
const channel = (vastVersion: VastVersion) => ({ vastVersion }) as SnapChannel;
const winner = (c: SnapCampaign, clearingCpm: number) =>
  ({ clearingCpm, bid: { priceCpm: c.bidCpm, markup: { kind: 'campaign', campaign: c, creative }, tagId: 0, campaignId: c.id, creativeId: creative.id, advertiserId: c.advertiserId } }) as unknown as Winner;

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
    expect(winnerDocument(channel('4.2'), winner(c, 1_000_000), 'https://other.example', 'tok', 'd')).toContain('https://other.example/ev?');
    const renamed = campaign({ advertiserName: 'Other Brand' });
    expect(winnerDocument(channel('4.2'), winner(renamed, 1_000_000), 'https://ad.example', 'tok', 'd')).toContain('<Advertiser>Other Brand</Advertiser>');
  });
});
