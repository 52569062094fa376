import {
  type Approval,
  deliveryReason,
  type DeliveryState,
  type DeliveryStateKind,
  type Limit,
  isLive,
  type Switchable,
} from '@adplane/shared';
import { budgetSpent } from '../../delivery/pacing.js';
import { type Owners, ownerStopping } from './accounts.js';
import { OverlayMap } from './overlayMap.js';
import { type Sliced, SUPPLY_SLICE_ROWS } from './slices.js';
import {
  type SetAside,
  type SetAsideReason,
  type SnapCampaign,
  type SnapChannel,
  type Snapshot,
  type SnapSupplyDeal,
} from './types.js';

/**
 * Why rows do not serve, recorded by the snapshot compile itself (types.ts `SetAside`): each compile
 * function that leaves a row out (creatives.ts, campaigns.ts, tags.ts, programmatic.ts) or keeps a
 * channel that does not serve (channels.ts) records the row's reasons here, from the same predicates
 * it decided with (`isLive`, `ownerStopping`, the creative's approval, the DSP view, the flight), and
 * `recordUnreachedSupplySlices` and `recordUnreachedDemand` add what the compiled snapshot cannot reach. `deliveryStates` then answers for
 * rows by id, adding the rules of the moment: a flight not started or ended since the build (as the
 * campaign source and the deal match check it), and delivery control's counts (budgets spent, even
 * pacing ahead, a tag's daily caps).
 */
interface SetAsideMaps {
  campaigns: Map<number, SetAsideReason[]>;
  creatives: Map<number, SetAsideReason[]>;
  tags: Map<number, SetAsideReason[]>;
  channels: Map<number, SetAsideReason[]>;
  deals: Map<number, SetAsideReason[]>;
  supplydeals: Map<number, SetAsideReason[]>;
}

export function newSetAside(): SetAsideMaps {
  return {
    campaigns: new Map(),
    creatives: new Map(),
    tags: new Map(),
    channels: new Map(),
    deals: new Map(),
    supplydeals: new Map(),
  };
}

/** Adds a reason to a row's list. */
function add(map: Map<number, SetAsideReason[]>, id: number, reason: SetAsideReason): void {
  const list = map.get(id);
  if (list) list.push(reason);
  else map.set(id, [reason]);
}

/** Paused or archived (kinds/serving.ts `isLive`), as a reason. */
function switchReasons(row: Switchable): SetAsideReason[] {
  if (isLive(row)) return [];
  return [{ code: row.archived ? 'archived' : 'paused' }];
}

const OWNER_WORDS = { tenant: 'the demand account', advertiser: 'the advertiser', subpublisher: 'the subpublisher' };

/** The row's own switch and the owner that stops it (accounts.ts `ownerStopping`). */
export function rowReasons(
  row: Switchable,
  owners: Owners,
  tenantId: number | null,
  extra: { advertiserId?: number | null; subpublisherId?: number | null },
): SetAsideReason[] {
  const out = switchReasons(row);
  const stopping = ownerStopping(owners, tenantId, extra);
  if (stopping) out.push({ code: 'account_paused', detail: OWNER_WORDS[stopping] });
  return out;
}

/** A creative's reasons: its switch, its approval, its owners (creatives.ts serves the approved, live ones of live owners). */
export function creativeReasons(
  c: Switchable & { approval: Approval; tenantId: number | null; advertiserId: number | null },
  owners: Owners,
): SetAsideReason[] {
  const out = switchReasons(c);
  if (c.approval === 'pending') out.push({ code: 'creative_pending' });
  if (c.approval === 'rejected') out.push({ code: 'creative_rejected' });
  const stopping = ownerStopping(owners, c.tenantId, { advertiserId: c.advertiserId });
  if (stopping) out.push({ code: 'account_paused', detail: OWNER_WORDS[stopping] });
  return out;
}

/**
 * Why a campaign has no creative that can serve: the creatives it names that wait for approval or
 * were rejected (by name), else that none of them can serve (paused, archived, another account's).
 */
