import { describe, expect, it } from 'vitest';
import { clientAds, schemaErrors } from '../../../test/vastSchema.js';
import { podDocument } from './adPod.js';
import { noTrackers, renderInline } from '../vast/vastWriter.js';

const ad = (id: string, media: string) =>
  renderInline('4.2', {
    id,
    adSystem: 'adplane',
    title: media,
    advertiser: media,
    servingId: `s-${media}`,
    pricingCpm: null,
    creativeId: media,
    universalAdId: media,
    clickThrough: 'https://brand.example.com/',
    linear: {
      duration: 15,
      mediaFiles: [
        { url: `https://cdn.example.com/${media}.mp4`, mime: 'video/mp4', width: 640, height: 360, bitrate: 800 },
      ],
    },
    nonLinear: null,
    trackers: { ...noTrackers(), impression: [`https://adplane.example/ev?e=impression&t=${media}`] },
  });

describe('podDocument', () => {
  it('numbers the ads of a break and tells apart two ads with one id (one tag filling two slots)', () => {
    const xml = podDocument([ad('tag5', 'one'), ad('cr9', 'two'), ad('tag5', 'three')]);
    expect(schemaErrors('4.2', xml)).toBe('');
    expect([...xml.matchAll(/<Ad sequence="(\d+)" id="([^"]*)"/g)].map((m) => `${m[1]}:${m[2]}`)).toEqual([
      '1:tag5',
      '2:cr9',
      '3:tag5-3',
    ]);
    expect((clientAds(xml).ads as { id: string; sequence: number }[]).map((a) => `${a.sequence}:${a.id}`)).toEqual([
      '1:tag5',
      '2:cr9',
      '3:tag5-3',
    ]);
  });
});
