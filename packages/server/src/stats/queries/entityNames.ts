import { type Kysely } from 'kysely';
import { type Database } from '../../store/schema.js';
import { ENTITY_TABLES, type EntityTables, isEntityKind } from '../../store/entityTables.js';

/** Account kinds (stored as users) that reports name. */
const ACCOUNT_KINDS = new Set(['subs', 'advs', 'demands']);

/** id -> name of the entities a report shows, from the config store; unknown ids are left out. */
export async function entityNames(
  db: Kysely<Database>,
  kind: string,
  ids: readonly number[],
): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (wanted.length === 0) return new Map();
  const out = new Map<number, string>();
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500);
    let rows: { id: number; name: string }[] = [];
    if (isEntityKind(kind)) {
      rows = await db
        .withTables<EntityTables>()
        .selectFrom(ENTITY_TABLES[kind])
        .select(['id', 'name'])
        .where('id', 'in', chunk)
        .execute();
    } else if (ACCOUNT_KINDS.has(kind)) {
      rows = await db.selectFrom('users').select(['id', 'name']).where('id', 'in', chunk).execute();
    }
    for (const r of rows) out.set(Number(r.id), r.name);
  }
  return out;
}
