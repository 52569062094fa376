import { type CampaignRow, isLive } from '@adplane/shared';
import { createdAtMinute } from '../../delivery/pacing.js';
import { CampaignIndex } from '../targeting/campaignIndex.js';
import { channelAssignment } from '../targeting/channelAssignment.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { earliest, latest, type Owners, type OwnersBefore, ownersServe, ownersStoppedAt } from './accounts.js';
import { IdMap } from './idMap.js';
import { atOnce, SLICE_ROWS, type Sliced } from './slices.js';
import { Kept, type KeepsMade, sameElements } from './kept.js';
import { creativeGap, record, rowReasons, zeroBudgetReasons } from './setAside.js';
import { type LeftAt, OPEN_FLIGHT_END, type SetAsideReason, type SnapCampaign, type SnapCreative } from './types.js';

const HOUR = 3_600_000;
/** One shared empty list: most campaigns name no deal and no supplier, and a book holds 100,000 of them. */
const NONE: number[] = [];

/**
 * What the edge reads of a stored campaign. The snapshot keeps this projection of each parsed row
 * between builds (parsedRows.ts), not the whole document: less than half the memory per campaign.
 * `createdAtMinute` is the row's created_at (a column, not the document), in whole minutes since the
 * epoch: even pacing spreads the campaign's first day from then (delivery/pacing.ts paceWindow).
 */
export type CampaignFacts = Pick<
  CampaignRow,
  | 'id'
  | 'tenantId'
  | 'name'
  | 'status'
  | 'archived'
  | 'advertiserId'
  | 'startDate'
  | 'endDate'
  | 'totalBudget'
  | 'dailyBudget'
  | 'bidCpm'
  | 'targetingId'
  | 'creativeIds'
  | 'dealIds'
  | 'supplierIds'
  | 'pacing'
  | 'frequencyCap'
  | 'channelScope'
  | 'channelIds'
> & { createdAtMinute?: number };

/**
 * One array for each list of creative ids met (books repeat a few lists over many campaigns): each
 * campaign kept between builds would otherwise hold an array of its own, two objects for every full
 * collection to mark. Cleared when it grows past any book's variety.
 */
const idLists = new Map<string, number[]>();

function sharedIds(ids: number[]): number[] {
  if (!ids.length) return NONE;
  const key = ids.join(',');
  let shared = idLists.get(key);
  if (!shared) {
    if (idLists.size > 200_000) idLists.clear();
    idLists.set(key, (shared = ids));
  }
  return shared;
}

/** The facts of a parsed row; `createdAt` is the stored row's created_at (absent: its days are paced whole). */
export function campaignFacts(c: Omit<CampaignFacts, 'createdAtMinute'>, createdAt?: string): CampaignFacts {
  return {
    id: c.id,
    tenantId: c.tenantId,
    name: c.name,
    status: c.status,
    archived: c.archived,
    advertiserId: c.advertiserId,
    startDate: c.startDate,
    endDate: c.endDate,
    totalBudget: c.totalBudget,
    dailyBudget: c.dailyBudget,
    bidCpm: c.bidCpm,
    targetingId: c.targetingId,
    creativeIds: sharedIds(c.creativeIds),
    dealIds: c.dealIds.length ? c.dealIds : NONE,
    supplierIds: c.supplierIds.length ? c.supplierIds : NONE,
    pacing: c.pacing,
    frequencyCap: c.frequencyCap,
    channelScope: c.channelScope,
    channelIds: c.channelIds.length ? c.channelIds : NONE,
    createdAtMinute: createdAt === undefined ? undefined : createdAtMinute(createdAt),
  };
}

/** 00:00 UTC of each YYYY-MM-DD day met so far (a book has few distinct days). */
const utcDayStarts = new Map<string, number>();

