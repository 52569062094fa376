import { isLive, parseCampaignRow, type SkipSink, type StoredRow } from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners, ownersServe } from './accounts.js';
import { type SnapCampaign, type SnapCreative } from './types.js';

const HOUR = 3_600_000;

/** 00:00 of a YYYY-MM-DD day in a zone `tz` hours east of UTC, as ms since the epoch. */
export function dayStart(date: string, tz: number): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) - tz * HOUR;
}

/**
 * Live campaigns of live tenants and advertisers, with their live creatives. Flight days are whole
 * days in the tenant's time zone: a campaign runs from 00:00 of its start day to 24:00 of its end day.
 * A campaign without a creative that can serve is left out (it could never fill).
 */
export function compileCampaigns(
  rows: readonly StoredRow[],
  owners: Owners,
  creatives: ReadonlyMap<number, SnapCreative>,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  sink: SkipSink,
): Map<number, SnapCampaign> {
  const out = new Map<number, SnapCampaign>();
  for (const row of rows) {
    const c = parseCampaignRow(row, sink);
    if (!c || !isLive(c) || !ownersServe(owners, c.tenantId, { advertiserId: c.advertiserId })) continue;
    const tenant = owners.tenants.get(c.tenantId!)!;
    const own = c.creativeIds.map((id) => creatives.get(id)).filter((x): x is SnapCreative => !!x && x.tenantId === c.tenantId);
    if (!own.length) continue;
    out.set(c.id, {
      id: c.id,
      tenantId: c.tenantId!,
      name: c.name,
      advertiserId: c.advertiserId ?? 0,
      advertiserName: c.advertiserId ? (owners.advertisers.get(c.advertiserId) ?? '') : '',
      flightStart: dayStart(c.startDate, tenant.timezone),
      flightEnd: c.endDate ? dayStart(c.endDate, tenant.timezone) + 24 * HOUR : Infinity,
      totalBudget: c.totalBudget,
      dailyBudget: c.dailyBudget,
      bidCpm: c.bidCpm,
      targeting: c.targetingId ? (targetings.get(c.targetingId) ?? null) : null,
      creatives: own,
    });
  }
  return out;
}
