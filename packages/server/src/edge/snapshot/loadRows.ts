import { type StoredRow } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { type Database } from '../../store/schema.js';
import { ENTITY_TABLES, type EntityKind, type EntityTables } from '../../store/entityTables.js';

/** An account row (tenant, subpublisher, advertiser) as the snapshot needs it. */
export interface AccountRow {
  id: number;
  type: string;
  name: string;
  status: number;
  archived: boolean;
  tenantId: number | null;
  managerId: number | null;
  timezone: number;
}

export type StoreDb = Kysely<Database>;

/** Every stored row of one kind (archived included: the snapshot decides what serves). */
export async function loadKind(db: StoreDb, kind: EntityKind): Promise<StoredRow[]> {
  const rows = await (db as unknown as Kysely<EntityTables>)
    .selectFrom(ENTITY_TABLES[kind])
    .select(['id', 'tenant_id', 'uid', 'name', 'status', 'archived', 'data'])
    .execute();
  return rows.map((r) => {
    let data: unknown = {};
    try {
      data = JSON.parse(r.data);
    } catch {
      data = null; // the typed parser skips and counts it
    }
    return { id: Number(r.id), tenantId: r.tenant_id === null ? null : Number(r.tenant_id), uid: r.uid, name: r.name, status: Number(r.status), archived: Number(r.archived) === 1, data };
  });
}

export async function loadAccounts(db: StoreDb): Promise<AccountRow[]> {
  const rows = await (db as unknown as Kysely<Database & { users: { archived: number } }>)
    .selectFrom('users')
    .select(['id', 'type', 'name', 'status', 'archived', 'tenant_id', 'manager_id', 'timezone'])
    .where('type', 'in', ['demand', 'sub', 'adv'])
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    name: r.name,
    status: Number(r.status),
    archived: Number(r.archived) === 1,
    tenantId: r.tenant_id === null ? null : Number(r.tenant_id),
    managerId: r.manager_id === null ? null : Number(r.manager_id),
    timezone: Number(r.timezone ?? 0),
  }));
}
