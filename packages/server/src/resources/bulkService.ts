import {
  type BulkAction,
  type BulkAnswer,
  BulkInput,
  bulkActionsOf,
  LIST_OF_ROWS,
  ListAddInput,
  type ListAddAnswer,
  type ListKind,
  RESOURCES,
  type ResourceDef,
} from '@adplane/shared';
import { HttpError, badField, forbidden } from '../http/errors.js';
import { type AccountRow, getAccount, setAccountArchived, updateAccount } from '../store/accounts.js';
import { recordActivity } from '../store/activity.js';
import { inTransaction, type Store } from '../store/db.js';
import {
  type EntityRow,
  existingIds,
  getEntity,
  setEntityArchived,
  setEntityStatus,
  updateEntity,
} from '../store/entities.js';
import { type EntityKind, isEntityKind } from '../store/entityTables.js';
import { accessTo as entityAccess } from './access.js';
import { accessTo as accountAccess, accountDto } from './accountService.js';
import { addToLists, listWriteAccess } from './addToList.js';
import { type Actor, prepareWrite, toDto, usageOf, ValidationFailed } from './entityService.js';

/**
 * Bulk actions on selected rows (POST {api}/bulk): pause, activate, archive, restore, set the
 * targeting where the kind has one, and add to a list where a list holds the kind (creatives). All or nothing: every row is checked first, in the caller's
 * scope and as its own call would check it (an archived row is not edited, a row in use is not
 * archived); a refused row answers 4xx naming it (`ids.<index>`) and why, and nothing is written.
 * Then one transaction writes the changes and one activity entry per changed row. Rows already in
 * the asked state are left alone (no entry).
 */
const rowError = (status: number, index: number, message: string) =>
  new HttpError(status, `ids.${index}: ${message}`, `ids.${index}`);

function checkAction(def: ResourceDef, action: BulkAction): void {
  if (!bulkActionsOf(def).includes(action))
    throw badField('action', `'${action}' does not apply to ${def.plural.toLowerCase()}`);
}

export async function bulkChange(store: Store, def: ResourceDef, actor: Actor, body: unknown): Promise<BulkAnswer> {
  if (def.storage === 'account') return bulkAccounts(store, def, actor, body);
  if (!isEntityKind(def.kind)) throw forbidden();
  const kind: EntityKind = def.kind;
  const access = entityAccess(def, actor.user);
  if (access.level !== 'write')
    throw forbidden(access.level === 'read' ? `${def.plural} are read-only for you` : 'Forbidden');
  const input = BulkInput.parse(body ?? {});
  checkAction(def, input.action);

  const rows: EntityRow[] = [];
  for (const [i, id] of input.ids.entries()) {
    const row = await getEntity(store.db, kind, access.scope, id);
    if (!row) throw rowError(404, i, `${def.label} ${id} not found`);
    rows.push(row);
  }
  const named = (row: EntityRow) => `${def.label} '${row.name}' (${row.id})`;
  const changed: EntityRow[] = [];
  const unchanged: number[] = [];
  for (const [i, row] of rows.entries()) {
    const skip = (same: boolean) => (same ? unchanged.push(row.id) : changed.push(row));
    switch (input.action) {
      case 'pause':
      case 'activate':
        if (row.archived) throw rowError(409, i, `${named(row)} is archived: restore it first`);
        skip(row.status === (input.action === 'pause' ? 0 : 1));
        break;
      case 'archive': {
        if (row.archived) {
          skip(true);
          break;
        }
        const live = (await usageOf(store, def, actor, row.id)).filter((u) => !u.archived);
        if (live.length) {
          const users = live
            .slice(0, 3)
            .map((u) => `${u.label} '${u.name}'`)
            .join(', ');
          throw rowError(
            409,
            i,
            `${named(row)} is used by ${users}${live.length > 3 ? ` and ${live.length - 3} more` : ''}: remove it there first`,
          );
        }
        skip(false);
        break;
      }
      case 'restore':
        skip(!row.archived);
        break;
      case 'setTargeting': {
        if (row.archived) throw rowError(409, i, `${named(row)} is archived: restore it first`);
        const target = input.targetingId ?? null;
        if (target !== null && !(await existingIds(store.db, 'targetings', row.tenantId, [target])).has(target)) {
          throw badField(
            'targetingId',
            `${RESOURCES.targetings.label} ${target} does not exist or is archived in the account of ${named(row)}`,
          );
        }
        skip((row.data.targetingId ?? null) === target);
        break;
      }
      case 'addToList':
        if (row.archived) throw rowError(409, i, `${named(row)} is archived: restore it first`);
        if (row.tenantId !== rows[0]!.tenantId)
          throw rowError(
            400,
            i,
            `${named(row)} is in another account than the first row: add one account's rows at a time`,
          );
        break;
    }
  }
  if (input.action === 'addToList') return addRowsToLists(store, def, actor, rows, input.listIds ?? []);

  // Documents for a new targeting are checked whole before anything is written, as a save would.
  const writes = new Map<number, Awaited<ReturnType<typeof prepareWrite>>>();
  if (input.action === 'setTargeting') {
    for (const row of changed) {
      try {
        writes.set(
          row.id,
          await prepareWrite(
            store.db,
            def,
            row.tenantId,
            { ...row.data, name: row.name, status: row.status, targetingId: input.targetingId ?? null },
            row.id,
          ),
        );
      } catch (error) {
        const i = input.ids.indexOf(row.id);
        if (error instanceof ValidationFailed)
          throw rowError(400, i, `${named(row)} cannot be saved: ${error.message}`);
        throw error;
      }
    }
  }

  await inTransaction(store.db, async (trx) => {
    for (const row of changed) {
      let after: EntityRow;
      switch (input.action) {
        case 'pause':
        case 'activate':
          after = await setEntityStatus(trx, kind, row.id, input.action === 'pause' ? 0 : 1, actor.user.id);
          break;
        case 'archive':
        case 'restore':
          after = await setEntityArchived(trx, kind, row.id, input.action === 'archive', actor.user.id);
          break;
        case 'setTargeting':
          after = await updateEntity(trx, kind, row.id, writes.get(row.id)!, actor.user.id);
          break;
        case 'addToList':
          throw new Error('add to list writes the lists (addRowsToLists), not the rows');
      }
      await recordActivity(trx, {
        tenantId: row.tenantId,
        userId: actor.user.id,
        adminId: actor.adminId,
        kind,
        entityId: row.id,
        action: input.action === 'archive' || input.action === 'restore' ? input.action : 'update',
        before: toDto(row),
        after: toDto(after),
      });
    }
  });
  return { action: input.action, changed: changed.map((r) => r.id), unchanged };
}

