import { describe, expect, it } from 'vitest';
import { campaignRunsOn, CHANNEL_SCOPES } from '../kinds/campaigns.js';
import { assignmentOnChannel, ChannelCampaignsInput } from './channelCampaigns.js';

describe('assignmentOnChannel', () => {
  it('makes each scope run on the channel, other channels untouched', () => {
    expect(assignmentOnChannel('all', [], 7, true)).toEqual({ channelScope: 'all', channelIds: [] });
    expect(assignmentOnChannel('include', [3], 7, true)).toEqual({ channelScope: 'include', channelIds: [3, 7] });
    expect(assignmentOnChannel('include', [7, 3], 7, true)).toEqual({ channelScope: 'include', channelIds: [7, 3] });
    expect(assignmentOnChannel('exclude', [3, 7], 7, true)).toEqual({ channelScope: 'exclude', channelIds: [3] });
    // an empty "all but" is every channel: said as such
    expect(assignmentOnChannel('exclude', [7], 7, true)).toEqual({ channelScope: 'all', channelIds: [] });
    expect(assignmentOnChannel(undefined, undefined, 7, true)).toEqual({ channelScope: 'all', channelIds: [] });
  });

  it('takes each scope off the channel; an "only" list it was the last of is refused', () => {
    expect(assignmentOnChannel('all', [], 7, false)).toEqual({ channelScope: 'exclude', channelIds: [7] });
    expect(assignmentOnChannel('include', [3, 7], 7, false)).toEqual({ channelScope: 'include', channelIds: [3] });
    expect(assignmentOnChannel('include', [7], 7, false)).toBe('empties');
    expect(assignmentOnChannel('include', [3], 7, false)).toEqual({ channelScope: 'include', channelIds: [3] });
    expect(assignmentOnChannel('exclude', [3], 7, false)).toEqual({ channelScope: 'exclude', channelIds: [3, 7] });
    expect(assignmentOnChannel(undefined, undefined, 7, false)).toEqual({ channelScope: 'exclude', channelIds: [7] });
  });

  it('answers what campaignRunsOn then reads, for every scope and list', () => {
    const lists = [[], [7], [3], [3, 7]];
    for (const scope of CHANNEL_SCOPES)
      for (const ids of lists) {
        if (scope === 'include' && !ids.length) continue;
        if (scope === 'all' && ids.length) continue;
        for (const runs of [true, false]) {
          const next = assignmentOnChannel(scope, ids, 7, runs);
          if (next === 'empties') {
            expect([scope, ids, runs]).toEqual(['include', [7], false]);
            continue;
          }
          expect(campaignRunsOn(next.channelScope, next.channelIds, 7), `${scope} ${ids} ${runs}`).toBe(runs);
          // channel 3 keeps its answer
          expect(campaignRunsOn(next.channelScope, next.channelIds, 3)).toBe(campaignRunsOn(scope, ids, 3));
        }
      }
  });
});

describe('ChannelCampaignsInput', () => {
  it('needs the list, refuses a campaign named twice or a bad id', () => {
    expect(ChannelCampaignsInput.parse({ campaignIds: [] })).toEqual({ campaignIds: [] });
    for (const body of [{}, { campaignIds: [1, 1] }, { campaignIds: ['x'] }, { campaignIds: [0] }]) {
      const r = ChannelCampaignsInput.safeParse(body);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path[0]).toBe('campaignIds');
    }
  });
});
