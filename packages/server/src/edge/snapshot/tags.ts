import { type DemandTagRow, isLive } from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { earliest, type Owners, type OwnersBefore, ownersServe, ownersStoppedAt } from './accounts.js';
import { record, rowReasons, zeroCapReasons } from './setAside.js';
import { type Sliced, SUPPLY_SLICE_ROWS } from './slices.js';
import { type LeftAt, type SetAsideReason, type SnapTag } from './types.js';

/**
 * Demand tags, live or not (a channel's trace names an idle tag); `live` says whether it may be called.
 * Why each idle one was left out goes into `setAside` (setAside.ts), and so does a live tag's cap of 0
 * (delivery control never calls it). Cut into slices of SUPPLY_SLICE_ROWS rows (slices.ts).
 */
export function* compileTagSlices(
  rows: readonly DemandTagRow[],
  owners: Owners,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  setAside?: Map<number, SetAsideReason[]>,
): Sliced<{ live: Map<number, SnapTag>; idle: Map<number, string> }> {
  const live = new Map<number, SnapTag>();
  const idle = new Map<number, string>();
  let inSlice = 0;
  for (const t of rows) {
    if (++inSlice > SUPPLY_SLICE_ROWS) {
      inSlice = 1;
      yield;
    }
    if (setAside) {
      if (!isLive(t) || !ownersServe(owners, t.tenantId, { advertiserId: t.advertiserId }))
        record(setAside, t.id, rowReasons(t, owners, t.tenantId, { advertiserId: t.advertiserId }));
      record(setAside, t.id, zeroCapReasons(t));
    }
    if (!isLive(t)) {
      idle.set(t.id, t.archived ? 'archived' : 'paused');
      continue;
    }
    if (!ownersServe(owners, t.tenantId, { advertiserId: t.advertiserId })) {
      idle.set(t.id, 'account_paused');
      continue;
    }
    live.set(t.id, snapTag(t, targetings));
  }
  return { live, idle };
}

/**
 * The demand tags a process starting now would have seen leave in the last `withinMs` had it been
 * running (snapshot/departed.ts), with that moment: paused or archived since (their row's updated_at,
 * from `updatedAt`), or their tenant or advertiser paused or archived since (the account's last
 * change, `before`); the first of these when there are several. Tags that have not served in that
 * time are not among them.
 */
export function compileLeftTags(
  rows: readonly DemandTagRow[],
  owners: Owners,
  before: OwnersBefore,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  updatedAt: (id: number) => number | undefined,
  now: number,
  withinMs: number,
): Map<number, LeftAt<SnapTag>> {
  const out = new Map<number, LeftAt<SnapTag>>();
  for (const t of rows) {
    const serving = ownersServe(owners, t.tenantId, { advertiserId: t.advertiserId });
    if (isLive(t) && serving) continue;
    if (!serving && !ownersServe(before.owners, t.tenantId, { advertiserId: t.advertiserId })) continue;
    let at = isLive(t) ? undefined : updatedAt(t.id);
    if (!serving) at = earliest(at, ownersStoppedAt(before, t.tenantId, t.advertiserId, false));
    if (at === undefined || !(now - at <= withinMs)) continue;
    out.set(t.id, { value: snapTag(t, targetings), at });
  }
  return out;
}

function snapTag(t: DemandTagRow, targetings: ReadonlyMap<number, CompiledTargeting>): SnapTag {
  return {
    id: t.id,
    tenantId: t.tenantId!,
    name: t.name,
    integration: t.integration,
    vastUrl: t.vastUrl,
    endpoint: t.endpoint,
    partner: t.partner,
    partnerParams: t.partnerParams,
    price: t.price,
    floorCpm: t.floorCpm,
    timeoutMs: t.timeoutMs,
    qpsLimit: t.qpsLimit,
    dailyRequestCap: t.dailyRequestCap,
    dailyImpCap: t.dailyImpCap,
    advertiserId: t.advertiserId ?? 0,
    targeting: t.targetingId ? (targetings.get(t.targetingId) ?? null) : null,
    userSyncUrl: t.userSyncUrl,
  };
}