export function creativeGap(
  creativeIds: readonly number[],
  creativesAside: ReadonlyMap<number, readonly SetAsideReason[]>,
  nameOf: (id: number) => string | undefined,
): SetAsideReason[] {
  if (!creativeIds.length) return [{ code: 'no_creative', detail: 'it has no creative' }];
  const pending: string[] = [];
  const rejected: string[] = [];
  for (const id of creativeIds) {
    const why = creativesAside.get(id) ?? [];
    const name = nameOf(id) ?? `#${id}`;
    if (why.some((r) => r.code === 'creative_pending')) pending.push(name);
    if (why.some((r) => r.code === 'creative_rejected')) rejected.push(name);
  }
  const out: SetAsideReason[] = [];
  if (pending.length) out.push({ code: 'creative_pending', detail: pending.join(', ') });
  if (rejected.length) out.push({ code: 'creative_rejected', detail: rejected.join(', ') });
  if (!out.length) out.push({ code: 'no_creative' });
  return out;
}

/**
 * Limits of 0 admit nothing (delivery control refuses a campaign whose budget of 0 is spent, a tag
 * whose cap of 0 is reached): recorded for the compiled rows too, which stay in the snapshot.
 */
export function zeroBudgetReasons(c: { totalBudget: Limit; dailyBudget: Limit }): readonly SetAsideReason[] {
  if (c.totalBudget !== 0 && c.dailyBudget !== 0) return NONE;
  const out: SetAsideReason[] = [];
  if (c.totalBudget === 0) out.push({ code: 'budget_zero_total' });
  if (c.dailyBudget === 0) out.push({ code: 'budget_zero_daily' });
  return out;
}

export function zeroCapReasons(t: {
  qpsLimit: Limit;
  dailyRequestCap: Limit;
  dailyImpCap: Limit;
}): readonly SetAsideReason[] {
  if (t.qpsLimit !== 0 && t.dailyRequestCap !== 0 && t.dailyImpCap !== 0) return NONE;
  const zero: string[] = [];
  if (t.qpsLimit === 0) zero.push('QPS limit');
  if (t.dailyRequestCap === 0) zero.push('daily request cap');
  if (t.dailyImpCap === 0) zero.push('daily impression cap');
  return [{ code: 'cap_zero', detail: zero.join(', ') }];
}

/** No reason: most rows compile, and ask for nothing. */
const NONE: readonly SetAsideReason[] = [];

/** Records `reasons` for a row (nothing when empty). */
export function record(map: Map<number, SetAsideReason[]>, id: number, reasons: readonly SetAsideReason[]): void {
  for (const r of reasons) add(map, id, r);
}

/**
 * What the compiled supply cannot reach: a live tag no channel lists (or only channels that do not
 * serve), a channel with no live tag and no campaign of its account. Cut into slices of
 * SUPPLY_SLICE_ROWS channels, then tags (slices.ts).
 */
export function* recordUnreachedSupplySlices(
  into: Pick<SetAsideMaps, 'channels' | 'tags'>,
  snapshot: Pick<Snapshot, 'channels' | 'tags' | 'campaignIndex'>,
  tagRows: readonly { id: number }[],
): Sliced<void> {
  const listed = new Set<number>();
  const served = new Set<number>();
  let inSlice = 0;
  for (const ch of snapshot.channels.values()) {
    if (++inSlice > SUPPLY_SLICE_ROWS) {
      inSlice = 1;
      yield;
    }
    for (const d of ch.demand) {
      listed.add(d.tag.id);
      if (ch.serving) served.add(d.tag.id);
    }
    for (const idle of ch.idleTags) listed.add(idle.id);
    if (!ch.demand.length && !snapshot.campaignIndex.has(ch.tenantId))
      add(into.channels, ch.id, {
        code: 'no_demand',
        ...(ch.idleTags.length ? { detail: `its ${ch.idleTags.length} demand tag(s) do not serve` } : {}),
      });
  }
  for (const t of tagRows) {
    if (++inSlice > SUPPLY_SLICE_ROWS) {
      inSlice = 1;
      yield;
    }
    if (!listed.has(t.id)) add(into.tags, t.id, { code: 'no_channel' });
    else if (snapshot.tags.has(t.id) && !served.has(t.id)) add(into.tags, t.id, { code: 'channels_not_serving' });
  }
}

