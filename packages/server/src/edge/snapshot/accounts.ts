import { compileFloorRules, isLive, subpublisherSellerId } from '@adplane/shared';
import { type AccountRow } from './loadRows.js';
import { type IvtMode, type SnapTenant } from './types.js';

/**
 * Accounts above the rows: tenants (demand accounts without a manager), subpublishers and advertisers.
 * An account that is paused or archived stops everything under it (kinds/serving.ts), so the
 * snapshot keeps only live ones and a row naming a missing owner does not serve.
 */
export interface Owners {
  tenants: Map<number, SnapTenant>;
  /** Live subpublishers and advertisers by id, with their names. */
  subpublishers: Map<number, string>;
  advertisers: Map<number, string>;
  /** Live subpublishers' seller ids (sellers.json entry id, else the account id: shared edge/supplyChain.ts). */
  sellerIds: Map<number, string>;
}

export function compileOwners(rows: readonly AccountRow[]): Owners {
  const owners: Owners = { tenants: new Map(), subpublishers: new Map(), advertisers: new Map(), sellerIds: new Map() };
  for (const r of rows) if (isLive(r)) addOwner(owners, r, r.showDsp);
  // A subpublisher or advertiser under a tenant that is not live does not serve either.
  for (const r of rows) {
    if (r.tenantId !== null && !owners.tenants.has(r.tenantId)) {
      if (r.type === 'sub') owners.subpublishers.delete(r.id);
      if (r.type === 'adv') owners.advertisers.delete(r.id);
    }
  }
  return owners;
}

/** An account as the owner of rows: a tenant (buying when `showDsp`), a subpublisher or an advertiser. */
function addOwner(owners: Owners, r: AccountRow, showDsp: boolean): void {
  if (r.type === 'demand' && r.managerId === null)
    owners.tenants.set(r.id, {
      id: r.id,
      name: r.name,
      timezone: r.timezone,
      showDsp,
      domain: r.domain,
      ivt: tenantIvtMode(r),
      ...(r.floorRules ? { floorRules: compileFloorRules(r.floorRules) } : {}),
    });
  else if (r.type === 'sub') {
    owners.subpublishers.set(r.id, r.name);
    owners.sellerIds.set(r.id, subpublisherSellerId(r.id, { id: r.sellerEntryId }));
  } else if (r.type === 'adv') owners.advertisers.set(r.id, r.name);
}

/**
 * The owners as a process running before any of them stopped knew them (snapshot/departed.ts): every
 * tenant (as buying, whatever its DSP view now), subpublisher and advertiser, live or not, and for
 * each one that no longer serves what is under it, when it stopped at the latest (its last change:
 * a pause, an archive, a tenant's DSP view turned off).
 */
export interface OwnersBefore {
  owners: Owners;
  /** Accounts paused or archived, by id: when at the latest. */
  stoppedAt: ReadonlyMap<number, number>;
  /** Live tenants without the DSP view (their campaigns do not serve), by id: since when at the latest. */
  notBuyingAt: ReadonlyMap<number, number>;
}

export function compileOwnersBefore(rows: readonly AccountRow[]): OwnersBefore {
  const owners: Owners = { tenants: new Map(), subpublishers: new Map(), advertisers: new Map(), sellerIds: new Map() };
  const stoppedAt = new Map<number, number>();
  const notBuyingAt = new Map<number, number>();
  for (const r of rows) {
    const tenant = r.type === 'demand' && r.managerId === null;
    if (!isLive(r)) stoppedAt.set(r.id, r.updatedAt);
    else if (tenant && !r.showDsp) notBuyingAt.set(r.id, r.updatedAt);
    addOwner(owners, r, true);
  }
  return { owners, stoppedAt, notBuyingAt };
}

/**
 * When the owners of a row (its tenant, its advertiser) stopped serving it, at the latest: the first
 * of them to stop; for a campaign (`buying`), its tenant's DSP view turned off too. Undefined when
 * none did (or none has a known time).
 */
export function ownersStoppedAt(
  before: OwnersBefore,
  tenantId: number | null,
  advertiserId: number | null,
  buying: boolean,
): number | undefined {
  let at: number | undefined;
  if (tenantId) at = earliest(at, before.stoppedAt.get(tenantId));
  if (tenantId && buying) at = earliest(at, before.notBuyingAt.get(tenantId));
  if (advertiserId) at = earliest(at, before.stoppedAt.get(advertiserId));
  return at;
}

/** The earlier of two moments, either of which may be unknown (undefined, or an unreadable stamp). */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return either(a, b, Math.min);
}

/** The later of two moments, either of which may be unknown. */
export function latest(a: number | undefined, b: number | undefined): number | undefined {
  return either(a, b, Math.max);
}

function either(
  a: number | undefined,
  b: number | undefined,
  pick: (x: number, y: number) => number,
): number | undefined {
  if (b === undefined || !Number.isFinite(b)) return a;
  return a === undefined || !Number.isFinite(a) ? b : pick(a, b);
}

/**
 * The account's IVT options in force (docs/traffic-quality.md). showCheckIVT is the admin's grant:
 * without it the console hides the two options and the user cannot change them, so stored values
 * wait, not in force, until it is granted again. blockIVT checks and blocks every channel's and
 * supplier's requests (blocking needs the check); setCheckIVTAll alone checks and counts them.
 */
export function tenantIvtMode(account: Pick<AccountRow, 'showCheckIVT' | 'setCheckIVTAll' | 'blockIVT'>): IvtMode {
  if (!account.showCheckIVT) return 'off';
  return account.blockIVT ? 'block' : account.setCheckIVTAll ? 'count' : 'off';
}

/** A channel's IVT check: its own blockIVT blocks whatever the account says; otherwise the account's options apply. */
export function channelIvtMode(tenant: SnapTenant | undefined, channelBlocks: boolean): IvtMode {
  return channelBlocks ? 'block' : (tenant?.ivt ?? 'off');
}

/** Whether a row's owners let it serve: a live tenant, and a live advertiser/subpublisher when it names one. */
export function ownersServe(
  owners: Owners,
  tenantId: number | null,
  extra: { advertiserId?: number | null; subpublisherId?: number | null },
): boolean {
  return ownerStopping(owners, tenantId, extra) === null;
}

/** Which of a row's owners stops it (the first that is not live: the tenant, then the advertiser, then the subpublisher), or null when they let it serve. */
export function ownerStopping(
  owners: Owners,
  tenantId: number | null,
  extra: { advertiserId?: number | null; subpublisherId?: number | null },
): 'tenant' | 'advertiser' | 'subpublisher' | null {
  if (tenantId === null || !owners.tenants.has(tenantId)) return 'tenant';
  if (extra.advertiserId && !owners.advertisers.has(extra.advertiserId)) return 'advertiser';
  if (extra.subpublisherId && !owners.subpublishers.has(extra.subpublisherId)) return 'subpublisher';
  return null;
}
