import { type CampaignRow, isLive } from '@adplane/shared';
import { CampaignIndex } from '../targeting/campaignIndex.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners, ownersServe } from './accounts.js';
import { Kept, sameElements } from './kept.js';
import { type SnapCampaign, type SnapCreative } from './types.js';

const HOUR = 3_600_000;
/** One shared empty list: most campaigns name no deal and no supplier, and a book holds 100,000 of them. */
const NONE: number[] = [];

/**
 * What the edge reads of a stored campaign. The snapshot keeps this projection of each parsed row
 * between builds (parsedRows.ts), not the whole document: less than half the memory per campaign.
 */
export type CampaignFacts = Pick<
  CampaignRow,
  'id' | 'tenantId' | 'name' | 'status' | 'archived' | 'advertiserId' | 'startDate' | 'endDate' | 'totalBudget' | 'dailyBudget' | 'bidCpm' | 'targetingId' | 'creativeIds'
  | 'dealIds' | 'supplierIds' | 'pacing' | 'frequencyCap'
>;

export function campaignFacts(c: CampaignRow): CampaignFacts {
  return {
    id: c.id, tenantId: c.tenantId, name: c.name, status: c.status, archived: c.archived, advertiserId: c.advertiserId, startDate: c.startDate,
    endDate: c.endDate, totalBudget: c.totalBudget, dailyBudget: c.dailyBudget, bidCpm: c.bidCpm, targetingId: c.targetingId, creativeIds: c.creativeIds,
    dealIds: c.dealIds.length ? c.dealIds : NONE, supplierIds: c.supplierIds.length ? c.supplierIds : NONE,
    pacing: c.pacing, frequencyCap: c.frequencyCap,
  };
}

/** 00:00 UTC of each YYYY-MM-DD day met so far (a book has few distinct days). */
const utcDayStarts = new Map<string, number>();

/** 00:00 of a YYYY-MM-DD day in a zone `tz` hours east of UTC, as ms since the epoch (the day memoised, no key built per call). */
export function dayStart(date: string, tz: number): number {
  let ms = utcDayStarts.get(date);
  if (ms === undefined) {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number];
    ms = Date.UTC(y, m - 1, d);
    if (utcDayStarts.size > 100_000) utcDayStarts.clear();
    utcDayStarts.set(date, ms);
  }
  return ms - tz * HOUR;
}

/**
 * Live campaigns of live tenants with the DSP view and of live advertisers, with their live creatives. Flight days are whole
 * days in the tenant's time zone: a campaign runs from 00:00 of its start day to 24:00 of its end day.
 * A campaign without a creative that can serve, or whose flight is over, is left out (it could
 * never fill); one that ends while the snapshot lives is refused by the request's flight check.
 */
export function compileCampaigns(
  rows: readonly CampaignFacts[],
  owners: Owners,
  creatives: ReadonlyMap<number, SnapCreative>,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  now = Date.now(),
  kept = new Kept<CampaignFacts, SnapCampaign>(),
): Map<number, SnapCampaign> {
  const out = new Map<number, SnapCampaign>();
  for (const c of rows) {
    if (!isLive(c) || !ownersServe(owners, c.tenantId, { advertiserId: c.advertiserId })) continue;
    const tenant = owners.tenants.get(c.tenantId!)!;
    if (!tenant.showDsp) continue; // campaigns are DSP mode: a tenant without the DSP view does not buy
    const own = c.creativeIds.map((id) => creatives.get(id)).filter((x): x is SnapCreative => !!x && x.tenantId === c.tenantId);
    if (!own.length) continue;
    const flightEnd = c.endDate ? dayStart(c.endDate, tenant.timezone) + 24 * HOUR : Infinity;
    if (flightEnd <= now) continue; // over for good: requests need not look at it
    const advertiserName = c.advertiserId ? (owners.advertisers.get(c.advertiserId) ?? '') : '';
    const targeting = c.targetingId ? (targetings.get(c.targetingId) ?? null) : null;
    const flightStart = dayStart(c.startDate, tenant.timezone);
    // an unchanged campaign keeps its object when what it was made from is the same: its flight in
    // its tenant's zone, its advertiser's name, its compiled targeting and its creatives (kept.ts)
    const stillValid = (last: SnapCampaign) =>
      last.flightStart === flightStart && last.flightEnd === flightEnd && last.advertiserName === advertiserName && last.targeting === targeting && sameElements(last.creatives, own);
    const made = kept.take(c, stillValid, () => ({
      id: c.id,
      tenantId: c.tenantId!,
      name: c.name,
      advertiserId: c.advertiserId ?? 0,
      advertiserName,
      flightStart,
      flightEnd,
      totalBudget: c.totalBudget,
      dailyBudget: c.dailyBudget,
      pacing: c.pacing,
      frequencyCap: c.frequencyCap,
      bidCpm: c.bidCpm,
      targeting,
      creatives: own,
      dealIds: c.dealIds,
      supplierIds: c.supplierIds,
    }));
    out.set(c.id, made);
  }
  return out;
}

/**
 * Each tenant's live campaigns behind its targeting index, ranked by bid (highest first),
 * so that the campaign source stops scanning once it holds the best eligible bids.
 */
export function indexCampaigns(campaigns: Iterable<SnapCampaign>): Map<number, CampaignIndex<SnapCampaign>> {
  const byTenant = new Map<number, SnapCampaign[]>();
  for (const c of campaigns) {
    let list = byTenant.get(c.tenantId);
    if (!list) byTenant.set(c.tenantId, (list = []));
    list.push(c);
  }
  const out = new Map<number, CampaignIndex<SnapCampaign>>();
  for (const [tenantId, list] of byTenant) {
    // best bid first; a tie in a random order (see ROTATION_LIMIT in demand/campaignSource.ts): shuffled,
    // then sorted by bid alone (Array sort is stable, so a tie keeps the shuffle's order)
    shuffle(list);
    list.sort(byBidDescending);
    out.set(tenantId, new CampaignIndex(list, (c) => c.targeting));
  }
  return out;
}

const byBidDescending = (a: SnapCampaign, b: SnapCampaign): number => b.bidCpm - a.bidCpm;

/** Fisher-Yates, in place. */
function shuffle<T>(list: T[]): void {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const t = list[i]!;
    list[i] = list[j]!;
    list[j] = t;
  }
}