/**
 * What the compiled campaigns do not reach: a creative no compiled campaign uses, a deal no compiled
 * campaign buys through or whose account has no DSP view.
 */
export function recordUnreachedDemand(
  into: Pick<SetAsideMaps, 'creatives' | 'deals'>,
  snapshot: Pick<Snapshot, 'creatives' | 'deals' | 'tenants'>,
  uses: CampaignUses,
): void {
  const { used, bought } = uses;
  for (const id of snapshot.creatives.keys()) if (!used.has(id)) add(into.creatives, id, { code: 'no_campaign' });
  for (const [tenantId, byDealId] of snapshot.deals) {
    const buying = snapshot.tenants.get(tenantId)?.showDsp ?? false;
    for (const d of byDealId.values()) {
      if (!buying) add(into.deals, d.id, { code: 'no_dsp_view' });
      else if (!bought.has(d.id)) add(into.deals, d.id, { code: 'no_campaign' });
    }
  }
}

/**
 * The compiled campaigns assigned to channels none of which serves (paused, archived, their
 * subpublisher paused): no request ever meets them, and their delivery state says so
 * (`no_assigned_channel`). Their reasons are laid over the campaigns' record (`campaigns`, the
 * compile's), not copied into it: the channels change without the campaigns, and the next build
 * asks again. Only the campaigns that run on listed channels alone are looked at (`uses.included`).
 */
export function withUnservedAssignments(
  campaigns: ReadonlyMap<number, readonly SetAsideReason[]>,
  channels: ReadonlyMap<number, SnapChannel>,
  uses: CampaignUses,
): ReadonlyMap<number, readonly SetAsideReason[]> {
  const changes = new Map<number, readonly SetAsideReason[]>();
  for (const [id, ids] of uses.included)
    if (!ids.some((channelId) => channels.get(channelId)?.serving))
      changes.set(id, [...(campaigns.get(id) ?? []), { code: 'no_assigned_channel' }]);
  return changes.size ? OverlayMap.of(campaigns).with(changes) : campaigns;
}

/**
 * The creatives the compiled campaigns use and the deals they buy through, each with how many
 * campaigns do, and the campaigns that run only on the channels they list: a build that changes a
 * few campaigns takes theirs out and puts the new ones in, instead of reading every campaign again.
 */
export class CampaignUses {
  readonly used = new Map<number, number>();
  readonly bought = new Map<number, number>();
  /** The campaigns assigned to listed channels only ('include'), with those channels. */
  readonly included = new Map<number, readonly number[]>();

  constructor(campaigns: Iterable<SnapCampaign> = []) {
    for (const c of campaigns) this.add(c);
  }

  add(c: SnapCampaign): void {
    for (const cr of c.creatives) this.used.set(cr.id, (this.used.get(cr.id) ?? 0) + 1);
    for (const id of c.dealIds ?? []) this.bought.set(id, (this.bought.get(id) ?? 0) + 1);
    if (c.channels?.include) this.included.set(c.id, c.channels.ids);
  }

  remove(c: SnapCampaign): void {
    for (const cr of c.creatives) less(this.used, cr.id);
    for (const id of c.dealIds ?? []) less(this.bought, id);
    this.included.delete(c.id);
  }
}

function less(counts: Map<number, number>, id: number): void {
  const n = (counts.get(id) ?? 0) - 1;
  if (n > 0) counts.set(id, n);
  else counts.delete(id);
}

const HOUR_MS = 3_600_000;

/**
 * What delivery control counted of a campaign (its spend), of a tag (its day's calls and impressions)
 * and of a capped supply deal (its impressions over its life and today, answered with its state).
 */
export interface LiveCounts {
  campaigns: ReadonlyMap<number, { spentToday: number; totalSpent: number | null; pacedAhead: boolean }>;
  tags: ReadonlyMap<number, { requests: number; imps: number }>;
  deals?: ReadonlyMap<number, { imps: number; today: number }>;
}

/** Used up by what was counted (delivery control's rule); a limit of 0 is the compile's reason already. */
const reached = (limit: Limit, amount: number | null) => limit !== 0 && budgetSpent(limit, amount);

/**
 * The delivery state of rows by id at `now`: the snapshot's record, then the rules of the moment for
 * what it compiled. The caller asks for rows the store holds: one the snapshot neither compiled nor
 * set aside is one its typed parser could not read.
 */
