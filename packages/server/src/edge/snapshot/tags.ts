import { type DemandTagRow, isLive } from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners, ownersServe } from './accounts.js';
import { type SnapTag } from './types.js';

/** Demand tags, live or not (a channel's trace names an idle tag); `live` says whether it may be called. */
export function compileTags(
  rows: readonly DemandTagRow[],
  owners: Owners,
  targetings: ReadonlyMap<number, CompiledTargeting>,
): { live: Map<number, SnapTag>; idle: Map<number, string> } {
  const live = new Map<number, SnapTag>();
  const idle = new Map<number, string>();
  for (const t of rows) {
    if (!isLive(t)) {
      idle.set(t.id, t.archived ? 'archived' : 'paused');
      continue;
    }
    if (!ownersServe(owners, t.tenantId, { advertiserId: t.advertiserId })) {
      idle.set(t.id, 'account_paused');
      continue;
    }
    live.set(t.id, {
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
    });
  }
  return { live, idle };
}
