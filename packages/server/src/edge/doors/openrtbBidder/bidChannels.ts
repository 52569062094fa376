import { type BidRequest, type Imp } from '@adplane/shared';
import { type SnapChannel, type Snapshot, type SnapSupplier } from '../../snapshot/types.js';
import { type VastVersion } from '../../vast/vastVersion.js';
import { channelLayout } from '../../snapshot/channelLayout.js';
import { channelDemandFloor, demandFloor, supplierPayout } from './margins.js';

/**
 * The channel a supplier's impression is decided on. A supplier has no channel of its own, so each
 * of its impressions runs on a synthetic one: the supplier's tenant, channel id 0 (reports group it
 * by supplier), an auction at first price (we bid what the demand is worth; the supplier runs its
 * own auction), a payout of 100 - our margin, no demand tags (campaigns and the tenant's ad
 * exchanges are the demand of DSP mode), the ad categories the supplier's targeting blocks. One per
 * supplier, format, VAST version and environment, built once per snapshot; an impression with a
 * floor gets a copy with that floor.
 */
const SUPPLIER_CHANNEL_ID = 0;
/** The longest a supplier's impression may take when its request states no tmax (or a longer one). */
export const MAX_TMAX_MS = 1000;

const bySnapshot = new WeakMap<Snapshot, Map<string, SnapChannel>>();

export function environmentOf(request: BidRequest): SnapChannel['environment'] {
  const type = request.device?.devicetype;
  // AdCOM device types 3 (connected TV) and 7 (set-top box)
  if (type === 3 || type === 7) return 'ctv';
  return request.app ? 'app' : 'web';
}

export function supplierChannel(
  snapshot: Snapshot,
  supplier: SnapSupplier,
  format: SnapChannel['format'],
  vastVersion: VastVersion,
  environment: SnapChannel['environment'],
  supplierFloorCpm: number,
): SnapChannel {
  let cache = bySnapshot.get(snapshot);
  if (!cache) bySnapshot.set(snapshot, (cache = new Map()));
  const key = `${supplier.id}|${format}|${vastVersion}|${environment}`;
  let base = cache.get(key);
  if (!base) {
    base = channelLayout({
      id: SUPPLIER_CHANNEL_ID,
      uid: supplier.uid,
      tenantId: supplier.tenantId,
      subpublisherId: 0,
      name: `Supplier: ${supplier.name}`,
      serving: true,
      integration: 'RTB',
      environment,
      format,
      vastVersion,
      floorCpm: 0,
      payout: supplierPayout(supplier.marginPercent),
      demandMode: 'auction',
      auctionPrice: 'first',
      timeoutMs: MAX_TMAX_MS,
      targeting: null,
      demand: [],
      idleTags: [],
      // the supplier's targeting refused the request already (impBid.ts); its blocked ad categories refuse ads
      ...(supplier.categoryBlocks ? { categoryBlocks: supplier.categoryBlocks } : {}),
      // a supplier has no IVT option of its own: the tenant's apply
      ivt: snapshot.tenants.get(supplier.tenantId)?.ivt ?? 'off',
    });
    cache.set(key, base);
  }
  const floorCpm = demandFloor(supplierFloorCpm, supplier.marginPercent);
  return floorCpm > 0 ? { ...base, floorCpm } : base;
}

/** An RTB channel deciding a publisher SSP's impression: its floor raised to the caller's (in demand's money), in the VAST version the impression takes. */
export function rtbChannel(channel: SnapChannel, vastVersion: VastVersion | null, callerFloorCpm: number): SnapChannel {
  const floorCpm = Math.max(channel.floorCpm, channelDemandFloor(channel.payout, callerFloorCpm));
  const version = vastVersion ?? channel.vastVersion;
  return floorCpm === channel.floorCpm && version === channel.vastVersion
    ? channel
    : { ...channel, floorCpm, vastVersion: version };
}

/** The impression's media a target set up for `formats` takes: video first, then banner; null when neither (a multi-format impression's banner is tried after its video: impBid.ts multiFormatBid). */
export function formatOf(imp: Imp, formats: readonly SnapChannel['format'][]): SnapChannel['format'] | null {
  if (imp.video && formats.includes('video')) return 'video';
  if (imp.banner && formats.includes('display')) return 'display';
  return null;
}
