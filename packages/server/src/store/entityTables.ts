import { type ColumnType, type Generated } from 'kysely';
import { type ResourceKind } from '@adplane/shared';
import { type JsonText, type Timestamp } from './schema.js';

/** The table of each kind stored as an entity (accounts live in `users`). */
export const ENTITY_TABLES = {
  channels: 'supply_channels',
  tags: 'demand_tags',
  sups: 'suppliers',
  campaigns: 'campaigns',
  creatives: 'creatives',
  adexchanges: 'ad_exchanges',
  deals: 'deals',
  supplydeals: 'supply_deals',
  targetings: 'targetings',
  applists: 'app_lists',
  publists: 'publisher_lists',
  crelists: 'creative_lists',
  iplists: 'ip_lists',
  ivts: 'ivt_pixels',
  tooltips: 'tooltips',
  sdkapps: 'sdk_apps',
} as const satisfies Partial<Record<ResourceKind, string>>;

export type EntityKind = keyof typeof ENTITY_TABLES;
type EntityTableName = (typeof ENTITY_TABLES)[EntityKind];

export const isEntityKind = (kind: string): kind is EntityKind => Object.hasOwn(ENTITY_TABLES, kind);

export interface EntityTable {
  id: Generated<number>;
  tenant_id: number | null;
  uid: string | null;
  name: string;
  status: ColumnType<number, number | undefined, number>;
  archived: ColumnType<number, number | undefined, number>;
  archived_at: string | null;
  sub_id: number | null;
  adv_id: number | null;
  data: JsonText;
  created_by: number | null;
  updated_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface EntityRefsTable {
  from_kind: string;
  from_id: number;
  field: string;
  to_kind: string;
  to_id: number;
}

export type EntityTables = { [T in EntityTableName]: EntityTable } & { entity_refs: EntityRefsTable };
