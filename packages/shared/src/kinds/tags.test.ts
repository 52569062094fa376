import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../schemas/common.js';
import { TagInput } from './tags.js';

const prebid = (partner: string, partnerParams: Record<string, unknown>) =>
  TagInput.safeParse({ name: 'pb', integration: 'PreBid', partner, partnerParams });

describe('a PreBid tag', () => {
  it('keeps the parameters its partner schema accepts, under the bidder code or the Prebid variant id', () => {
    expect(prebid('appnexusP', { placement_id: 13144370 }).data?.partnerParams).toEqual({ placement_id: 13144370 });
    expect(prebid('appnexus', { member: 958, invCode: 'abc' }).success).toBe(true);
  });

  it('names each refused parameter under partnerParams, with the reason', () => {
    const result = prebid('teadsP', { placementId: '123' });
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'partnerParams.placementId', message: 'placementId must be a whole number (got text "123")' },
    ]);
    const nested = prebid('pubmatic', { publisherId: '1', wrapper: {} });
    expect(fieldErrors(nested.error!)).toEqual([
      { field: 'partnerParams.wrapper.profile', message: 'wrapper.profile is required' },
    ]);
  });

  it('refuses a partner outside the catalogue on the partner field', () => {
    expect(fieldErrors(prebid('nobody', {}).error!)).toEqual([
      { field: 'partner', message: 'partner "nobody" is not in the partner catalogue' },
    ]);
  });
});
