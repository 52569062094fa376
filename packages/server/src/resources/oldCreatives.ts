import { recordActivity } from '../store/activity.js';
import { inTransaction, type Store } from '../store/db.js';
import { existingIds, getEntity, listAllEntities, referrersTo, setEntityArchived } from '../store/entities.js';
import { ENTITY_TABLES, type EntityTables, isEntityKind } from '../store/entityTables.js';
import { storedMs } from '../store/json.js';
import { userFromRow } from '../store/users.js';
import { STATS_TABLE, type StatsStore } from '../stats/statsStore.js';
import { toDto } from './entityService.js';

/** A creative unused this long (no impression, no edit) is old: the tenant's "Delete old creatives automatically". */
export const OLD_CREATIVE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The stats hour of `ms`: `YYYY-MM-DD HH:00:00` (UTC). */
const hourOf = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00:00`;

/** The demand accounts (tenants) that asked for their old creatives to go. */
async function tenantsArchivingOldCreatives(store: Store): Promise<number[]> {
  const owners = await store.db
    .selectFrom('users')
    .selectAll()
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null)
    .execute();
  return owners
    .map(userFromRow)
    .filter((u) => !u.archived && u.profile.delOldCreatives === 1)
    .map((u) => u.id);
}

/** Which of `ids` had an impression since `since` (epoch ms). */
async function creativesWithImpressions(stats: Pick<StatsStore, 'select'>, ids: number[], since: number) {
  const seen = new Set<number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const rows = await stats.select(
      `SELECT DISTINCT creative_id AS id FROM ${STATS_TABLE} WHERE creative_id IN (${chunk.join(', ')}) AND imps > 0 AND hour >= '${hourOf(since)}'`,
    );
    for (const r of rows) seen.add(Number(r.id));
  }
  return seen;
}

/** Whether a row that is not archived (a campaign, a creative list) refers to the creative. */
async function usedByLiveRow(store: Store, id: number): Promise<boolean> {
  const refs = await referrersTo(store.db, 'creatives', id);
  for (const kind of new Set(refs.map((r) => r.kind))) {
    if (!isEntityKind(kind)) continue;
    const ids = refs.filter((r) => r.kind === kind).map((r) => r.id);
    if ((await existingIds(store.db, kind, null, ids)).size) return true;
  }
  return false;
}

/**
 * Archives the old creatives of every tenant whose profile has "Delete old creatives automatically"
 * (`delOldCreatives`): a creative neither edited nor served an impression in the last
 * OLD_CREATIVE_DAYS days, which no live row (a campaign or creative list not archived) uses. Archived,
 * not deleted: its numbers and history stay, and it can be restored. Each one is logged in the
 * activity log as an archive by no user (the system). Archived creatives are not looked at again, so
 * running it twice archives nothing more. Answers the ids it archived.
 */
export async function archiveOldCreatives(
  store: Store,
  stats: Pick<StatsStore, 'select'>,
  now: number,
): Promise<number[]> {
  const cutoff = now - OLD_CREATIVE_DAYS * DAY_MS;
  const archived: number[] = [];
  for (const tenantId of await tenantsArchivingOldCreatives(store)) {
    const idle = (await listAllEntities(store.db, 'creatives', { tenantId })).filter(
      (c) => !c.archived && storedMs(c.updatedAt) < cutoff,
    );
    if (!idle.length) continue;
    const served = await creativesWithImpressions(
      stats,
      idle.map((c) => c.id),
      cutoff,
    );
    for (const creative of idle) {
      if (served.has(creative.id) || (await usedByLiveRow(store, creative.id))) continue;
      const done = await inTransaction(store.db, async (trx) => {
        const before = await getEntity(trx, 'creatives', { tenantId }, creative.id);
        // claims the row: another api process sweeping at once finds it archived and leaves it
        const claimed = await trx
          .withTables<EntityTables>()
          .updateTable(ENTITY_TABLES.creatives)
          .set({ archived: 1 })
          .where('id', '=', creative.id)
          .where('archived', '=', 0)
          .executeTakeFirst();
        if (!before || before.archived || Number(claimed.numUpdatedRows) !== 1) return false;
        const after = await setEntityArchived(trx, 'creatives', creative.id, true, null);
        await recordActivity(trx, {
          tenantId,
          userId: null,
          adminId: null,
          kind: 'creatives',
          entityId: creative.id,
          action: 'archive',
          before: toDto(before),
          after: toDto(after),
        });
        return true;
      });
      if (done) archived.push(creative.id);
    }
  }
  return archived;
}