export function deliveryStates(
  kind: DeliveryStateKind,
  ids: readonly number[],
  snapshot: Snapshot,
  live: LiveCounts,
  now: number,
): DeliveryState[] {
  const aside: SetAside[DeliveryStateKind] = snapshot.setAside?.[kind] ?? new Map();
  const supplyDeals = kind === 'supplydeals' ? supplyDealIndex(snapshot) : null;
  const dealsById = kind === 'deals' ? dealIndex(snapshot) : supplyDeals;
  const compiled: ReadonlyMap<number, unknown> =
    dealsById ?? snapshot[kind as Exclude<DeliveryStateKind, 'supplydeals'>];
  return ids.map((id) => {
    const reasons: SetAsideReason[] = [...(aside.get(id) ?? [])];
    // neither compiled nor set aside: the typed parser skipped the stored row (snapshot.skipped)
    if (!reasons.length && !compiled.has(id)) reasons.push({ code: 'unreadable' });
    if (kind === 'campaigns') {
      const c = snapshot.campaigns.get(id);
      if (c) reasons.push(...campaignNow(c, live, now));
    } else if (kind === 'tags') {
      const t = snapshot.tags.get(id);
      const counts = live.tags.get(id);
      if (t && counts && (reached(t.dailyImpCap, counts.imps) || reached(t.dailyRequestCap, counts.requests)))
        reasons.push({ code: 'daily_cap_reached' });
    } else if (dealsById) {
      const d = dealsById.get(id);
      // as the deal match reads its dates (doors/openrtbBidder/dealMatch.ts)
      if (d && now < d.start) reasons.push({ code: 'flight_not_started', detail: `starts ${isoDay(d.start)}` });
      if (d && now >= d.end) reasons.push({ code: 'flight_ended' });
      // a supply deal's impression caps, as delivery control counts them (decision/adDecision.ts dealsWithRoom)
      const s = supplyDeals?.get(id);
      const counts = live.deals?.get(id);
      if (s && counts && (reached(s.impCap, counts.imps) || reached(s.dailyImpCap, counts.today)))
        reasons.push({ code: reached(s.impCap, counts.imps) ? 'imp_cap_reached' : 'daily_cap_reached' });
    }
    const delivered = live.deals?.get(id);
    return {
      id,
      serving: reasons.length === 0,
      reasons: reasons.map((r) => deliveryReason(r.code, r.detail)),
      ...(delivered && { delivered: { imps: delivered.imps, today: delivered.today } }),
    };
  });
}

/** A compiled campaign's rules of the moment: its flight as the campaign source checks it, its spend and pace. */
function campaignNow(c: SnapCampaign, live: LiveCounts, now: number): SetAsideReason[] {
  const out: SetAsideReason[] = [];
  // the campaign source's flight check (demand/campaignSource.ts `eligible`)
  if (now < c.flightStartHour * HOUR_MS)
    out.push({
      code: 'flight_not_started',
      detail: `starts ${isoDay(c.flightStartHour * HOUR_MS + c.timezone * HOUR_MS)}`,
    });
  if (now >= c.flightEndHour * HOUR_MS) out.push({ code: 'flight_ended' });
  const spend = live.campaigns.get(c.id);
  if (spend) {
    if (reached(c.totalBudget, spend.totalSpent)) out.push({ code: 'budget_spent_total' });
    if (reached(c.dailyBudget, spend.spentToday)) out.push({ code: 'budget_spent_daily' });
    else if (spend.pacedAhead) out.push({ code: 'paced_ahead' });
  }
  return out;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The compiled supply deals by id (each is compiled onto every channel it covers). */
function supplyDealIndex(snapshot: Snapshot): Map<number, SnapSupplyDeal> {
  const out = new Map<number, SnapSupplyDeal>();
  for (const list of snapshot.supplyDeals?.values() ?? []) for (const d of list) out.set(d.id, d);
  return out;
}

function dealIndex(snapshot: Snapshot) {
  const out = new Map<number, { start: number; end: number }>();
  for (const byDealId of snapshot.deals.values()) for (const d of byDealId.values()) out.set(d.id, d);
  return out;
}
