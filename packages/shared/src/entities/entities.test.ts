import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../schemas/common.js';
import { CampaignInput } from '../kinds/campaigns.js';
import { CreativeInput } from '../kinds/creatives.js';
import { AppListInput, parseListText } from '../kinds/lists.js';
import { ChannelInput } from '../kinds/channels.js';
import { TagInput } from '../kinds/tags.js';
import { TargetingInput } from '../kinds/targetings.js';
import { RESOURCES, RESOURCE_KINDS, referrersOf } from './registry.js';

const errorsOf = (r: { success: boolean; error?: unknown }) =>
  r.success ? [] : fieldErrors(r.error as Parameters<typeof fieldErrors>[0]).map((e) => e.field);

describe('entity contract', () => {
  it('requires a trimmed name and names the field', () => {
    expect(errorsOf(ChannelInput.safeParse({ name: '   ' }))).toContain('name');
    expect(ChannelInput.parse({ name: '  CTV Roku  ' }).name).toBe('CTV Roku');
  });

  it('checks a tag by its integration', () => {
    expect(errorsOf(TagInput.safeParse({ name: 'x', integration: 'VAST', vastUrl: 'ftp://a' }))).toEqual(['vastUrl']);
    expect(errorsOf(TagInput.safeParse({ name: 'x', integration: 'RTB' }))).toEqual(['endpoint']);
    expect(errorsOf(TagInput.safeParse({ name: 'x', integration: 'PreBid' }))).toEqual(['partner']);
    expect(
      errorsOf(TagInput.safeParse({ name: 'x', price: { type: 'revshare', percent: 120 }, vastUrl: 'https://a.b/v' })),
    ).toEqual(['price.percent']);
    expect(TagInput.parse({ name: 'x', vastUrl: 'https://ads.example.com/vast?w={{width}}' }).timeoutMs).toBe(1000);
  });

  it('keeps campaign dates and budgets coherent', () => {
    const base = { name: 'c', startDate: '2026-11-01', bidCpm: 5_000_000, channelScope: 'all' };
    expect(errorsOf(CampaignInput.safeParse({ ...base, endDate: '2026-10-01' }))).toEqual(['endDate']);
    expect(errorsOf(CampaignInput.safeParse({ ...base, totalBudget: 100, dailyBudget: 200 }))).toEqual(['dailyBudget']);
    expect(errorsOf(CampaignInput.safeParse({ ...base, startDate: '2026-13-01' }))).toEqual(['startDate']);
    expect(CampaignInput.parse({ ...base, creativeIds: [3, 3, 4] }).creativeIds).toEqual([3, 4]);
  });

  it("asks where a campaign runs: no channel scope is taken for 'all'", () => {
    const { channelScope: _scope, ...unassigned } = {
      name: 'c',
      startDate: '2026-11-01',
      bidCpm: 5_000_000,
      channelScope: 'all',
    };
    const refused = CampaignInput.safeParse(unassigned);
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['channelScope', "is required: 'all' (every channel of the account), 'include' or 'exclude'"],
    ]);
    expect(errorsOf(CampaignInput.safeParse({ ...unassigned, channelScope: 'some' }))).toEqual(['channelScope']);
    expect(CampaignInput.parse({ ...unassigned, channelScope: 'all' })).toMatchObject({
      channelScope: 'all',
      channelIds: [],
    });
  });

  it('needs media for a video creative and a size for display', () => {
    expect(errorsOf(CreativeInput.safeParse({ name: 'v' }))).toEqual(['mediaFiles']);
    expect(
      errorsOf(CreativeInput.safeParse({ name: 'd', format: 'display', imageUrl: 'https://cdn.example.com/a.png' })),
    ).toEqual(['width']);
  });

  it('defaults targeting rules to "any"', () => {
    const t = TargetingInput.parse({ name: 't' });
    expect(t.rules.countries).toEqual({ mode: 'include', values: [] });
    expect(t.rules.dayParting.enabled).toBe(false);
  });

  it('parses pasted lists: trims, dedupes, reports bad lines by number', () => {
    const parsed = parseListText(
      'applists',
      'bundle\ncom.example.app\n"com.example.app"\n\n123456789,Roku store\nnot a bundle!\n',
    );
    expect(parsed.items).toEqual(['com.example.app', '123456789']);
    expect(parsed.duplicates).toBe(1);
    expect(parsed.invalid.map((i) => i.line)).toEqual([1, 6]);
    expect(errorsOf(AppListInput.safeParse({ name: 'a', items: ['com.ok.app', 'bad bundle'] }))).toEqual(['items.1']);
  });

  it('registers every kind with a schema and resolvable references', () => {
    for (const kind of RESOURCE_KINDS) {
      const def = RESOURCES[kind];
      expect(def.kind).toBe(kind);
      for (const ref of def.refs) expect(RESOURCES[ref.kind]).toBeDefined();
    }
    expect(
      referrersOf('targetings')
        .map((r) => r.from.kind)
        .sort(),
    ).toEqual(['adexchanges', 'campaigns', 'channels', 'supplydeals', 'sups', 'tags']);
  });
});
