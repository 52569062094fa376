import { type ResourceKind } from '../kinds/kindDef.js';

/**
 * Where a row is used (GET {api}/:id/usedBy): the rows that reference it through their kinds'
 * declared references (`refs` in packages/shared/src/kinds), grouped by kind, only those the asking
 * user may see. A demand tag answers its channels, a targeting or list who uses it, a deal its campaigns.
 */
export interface UsedByItem {
  kind: ResourceKind;
  id: number;
  name: string;
  status: 0 | 1;
  archived: boolean;
  /** The referencing field(s), as named in errors (`targetingId`, `demand`, `rules.appLists`). */
  fields: string[];
}

export interface UsedByGroup {
  kind: ResourceKind;
  label: string;
  plural: string;
  items: UsedByItem[];
}