/** Selected rows into lists of the kind that holds them (creatives: creative lists, by creative id). */
async function addRowsToLists(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  rows: EntityRow[],
  listIds: number[],
): Promise<BulkAnswer> {
  const kind = LIST_OF_ROWS[def.kind]!;
  const first = rows[0]!;
  const { lists, gained } = await addToLists(store, actor, {
    kind,
    listIds,
    items: rows.map((r) => String(r.id)),
    tenantId: first.tenantId,
    source:
      rows.length === 1 ? `${def.label} '${first.name}' (${first.id})` : `the selected ${def.plural.toLowerCase()}`,
  });
  const added = (r: EntityRow) => gained.has(String(r.id));
  return {
    action: 'addToList',
    changed: rows.filter(added).map((r) => r.id),
    unchanged: rows.filter((r) => !added(r)).map((r) => r.id),
    lists,
  };
}

/** Values seen in traffic into lists (POST {list api}/add): the list kind's own rule checks each value. */
export async function addValuesToLists(
  store: Store,
  kind: ListKind,
  actor: Actor,
  body: unknown,
): Promise<ListAddAnswer> {
  listWriteAccess(kind, actor);
  const input = ListAddInput(kind).parse(body ?? {});
  return {
    lists: (await addToLists(store, actor, { kind, listIds: input.listIds, items: input.items, tenantId: null })).lists,
  };
}

/** Subpublishers, advertisers and managers: pause, activate, archive and restore their accounts. */
async function bulkAccounts(store: Store, def: ResourceDef, actor: Actor, body: unknown): Promise<BulkAnswer> {
  const { filter } = accountAccess(def, actor);
  const input = BulkInput.parse(body ?? {});
  checkAction(def, input.action);
  const rows: AccountRow[] = [];
  for (const [i, id] of input.ids.entries()) {
    const row = await getAccount(store.db, filter, id);
    if (!row) throw rowError(404, i, `${def.label} ${id} not found`);
    if ((input.action === 'pause' || input.action === 'activate') && row.archived) {
      throw rowError(409, i, `${def.label} '${row.name}' (${id}) is archived: restore it first`);
    }
    rows.push(row);
  }
  const same = (row: AccountRow) =>
    input.action === 'pause'
      ? row.status === 0
      : input.action === 'activate'
        ? row.status !== 0
        : input.action === 'archive'
          ? row.archived
          : !row.archived;
  const changed = rows.filter((r) => !same(r));
  await inTransaction(store.db, async (trx) => {
    for (const row of changed) {
      if (input.action === 'pause' || input.action === 'activate')
        await updateAccount(trx, row.id, { status: input.action === 'pause' ? 0 : 1 });
      else await setAccountArchived(trx, row.id, input.action === 'archive');
      const after = (await getAccount(trx, filter, row.id))!;
      await recordActivity(trx, {
        tenantId: after.tenantId,
        userId: actor.user.id,
        adminId: actor.adminId,
        kind: def.kind,
        entityId: row.id,
        action: input.action === 'archive' || input.action === 'restore' ? input.action : 'update',
        before: accountDto(def, row),
        after: accountDto(def, after),
      });
    }
  });
  return { action: input.action, changed: changed.map((r) => r.id), unchanged: rows.filter(same).map((r) => r.id) };
}
