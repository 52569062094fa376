import { type Approval } from './creatives.js';

/**
 * Serving rules the ad server applies to every compiled row, stated once:
 * - a row serves only when it is active (status 1) and not archived;
 * - and so are its tenant (the demand account), its advertiser and its subpublisher where it has one
 *   (pausing or archiving an account stops everything under it);
 * - a creative serves only once approved;
 * - a stored row the current schema rejects never reaches here: the typed parser skips and counts it.
 */
export interface Switchable {
  status: number;
  archived: boolean;
}

/** Active and not archived. */
export function isLive(row: Switchable): boolean {
  return row.status === 1 && !row.archived;
}

/** The accounts above a row; a missing advertiser or subpublisher (the row has none) does not block. */
export interface Owners {
  tenant: Switchable | null;
  advertiser?: Switchable | null;
  subpublisher?: Switchable | null;
}

/**
 * Whether a row serves given its owners. `tenant: null` (a tenant that no longer exists) blocks;
 * `advertiser`/`subpublisher` undefined means the row has none, null means the one it names is gone.
 */
export function servesWith(row: Switchable, owners: Owners): boolean {
  if (!isLive(row) || owners.tenant === null || !isLive(owners.tenant)) return false;
  for (const owner of [owners.advertiser, owners.subpublisher]) {
    if (owner === undefined) continue;
    if (owner === null || !isLive(owner)) return false;
  }
  return true;
}

/** A creative also needs approval. */
export function creativeServes(creative: Switchable & { approval: Approval }, owners: Owners): boolean {
  return creative.approval === 'approved' && servesWith(creative, owners);
}
