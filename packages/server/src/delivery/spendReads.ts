import { dayIndex } from './accountBook.js';
import { type DeliveryCore } from './deliveryCore.js';
import { DAY_MS, HOUR_MS, pacingState, type PacingState } from './pacing.js';
import { type SpendRead } from './sharedCounters.js';
import {
  type CampaignLimits,
  type CampaignSpend,
  type DealCounts,
  type DealLimits,
  type TagCounts,
  type TagLimits,
} from './types.js';

/**
 * What the console reads of a process's delivery control: a campaign's pacing as this process sees
 * it (the shared spend as of its last exchange), and the spend read from the shared counters plus
 * what this process has not sent yet.
 */

/** The tenant-zone hour of the day `now` falls in. */
const hourOf = (now: number, timezone: number): number =>
  Math.floor((now + timezone * HOUR_MS - dayIndex(now, timezone) * DAY_MS) / HOUR_MS);

export function localPacingState(core: DeliveryCore, campaign: CampaignLimits, now: number): PacingState {
  const account = core.accounts.get(core.accounts.dailyKey(campaign, now));
  const hourly = new Array<number>(24).fill(0);
  let spent = 0;
  if (account) {
    spent = account.spentSoFar;
    const hour = hourOf(now, campaign.timezone);
    if (account.hourAt >= 0) {
      hourly[account.hourAt] = account.hourNow;
      if (account.hourAt > 0) hourly[account.hourAt - 1] = account.hourBefore;
    }
    hourly[hour] = (hourly[hour] ?? 0) + account.used + account.sending;
  }
  return pacingState({
    campaignId: campaign.id,
    pacing: campaign.pacing,
    dailyBudget: campaign.dailyBudget,
    timezone: campaign.timezone,
    spentToday: spent,
    hourly,
    now,
    createdAtMinute: campaign.createdAtMinute,
  });
}

export async function readPacing(
  core: DeliveryCore,
  campaigns: readonly CampaignLimits[],
  now: number,
): Promise<PacingState[]> {
  const keys = campaigns.map((c) => core.accounts.dailyKey(c, now));
  const reads: SpendRead[] = await core.shared.readSpend(keys);
  return campaigns.map((c, i) => {
    const read = reads[i]!;
    const account = core.accounts.get(keys[i]!);
    const unsent = account ? account.used + account.sending : 0;
    const hour = hourOf(now, c.timezone);
    const hourly = [...read.hourly];
    hourly[hour] = (hourly[hour] ?? 0) + unsent;
    return pacingState({
      campaignId: c.id,
      pacing: c.pacing,
      dailyBudget: c.dailyBudget,
      timezone: c.timezone,
      spentToday: read.spent + unsent,
      hourly,
      now,
      createdAtMinute: c.createdAtMinute,
    });
  });
}

export async function readCampaignSpend(
  core: DeliveryCore,
  campaigns: readonly CampaignLimits[],
  now: number,
): Promise<CampaignSpend[]> {
  const daily = campaigns.map((c) => core.accounts.dailyKey(c, now));
  const totals = campaigns.map((c) => `c${c.id}:t`);
  // What this process has not sent yet, taken before the read is queued: spend already on its way
  // (`sending`) was queued on the same connection before this read, so the read sees it; spend
  // sent after this read was queued is in `used` now.
  const unsent = new Map([...daily, ...totals].map((key) => [key, core.accounts.get(key)?.used ?? 0]));
  const reads: SpendRead[] = await core.shared.readSpend([...daily, ...totals]);
  return campaigns.map((c, i) => {
    const read = reads[i]!;
    const hourly = [...read.hourly];
    const hour = hourOf(now, c.timezone);
    hourly[hour] = (hourly[hour] ?? 0) + unsent.get(daily[i]!)!;
    return {
      spentToday: read.spent + unsent.get(daily[i]!)!,
      hourly,
      totalSpent: c.totalBudget === 'unlimited' ? null : reads[campaigns.length + i]!.spent + unsent.get(totals[i]!)!,
    };
  });
}

export async function readDealCounts(
  core: DeliveryCore,
  deals: readonly DealLimits[],
  now: number,
): Promise<DealCounts[]> {
  const keys = deals.flatMap((d) => [core.accounts.dealTotalKey(d), core.accounts.dealDayKey(d, now)]);
  const unsent = keys.map((key) => core.accounts.get(key)?.used ?? 0);
  const reads: SpendRead[] = await core.shared.readSpend(keys);
  return deals.map((_, i) => ({
    imps: reads[2 * i]!.spent + unsent[2 * i]!,
    today: reads[2 * i + 1]!.spent + unsent[2 * i + 1]!,
  }));
}

export async function readTagCounts(core: DeliveryCore, tags: readonly TagLimits[], now: number): Promise<TagCounts[]> {
  const keys = tags.flatMap((t) => [core.accounts.tagKey(t, 'ti', now), core.accounts.tagKey(t, 'tr', now)]);
  // what this process has not sent yet, taken before the read is queued (as readCampaignSpend does)
  const unsent = keys.map((key) => core.accounts.get(key)?.used ?? 0);
  const reads: SpendRead[] = await core.shared.readSpend(keys);
  return tags.map((_, i) => ({
    imps: reads[2 * i]!.spent + unsent[2 * i]!,
    requests: reads[2 * i + 1]!.spent + unsent[2 * i + 1]!,
  }));
}
