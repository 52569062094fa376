import { type AdExchangeRow, type DealRow, isLive, type SupplierRow, type SupplyDealRow } from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners, ownersServe } from './accounts.js';
import { type CategoryBlocksCompiler } from './categoryBlocks.js';
import { record, rowReasons } from './setAside.js';
import {
  type SetAsideReason,
  type SnapAdExchange,
  type SnapChannel,
  type SnapDeal,
  type SnapSupplier,
  type SnapSupplyDeal,
} from './types.js';

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
      ...flightOf(d, owners.tenants.get(d.tenantId!)!.timezone),
    });
  }
  return out;
}

/** A deal's flight days in the tenant's whole-hour zone, as ms since the epoch: [start 00:00, end+1 00:00), open ends infinite. */
function flightOf(d: { startDate: string | null; endDate: string | null }, tz: number): { start: number; end: number } {
  const dayStart = (iso: string) => Date.parse(`${iso}T00:00:00Z`) - tz * 3_600_000;
  return {
    start: d.startDate ? dayStart(d.startDate) : -Infinity,
    end: d.endDate ? dayStart(d.endDate) + 86_400_000 : Infinity,
  };
}

const NO_SUPPLIERS: readonly number[] = [];

/**
 * Supply deals (SSP mode) by the channel they cover: each live deal under a live tenant goes to the
 * channels it lists, or to every channel of its tenant when it lists none, so that a request reads
 * its channel's few deals and never scans the tenant's (edge/demand/sellerDeals.ts picks those in
 * force). Its flight is whole days in the tenant's zone, as a DSP deal's. A deal left out (paused,
 * archived, its account stopped) or capped at 0 impressions is recorded in `setAside` with why.
 */
export function compileSupplyDeals(
  rows: readonly SupplyDealRow[],
  owners: Owners,
  targetings: ReadonlyMap<number, CompiledTargeting>,
  channels: ReadonlyMap<number, SnapChannel>,
  setAside?: Map<number, SetAsideReason[]>,
): Map<number, SnapSupplyDeal[]> {
  const out = new Map<number, SnapSupplyDeal[]>();
  let byTenant: Map<number, number[]> | undefined;
  const channelsOf = (tenantId: number): number[] => {
    if (!byTenant) {
      byTenant = new Map();
      for (const c of channels.values()) {
        const list = byTenant.get(c.tenantId);
        if (list) list.push(c.id);
        else byTenant.set(c.tenantId, [c.id]);
      }
    }
    return byTenant.get(tenantId) ?? [];
  };
  for (const d of rows) {
    if (!isLive(d) || d.tenantId === null || !ownersServe(owners, d.tenantId, {})) {
      if (setAside) record(setAside, d.id, rowReasons(d, owners, d.tenantId, {}));
      continue;
    }
    // (compiled all the same: delivery control refuses it on every request, as a cap reached)
    if (setAside && (d.impCap === 0 || d.dailyImpCap === 0)) record(setAside, d.id, [{ code: 'imp_cap_zero' }]);
    const timezone = owners.tenants.get(d.tenantId)!.timezone;
    const deal: SnapSupplyDeal = {
      id: d.id,
      tenantId: d.tenantId,
      name: d.name,
      dealId: d.dealId,
      floorCpm: d.floorCpm,
      auctionType: d.auctionType,
      buyerSeats: d.buyerSeats,
      supplierIds: NO_SUPPLIERS,
      ...flightOf(d, timezone),
      privateAuction: d.privateAuction,
      advertiserDomains: d.advertiserDomains,
      tagIds: d.tagIds,
      targeting: d.targetingId ? (targetings.get(d.targetingId) ?? null) : null,
      impCap: d.impCap,
      dailyImpCap: d.dailyImpCap,
      timezone,
    };
    let covered = false;
    for (const channelId of d.channelIds.length ? d.channelIds : channelsOf(d.tenantId)) {
      // (a channel of another tenant, or one that is gone, is not the deal's to sell)
      if (channels.get(channelId)?.tenantId !== d.tenantId) continue;
      covered = true;
      const list = out.get(channelId);
      if (list) list.push(deal);
      else out.set(channelId, [deal]);
    }
    if (!covered && setAside) record(setAside, d.id, [{ code: 'no_channel' }]);
  }
  return out;
}
