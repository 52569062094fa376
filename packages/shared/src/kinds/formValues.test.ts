import { describe, expect, it } from 'vitest';
import { type z } from 'zod';
import { fieldErrors } from '../schemas/common.js';
import { AdExchangeInput } from './adexchanges.js';
import { CampaignInput } from './campaigns.js';
import { ChannelInput } from './channels.js';
import { CreativeInput } from './creatives.js';
import { TagInput } from './tags.js';

/** `field: message` of what a schema refuses in `body`. */
const refused = (schema: z.ZodType, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? [] : fieldErrors(r.error).map((e) => `${e.field}: ${e.message}`);
};

const campaign = { name: 'c', startDate: '2026-11-01', bidCpm: 5_000_000, channelScope: 'all' };
const tag = { name: 't', vastUrl: 'https://ads.example.com/vast' };

describe('amounts and counts', () => {
  it('refuses a bid of $0.00 or less: it could never win', () => {
    expect(refused(CampaignInput, { ...campaign, bidCpm: 0 })).toEqual(['bidCpm: must be greater than 0']);
    expect(refused(CampaignInput, { ...campaign, bidCpm: -2_500_000 })).toEqual(['bidCpm: must be greater than 0']);
    expect(refused(CampaignInput, { ...campaign, bidCpm: 10_000 })).toEqual([]);
  });

  it('refuses a negative budget or cap in the words of its number, not of the union with unlimited', () => {
    expect(refused(CampaignInput, { ...campaign, totalBudget: -5_000_000 })).toEqual([
      'totalBudget: must not be negative',
    ]);
    expect(refused(CampaignInput, { ...campaign, dailyBudget: -1 })).toEqual(['dailyBudget: must not be negative']);
    expect(refused(TagInput, { ...tag, qpsLimit: -10 })).toEqual(['qpsLimit: must not be negative']);
    expect(refused(TagInput, { ...tag, dailyImpCap: -1 })).toEqual(['dailyImpCap: must not be negative']);
    // 0 stays a real zero (never spends, never serves), and unlimited stays unlimited
    expect(refused(CampaignInput, { ...campaign, totalBudget: 0, dailyBudget: 0 })).toEqual([]);
    expect(refused(TagInput, { ...tag, dailyImpCap: 0, qpsLimit: 'unlimited' })).toEqual([]);
  });

  it('refuses negative floors, prices and shares, and keeps a floor of 0 (no floor)', () => {
    expect(refused(ChannelInput, { name: 'c', floorCpm: -1 })).toEqual(['floorCpm: must not be negative']);
    expect(refused(ChannelInput, { name: 'c', payout: { type: 'cpm', cpm: -1 } })).toEqual([
      'payout.cpm: must not be negative',
    ]);
    expect(refused(TagInput, { ...tag, price: { type: 'revshare', percent: -1 } })).toEqual([
      'price.percent: must be between 0 and 100',
    ]);
    expect(refused(AdExchangeInput, { name: 'x', endpoint: 'https://rtb.example.com', marginPercent: -5 })).toEqual([
      'marginPercent: must be between 0 and 100',
    ]);
    expect(refused(ChannelInput, { name: 'c', floorCpm: 0 })).toEqual([]);
  });

  it('says the range of a count or size it refuses', () => {
    expect(refused(CampaignInput, { ...campaign, frequencyCap: { count: 3, periodHours: 0 } })).toEqual([
      'frequencyCap.periodHours: must be between 1 and 720 hours',
    ]);
    expect(refused(ChannelInput, { name: 'c', demand: [{ tagId: 1, priority: -1 }] })).toEqual([
      'demand.0.priority: must be between 1 and 100',
    ]);
    const video = {
      name: 'v',
      mediaFiles: [{ url: 'https://cdn.example.com/a.mp4', mime: 'video/mp4', duration: 30, width: -1, height: 1080 }],
    };
    expect(refused(CreativeInput, video)).toEqual(['mediaFiles.0.width: must be between 1 and 7680 pixels']);
    expect(
      refused(CreativeInput, { ...video, mediaFiles: [{ ...video.mediaFiles[0], width: 1920, bitrate: -1 }] }),
    ).toEqual(['mediaFiles.0.bitrate: must be between 0 and 100000 kbps']);
  });
});

describe('names', () => {
  it('refuses a name past 255 characters with the limit, and takes 255', () => {
    expect(refused(ChannelInput, { name: 'N'.repeat(10_000) })).toEqual(['name: must be at most 255 characters']);
    expect(refused(ChannelInput, { name: 'N'.repeat(255) })).toEqual([]);
  });
});

describe('URLs and domains pasted with spaces or a line break around them', () => {
  it('trims them before the URL check', () => {
    expect(TagInput.parse({ ...tag, vastUrl: '  https://ads.example.com/vast \n' }).vastUrl).toBe(
      'https://ads.example.com/vast',
    );
    expect(AdExchangeInput.parse({ name: 'x', endpoint: '\nhttps://rtb.example.com/openrtb2  ' }).endpoint).toBe(
      'https://rtb.example.com/openrtb2',
    );
    const creative = CreativeInput.parse({
      name: 'v',
      clickUrl: ' https://brand.example.com/ \n',
      adomain: [' Brand.Example.com '],
      mediaFiles: [
        { url: '\thttps://cdn.example.com/a.mp4\n', mime: 'video/mp4', duration: 30, width: 1920, height: 1080 },
      ],
    });
    expect([creative.clickUrl, creative.adomain, creative.mediaFiles[0]?.url]).toEqual([
      'https://brand.example.com/',
      ['brand.example.com'],
      'https://cdn.example.com/a.mp4',
    ]);
    expect(ChannelInput.parse({ name: 'c', domain: ' Roku.Example.com\n' }).domain).toBe('roku.example.com');
  });

  it('still refuses a URL with a space inside', () => {
    expect(refused(TagInput, { ...tag, vastUrl: 'https://ads.example.com/my vast' })).toEqual([
      'vastUrl: must be an http(s) VAST URL',
    ]);
  });
});
