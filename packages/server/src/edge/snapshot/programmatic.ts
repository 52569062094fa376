import { type AdExchangeRow, type DealRow, isLive, type SupplierRow } from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners, ownersServe } from './accounts.js';
import { type CategoryBlocksCompiler } from './categoryBlocks.js';
import { record, rowReasons } from './setAside.js';
import { type SetAsideReason, type SnapAdExchange, type SnapDeal, type SnapSupplier } from './types.js';

/**
 * DSP mode's trading partners: suppliers that send us bid requests (by uid, live or not, so a paused
 * supplier's request is a counted no-bid rather than an unknown one), the ad exchanges each tenant
 * buys from, and its deals by deal id. Only a tenant with the DSP view trades here.
 */
export function compileSuppliers(
  rows: readonly SupplierRow[],
  owners: Owners,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  blocks?: CategoryBlocksCompiler,
): Map<string, SnapSupplier> {
  const out = new Map<string, SnapSupplier>();
  for (const s of rows) {
    if (!s.uid || s.tenantId === null) continue;
    const targeting = s.targetingId ? (targetings.get(s.targetingId) ?? null) : null;
    const categoryBlocks = blocks?.of(s.tenantId, targeting);
    out.set(s.uid, {
      id: s.id,
      uid: s.uid,
      tenantId: s.tenantId,
      name: s.name,
      serving: isLive(s) && ownersServe(owners, s.tenantId, {}) && owners.tenants.get(s.tenantId)!.showDsp,
      qpsLimit: s.qpsLimit,
      marginPercent: s.marginPercent,
      formats: s.formats,
      targeting,
      ...(categoryBlocks ? { categoryBlocks } : {}),
      userSyncUrl: s.userSyncUrl,
    });
  }
  return out;
}

export function compileAdExchanges(
  rows: readonly AdExchangeRow[],
  owners: Owners,
  targetings: ReadonlyMap<number, CompiledTargeting>,
): Map<number, SnapAdExchange[]> {
  const out = new Map<number, SnapAdExchange[]>();
  for (const x of rows) {
    if (!isLive(x) || !ownersServe(owners, x.tenantId, {}) || !owners.tenants.get(x.tenantId!)!.showDsp) continue;
    const list = out.get(x.tenantId!) ?? [];
    list.push({
      id: x.id,
      tenantId: x.tenantId!,
      name: x.name,
      endpoint: x.endpoint,
      tmaxMs: x.tmaxMs,
      qpsLimit: x.qpsLimit,
      seat: x.seat,
      marginPercent: x.marginPercent,
      targeting: x.targetingId ? (targetings.get(x.targetingId) ?? null) : null,
    });
    out.set(x.tenantId!, list);
  }
  return out;
}

/**
 * Deals by tenant, then by deal id. Dates are whole days in the tenant's time zone: [start 00:00, end+1 00:00).
 * Why each deal left out was goes into `setAside` (setAside.ts).
 */
export function compileDeals(
  rows: readonly DealRow[],
  owners: Owners,
  setAside?: Map<number, SetAsideReason[]>,
): Map<number, Map<string, SnapDeal>> {
  const out = new Map<number, Map<string, SnapDeal>>();
  for (const d of rows) {
    if (!isLive(d) || !ownersServe(owners, d.tenantId, {})) {
      if (setAside) record(setAside, d.id, rowReasons(d, owners, d.tenantId, {}));
      continue;
    }
    const tz = owners.tenants.get(d.tenantId!)!.timezone;
    const dayStart = (iso: string) => Date.parse(`${iso}T00:00:00Z`) - tz * 3_600_000;
    let byId = out.get(d.tenantId!);
    if (!byId) out.set(d.tenantId!, (byId = new Map()));
    byId.set(d.dealId, {
      id: d.id,
      tenantId: d.tenantId!,
      name: d.name,
      dealId: d.dealId,
      floorCpm: d.floorCpm,
      auctionType: d.auctionType,
      buyerSeats: d.buyerSeats,
      supplierIds: d.supplierIds,
      start: d.startDate ? dayStart(d.startDate) : -Infinity,
      end: d.endDate ? dayStart(d.endDate) + 86_400_000 : Infinity,
    });
  }
  return out;
}
