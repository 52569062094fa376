import { describe, expect, it } from 'vitest';
import { CampaignInput, TagInput } from '@adplane/shared';
import { namePath, schemaFieldErrors } from './formErrors.js';

describe('schemaFieldErrors', () => {
  it("names the fields the kind's schema refuses, in the server's words", () => {
    expect(
      schemaFieldErrors(TagInput, {
        name: 'T',
        integration: 'RTB',
        endpoint: 'ftp://x',
        price: { type: 'revshare', percent: 120 },
      }),
    ).toEqual([
      { field: 'price.percent', message: 'must be between 0 and 100' },
      { field: 'endpoint', message: 'must be an http(s) OpenRTB endpoint' },
    ]);
    expect(
      schemaFieldErrors(CampaignInput, {
        name: 'C',
        startDate: '2026-11-02',
        endDate: '2026-11-01',
        bidCpm: 1,
        channelScope: 'all',
      }),
    ).toEqual([{ field: 'endDate', message: 'must not be before the start date' }]);
    expect(
      schemaFieldErrors(TagInput, { name: 'T', vastUrl: 'https://ads.example/vast', qpsLimit: 'unlimited' }),
    ).toEqual([]);
  });

  it('turns a dotted field into the form name path', () => {
    expect(namePath('mediaFiles.0.url')).toEqual(['mediaFiles', 0, 'url']);
  });
});
