import { referrersOf, RESOURCES, type ResourceDef, type UsedByGroup, type UsedByItem } from '@adplane/shared';
import { type Store } from '../store/db.js';
import { getEntities, referrersTo } from '../store/entities.js';
import { isEntityKind } from '../store/entityTables.js';
import { accessTo } from './access.js';
import { getAccountDto } from './accountService.js';
import { type Actor, getOne } from './entityService.js';

/** Kinds that other kinds reference (their drawers show "Used by"): from the registry's refs. */
export const isReferenced = (def: ResourceDef): boolean => referrersOf(def.kind).length > 0;

/**
 * The rows that use this one (GET {api}/:id/usedBy), from the reference index every save keeps
 * (entity_refs, written from each kind's declared `refs`), grouped by kind in registry order and by
 * name. The row itself must be visible to the caller (else 404, as its own GET); of the rows using
 * it, only those the caller may see are answered (an adv user sees its own campaigns, not the
 * tenant's), archived ones too, marked.
 */
export async function usedByOf(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<UsedByGroup[]> {
  if (def.storage === 'account') await getAccountDto(store, def, actor, id);
  else await getOne(store, def, actor, id);
  const refs = await referrersTo(store.db, def.kind, id);
  const fields = new Map<string, string[]>();
  for (const r of refs) fields.set(`${r.kind}:${r.id}`, [...(fields.get(`${r.kind}:${r.id}`) ?? []), r.field]);
  const groups: UsedByGroup[] = [];
  for (const kind of new Set(referrersOf(def.kind).map((r) => r.from.kind))) {
    const ids = [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
    const from = RESOURCES[kind];
    const access = accessTo(from, actor.user);
    if (!ids.length || !isEntityKind(kind) || access.level === 'none') continue;
    const rows = await getEntities(store.db, kind, access.scope, ids);
    if (!rows.length) continue;
    const items: UsedByItem[] = rows
      .map((r) => ({
        kind,
        id: r.id,
        name: r.name,
        status: r.status,
        archived: r.archived,
        fields: fields.get(`${kind}:${r.id}`) ?? [],
      }))
      .sort((a, b) => Number(a.archived) - Number(b.archived) || a.name.localeCompare(b.name) || a.id - b.id);
    groups.push({ kind, label: from.label, plural: from.plural, items });
  }
  return groups;
}
