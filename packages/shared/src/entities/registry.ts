import { demandsKind, managersKind, advsKind, subsKind } from '../kinds/accounts.js';
import { adexchangesKind } from '../kinds/adexchanges.js';
import { campaignsKind } from '../kinds/campaigns.js';
import { channelsKind } from '../kinds/channels.js';
import { creativesKind } from '../kinds/creatives.js';
import { dealsKind } from '../kinds/deals.js';
import { supplydealsKind } from '../kinds/supplyDeals.js';
import { ivtsKind } from '../kinds/ivts.js';
import { type ResourceDef, type ResourceKind, type ResourceRef } from '../kinds/kindDef.js';
import { applistsKind, crelistsKind, iplistsKind, publistsKind } from '../kinds/lists.js';
import { sdkappsKind } from '../kinds/sdkapps.js';
import { supsKind } from '../kinds/sups.js';
import { tagsKind } from '../kinds/tags.js';
import { targetingsKind } from '../kinds/targetings.js';
import { tooltipsKind } from '../kinds/tooltips.js';

export type { ResourceDef, ResourceKind, ResourceRef } from '../kinds/kindDef.js';

/**
 * Every kind of the product, each defined in its home under packages/shared/src/kinds (schema,
 * references, checks, list extras, typed parser). The server builds its routes and the generic CRUD
 * engine from these definitions, the console its list pages and forms. The order is the menu's.
 */
export const RESOURCES: Record<ResourceKind, ResourceDef> = {
  channels: channelsKind,
  subs: subsKind,
  tags: tagsKind,
  supplydeals: supplydealsKind,
  sups: supsKind,
  campaigns: campaignsKind,
  creatives: creativesKind,
  adexchanges: adexchangesKind,
  deals: dealsKind,
  advs: advsKind,
  targetings: targetingsKind,
  applists: applistsKind,
  publists: publistsKind,
  crelists: crelistsKind,
  iplists: iplistsKind,
  ivts: ivtsKind,
  managers: managersKind,
  demands: demandsKind,
  tooltips: tooltipsKind,
  sdkapps: sdkappsKind,
};

export const RESOURCE_KINDS = Object.keys(RESOURCES) as ResourceKind[];

/** Kinds that reference `kind`, with the field: what blocks a delete. */
export function referrersOf(kind: ResourceKind): { from: ResourceDef; ref: ResourceRef }[] {
  return RESOURCE_KINDS.flatMap((k) =>
    RESOURCES[k].refs.filter((r) => r.kind === kind).map((ref) => ({ from: RESOURCES[k], ref })),
  );
}
