import { type ListAddition, type ListKind, RESOURCES } from '@adplane/shared';
import { HttpError, forbidden } from '../http/errors.js';
import { recordActivity } from '../store/activity.js';
import { inTransaction, type Store } from '../store/db.js';
import { type EntityRow, getEntity, updateEntity } from '../store/entities.js';
import { accessTo } from './access.js';
import { type Actor, prepareWrite, toDto, whyRefused } from './entityService.js';

/**
 * Entries added to allow/block lists (app, publisher and creative lists): the one write behind the
 * bulk "add to list" of selected creatives and of values seen in traffic. All or nothing: every list
 * is checked first (in the caller's scope, live, in the account of the entries), then each new
 * document is checked whole as a save would (its kind's rules, the entry limit); a refusal names the
 * list (`listIds.<index>`) and nothing is written. Then one transaction updates the lists that gain
 * entries, one activity entry each. Entries already in a list are not added twice.
 */
const listError = (status: number, index: number, message: string) =>
  new HttpError(status, `listIds.${index}: ${message}`, `listIds.${index}`);

/** The caller's scope over a list kind, when it may change those lists (else 403, before any input is read). */
export function listWriteAccess(kind: ListKind, actor: Actor) {
  const def = RESOURCES[kind];
  const access = accessTo(def, actor.user);
  if (access.level !== 'write')
    throw forbidden(access.level === 'read' ? `${def.plural} are read-only for you` : 'Forbidden');
  return access;
}

export interface ListAdd {
  kind: ListKind;
  listIds: readonly number[];
  /** The entries, already checked by the list kind's item rule. */
  items: readonly string[];
  /** The account the entries come from (the selected rows'); null: whichever account each list is in. */
  tenantId: number | null;
  /** Says where the entries come from in a refusal (`Creative 'x' (3)`). */
  source?: string;
}

/** Each list with what it gained, and the entries some list gained. */
export interface ListAddResult {
  lists: ListAddition[];
  gained: Set<string>;
}

export async function addToLists(store: Store, actor: Actor, add: ListAdd): Promise<ListAddResult> {
  const def = RESOURCES[add.kind];
  const access = listWriteAccess(add.kind, actor);

  const lists: EntityRow[] = [];
  for (const [i, id] of add.listIds.entries()) {
    const list = await getEntity(store.db, add.kind, access.scope, id);
    if (!list) throw listError(404, i, `${def.label} ${id} not found`);
    const named = `${def.label} '${list.name}' (${id})`;
    if (list.archived) throw listError(409, i, `${named} is archived: restore it first`);
    if (add.tenantId !== null && list.tenantId !== add.tenantId)
      throw listError(400, i, `${named} belongs to another account than ${add.source ?? 'the entries'}`);
    lists.push(list);
  }

  const changes: { list: EntityRow; write: Awaited<ReturnType<typeof prepareWrite>>; addition: ListAddition }[] = [];
  const additions: ListAddition[] = [];
  const gained = new Set<string>();
  for (const [i, list] of lists.entries()) {
    const before = Array.isArray(list.data.items) ? (list.data.items as string[]) : [];
    const body = { ...list.data, name: list.name, status: list.status, items: [...before, ...add.items] };
    let write;
    try {
      write = await prepareWrite(store.db, def, list.tenantId, body, list.id);
    } catch (error) {
      const why = whyRefused(error);
      if (why !== null) throw listError(400, i, `${def.label} '${list.name}' (${list.id}) cannot take them: ${why}`);
      throw error;
    }
    const total = Array.isArray(write.data.items) ? write.data.items.length : before.length;
    const addition = { id: list.id, name: list.name, added: total - before.length, total };
    additions.push(addition);
    if (addition.added > 0) changes.push({ list, write, addition });
    const had = new Set(before);
    for (const item of write.data.items as string[]) if (!had.has(item)) gained.add(item);
  }

  await inTransaction(store.db, async (trx) => {
    for (const { list, write } of changes) {
      const after = await updateEntity(trx, add.kind, list.id, write, actor.user.id);
      await recordActivity(trx, {
        tenantId: list.tenantId,
        userId: actor.user.id,
        adminId: actor.adminId,
        kind: add.kind,
        entityId: list.id,
        action: 'update',
        before: toDto(list),
        after: toDto(after),
      });
    }
  });
  return { lists: additions, gained };
}
