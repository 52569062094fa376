import { describe, expect, it } from 'vitest';
import { requestKeyOf, sourceKeyOf } from '../counters/hourlyCounters.js';
import { eventDims, eventRequestKey, eventSourceKey } from './trackingEvents.js';
import { type Decision, newDecisionId } from './trackingToken.js';

const decision: Decision = {
  id: newDecisionId(), at: 1_800_000_000, tenantId: 12, channelId: 3456, subpublisherId: 7, tagId: 0, campaignId: 123, creativeId: 789, advertiserId: 4,
  country: 'US', device: 'desktop', os: 'windows', appBundle: 'com.example.app', domain: 'example.com', revenueCpm: 5_000_000, costCpm: 3_500_000, test: 0,
  integration: 'RTB', supplierId: 9, adexchangeId: 11, dealId: 'DEAL-1', partner: 'appnexus', marketplace: 'Exchange One', viewer: 'd:abc', postbid: 1,
};

describe('tracking events: counter keys', () => {
  it("builds an event row's keys as the counters build them from its dimensions", () => {
    for (const d of [decision, { ...decision, tagId: 55, campaignId: 0, dealId: '', partner: '', marketplace: '', appBundle: '', domain: '', country: '' }]) {
      for (const vastError of ['', '303', '900']) {
        const dims = eventDims(d, vastError);
        expect(eventRequestKey(d)).toBe(requestKeyOf(dims));
        expect(eventSourceKey(d, vastError)).toBe(sourceKeyOf(dims));
      }
    }
  });
});