/** 00:00 of a YYYY-MM-DD day in a zone `tz` hours east of UTC, as ms since the epoch (the day memoised, no key built per call). */
function dayStart(date: string, tz: number): number {
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
 * The hour since the epoch that starts at `ms` (a whole hour), as an int32: V8 keeps it in the
 * object as a small integer, where a division's result could make the field a boxed double.
 */
const hourOf = (ms: number): number => (ms / HOUR) | 0;

/**
 * Live campaigns of live tenants with the DSP view and of live advertisers, with their live creatives. Flight days are whole
 * days in the tenant's time zone: a campaign runs from 00:00 of its start day to 24:00 of its end day.
 * A campaign without a creative that can serve, or whose flight is over, is left out (it could
 * never fill); one that ends while the snapshot lives is refused by the request's flight check.
 * Why each campaign left out was, and a compiled one's budget of 0, go into `setAside` (setAside.ts).
 */
export function compileCampaigns(...args: Parameters<typeof compileCampaignSlices>): IdMap<SnapCampaign> {
  return atOnce(compileCampaignSlices(...args));
}

/** compileCampaigns cut into slices of SLICE_ROWS rows (slices.ts), as the snapshot compiler runs it. */
export function* compileCampaignSlices(
  rows: readonly CampaignFacts[],
  owners: Owners,
  creatives: ReadonlyMap<number, SnapCreative>,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  now: number,
  kept: KeepsMade<CampaignFacts, SnapCampaign> = new Kept<CampaignFacts, SnapCampaign>(),
  setAside?: CampaignsSetAside,
): Sliced<IdMap<SnapCampaign>> {
  // by id in typed arrays, not a Map's table (idMap.ts)
  const out = new IdMap<SnapCampaign>();
  const compiler = new CampaignCompiler(owners, creatives, targetings);
  let inSlice = 0;
  for (const c of rows) {
    if (++inSlice > SLICE_ROWS) {
      inSlice = 1;
      yield;
    }
    const parts = isLive(c) ? compiler.parts(c) : null;
    // over for good when its flight is: requests need not look at it
    if (!parts || !parts.creatives.length || parts.flightEndHour * HOUR <= now) {
      if (setAside) record(setAside.campaigns, c.id, compiler.reasons(c, now, setAside));
      continue;
    }
    if (setAside) record(setAside.campaigns, c.id, zeroBudgetReasons(c));
    // an unchanged campaign keeps its object when what it was made from is the same: its row, its
    // flight in its tenant's zone, its advertiser's name, its compiled targeting and its creatives (kept.ts)
    const stillValid = (last: SnapCampaign) =>
      madeFromRow(last, c) &&
      last.timezone === parts.timezone &&
      last.flightStartHour === parts.flightStartHour &&
      last.flightEndHour === parts.flightEndHour &&
      last.advertiserName === parts.advertiserName &&
      last.targeting === parts.targeting &&
      sameElements(last.creatives, parts.creatives);
    out.set(
      c.id,
      kept.take(c, stillValid, () => snapCampaign(c, parts)),
    );
  }
  kept.settle?.(out);
  return out;
}

/** Whether a compiled campaign holds what the row says (a row read again is another object: campaignBook.ts). */
function madeFromRow(last: SnapCampaign, c: CampaignFacts): boolean {
  const cap = c.frequencyCap ?? null;
  return (
    last.id === c.id &&
    last.tenantId === c.tenantId &&
    last.name === c.name &&
    last.advertiserId === (c.advertiserId ?? 0) &&
    last.totalBudget === c.totalBudget &&
    last.dailyBudget === c.dailyBudget &&
    last.pacing === (c.pacing ?? 'asap') &&
    (last.frequencyCap === cap ||
      (!!last.frequencyCap &&
        !!cap &&
        last.frequencyCap.count === cap.count &&
        last.frequencyCap.periodHours === cap.periodHours)) &&
    last.createdAtMinute === c.createdAtMinute &&
    last.bidCpm === c.bidCpm &&
    sameElements(last.dealIds ?? NONE, c.dealIds) &&
    sameElements(last.supplierIds ?? NONE, c.supplierIds) &&
    (last.channels ?? null) === channelAssignment(c.channelScope, c.channelIds)
  );
}

/**
 * The campaigns a process starting now would have seen leave in the last `withinMs` had it been
 * running (snapshot/departed.ts), each with when it left: paused or archived since (its row's
 * updated_at, from `updatedAt.campaign`), its tenant or advertiser paused or archived since (the
 * account's last change, `before`), its flight over since (its flight's end), or no creative of it
 * able to serve any more (archived, paused or refused since: the latest change of its row and of the
 * creatives it names, from `updatedAt.creative`, the moment its last one stopped at the latest); the
 * first of these when there are several. An impression decided by another process before they left
 * can still come, and books their spend. Campaigns that have not served in that time are not among them.
 */
export function compileLeftCampaigns(
  rows: readonly CampaignFacts[],
  owners: Owners,
  before: OwnersBefore,
  creatives: ReadonlyMap<number, SnapCreative>,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  updatedAt: RowStamps,
  now: number,
  withinMs: number,
): Map<number, LeftAt<SnapCampaign>> {
  const out = new Map<number, LeftAt<SnapCampaign>>();
  const compiler = new CampaignCompiler(owners, creatives, targetings);
  const compilerBefore = new CampaignCompiler(before.owners, creatives, targetings);
  for (const c of rows) {
    const serving = compiler.parts(c);
    const parts = serving ?? compilerBefore.parts(c);
    if (!parts) continue;
    // when it stopped, for each reason it did: the first of them
    let at = isLive(c) ? undefined : updatedAt.campaign(c.id);
    if (!serving) at = earliest(at, ownersStoppedAt(before, c.tenantId, c.advertiserId, true));
    else if (!parts.creatives.length) at = earliest(at, lastCreativeStoppedAt(c, updatedAt));
    const flightEnd = parts.flightEndHour * HOUR;
    if (flightEnd <= now) at = earliest(at, flightEnd);
    if (at === undefined || !(now - at <= withinMs)) continue;
    out.set(c.id, { value: snapCampaign(c, parts), at });
  }
  return out;
}

/** When stored rows last changed (ms since the epoch; undefined for a row the store does not hold). */
export interface RowStamps {
  campaign: (id: number) => number | undefined;
  creative: (id: number) => number | undefined;
}

/**
 * When a campaign whose owners serve was left with no creative able to serve, at the latest: the
 * last change of its row (its creatives unlinked) or of a creative it names (archived, paused or
 * refused). Undefined when none of them is stamped.
 */
function lastCreativeStoppedAt(c: CampaignFacts, updatedAt: RowStamps): number | undefined {
  let at = updatedAt.campaign(c.id);
  for (const id of c.creativeIds) at = latest(at, updatedAt.creative(id));
  return at;
}

/** Where compileCampaigns records why a campaign is set aside, with what it reads of the creatives' own record. */
interface CampaignsSetAside {
  campaigns: Map<number, SetAsideReason[]>;
  /** The creatives' reasons (compileCreatives' record) and their names. */
  creatives: ReadonlyMap<number, readonly SetAsideReason[]>;
  creativeName: (id: number) => string | undefined;
}

/** What a campaign's compiled object is made of besides its row: its owners', its tenant's zone, its targeting and its creatives. */
interface CampaignParts {
  timezone: number;
  flightStartHour: number;
  flightEndHour: number;
  advertiserName: string;
  targeting: CompiledTargeting | null;
  creatives: readonly SnapCreative[];
}

class CampaignCompiler {
  /** A tenant's campaigns naming the same creatives share one list of them (as they share the ids: sharedIds). */
  private readonly ownLists = new Map<number, Map<readonly number[], readonly SnapCreative[]>>();

  constructor(
    private readonly owners: Owners,
    private readonly creatives: ReadonlyMap<number, SnapCreative>,
    private readonly targetings: ReadonlyMap<number, CompiledTargeting>,
  ) {}

  /** The parts of a campaign whose accounts serve and whose tenant buys (the DSP view), else null. */
  parts(c: CampaignFacts): CampaignParts | null {
    const { owners } = this;
    if (!ownersServe(owners, c.tenantId, { advertiserId: c.advertiserId })) return null;
    const tenant = owners.tenants.get(c.tenantId!)!;
    if (!tenant.showDsp) return null; // campaigns are DSP mode: a tenant without the DSP view does not buy
    const own = this.ownCreatives(c);
    const timezone = tenant.timezone;
    return {
      timezone,
      flightStartHour: hourOf(dayStart(c.startDate, timezone)),
      flightEndHour: flightEndHour(c, timezone),
      advertiserName: c.advertiserId ? (owners.advertisers.get(c.advertiserId) ?? '') : '',
      targeting: c.targetingId ? (this.targetings.get(c.targetingId) ?? null) : null,
      creatives: own,
    };
  }

  /** The campaign's creatives that can serve: only the tenant's own (a tenant's campaigns naming the same ones share the list). */
  private ownCreatives(c: CampaignFacts): readonly SnapCreative[] {
    let tenantLists = this.ownLists.get(c.tenantId!);
    if (!tenantLists) this.ownLists.set(c.tenantId!, (tenantLists = new Map()));
    let own = tenantLists.get(c.creativeIds);
    if (!own) {
      own = c.creativeIds
        .map((id) => this.creatives.get(id))
        .filter((x): x is SnapCreative => !!x && x.tenantId === c.tenantId);
      tenantLists.set(c.creativeIds, own);
    }
    return own;
  }

  /**
   * Every reason a campaign is left out, by the rules `parts` and compileCampaigns apply: its switch,
   * its accounts, its tenant's DSP view, its creatives (those waiting for approval or rejected, by
   * name), its flight over at `now`, and a budget of 0.
   */
  reasons(c: CampaignFacts, now: number, aside: CampaignsSetAside): SetAsideReason[] {
    const out = rowReasons(c, this.owners, c.tenantId, { advertiserId: c.advertiserId });
    const tenant = c.tenantId === null ? undefined : this.owners.tenants.get(c.tenantId);
    if (tenant && !tenant.showDsp) out.push({ code: 'no_dsp_view' });
    if (!this.ownCreatives(c).length) out.push(...creativeGap(c.creativeIds, aside.creatives, aside.creativeName));
    if (tenant && flightEndHour(c, tenant.timezone) * HOUR <= now)
      out.push({ code: 'flight_ended', detail: `ended ${c.endDate}` });
    out.push(...zeroBudgetReasons(c));
    return out;
  }
}

/** The hour its flight ends: a day starts on a whole hour (the zone is whole hours), so the flight is kept in hours (types.ts). */
const flightEndHour = (c: CampaignFacts, timezone: number): number =>
  c.endDate ? hourOf(dayStart(c.endDate, timezone)) + 24 : OPEN_FLIGHT_END;

function snapCampaign(c: CampaignFacts, parts: CampaignParts): SnapCampaign {
  return {
    id: c.id,
    tenantId: c.tenantId!,
    name: c.name,
    advertiserId: c.advertiserId ?? 0,
    advertiserName: parts.advertiserName,
    flightStartHour: parts.flightStartHour,
    flightEndHour: parts.flightEndHour,
    timezone: parts.timezone,
    totalBudget: c.totalBudget,
    dailyBudget: c.dailyBudget,
    pacing: c.pacing ?? 'asap',
    frequencyCap: c.frequencyCap ?? null,
    // (of the row itself: a kept object is made from this same row, so it needs no check in stillValid)
    createdAtMinute: c.createdAtMinute,
    bidCpm: c.bidCpm,
    targeting: parts.targeting,
    creatives: parts.creatives,
    dealIds: c.dealIds,
    supplierIds: c.supplierIds,
    channels: channelAssignment(c.channelScope, c.channelIds),
  };
}

/**
 * Each tenant's live campaigns behind its targeting index, ranked by bid (highest first),
 * so that the campaign source stops scanning once it holds the best eligible bids.
 */
export function indexCampaigns(campaigns: Iterable<SnapCampaign>): Map<number, CampaignIndex<SnapCampaign>> {
  return atOnce(indexCampaignSlices(campaigns));
}

/** indexCampaigns cut into slices of whole tenants, about SLICE_ROWS campaigns each (slices.ts). */
export function* indexCampaignSlices(
  campaigns: Iterable<SnapCampaign>,
): Sliced<Map<number, CampaignIndex<SnapCampaign>>> {
  const byTenant = new Map<number, SnapCampaign[]>();
  for (const c of campaigns) {
    let list = byTenant.get(c.tenantId);
    if (!list) byTenant.set(c.tenantId, (list = []));
    list.push(c);
  }
  const out = new Map<number, CampaignIndex<SnapCampaign>>();
  let inSlice = 0;
  for (const [tenantId, list] of byTenant) {
    if (inSlice >= SLICE_ROWS) {
      inSlice = 0;
      yield;
    }
    inSlice += list.length;
    out.set(tenantId, tenantIndex(list));
  }
  return out;
}

/**
 * One tenant's index over `list` (reordered in place): best bid first; a tie in a random order (see
 * ROTATION_LIMIT in demand/campaignSource.ts): shuffled, then sorted by bid alone (Array sort is
 * stable, so a tie keeps the shuffle's order).
 */
export function tenantIndex(list: SnapCampaign[]): CampaignIndex<SnapCampaign> {
  shuffle(list);
  list.sort(byBidDescending);
  return new CampaignIndex(
    list,
    (c) => c.targeting,
    (c) => c.channels ?? null,
  );
}

/**
 * The first moment after `now` at which a row's flight ends (Infinity when none will): until then
 * `now` changes nothing compileCampaigns decides of these rows (which compile, which are set aside
 * with a flight over), so a build before it may keep what an earlier one made of them.
 */
export function nextFlightEnd(rows: Iterable<CampaignFacts>, owners: Owners, now: number): number {
  let next = Infinity;
  for (const c of rows) {
    if (!c.endDate || c.tenantId === null) continue;
    const tenant = owners.tenants.get(c.tenantId);
    if (!tenant) continue;
    const end = flightEndHour(c, tenant.timezone) * HOUR;
    if (end > now && end < next) next = end;
  }
  return next;
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
