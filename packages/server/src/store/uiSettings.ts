import { type Kysely } from 'kysely';
import { type Database } from './schema.js';

type Db = Kysely<Database>;

export interface UiSettingsRecord {
  tabs: boolean;
}

/** The user's own console settings; defaults when never saved. */
export async function getUiSettings(db: Db, userId: number): Promise<UiSettingsRecord> {
  const row = await db.selectFrom('ui_settings').select('tabs').where('user_id', '=', userId).executeTakeFirst();
  return { tabs: row?.tabs === 1 };
}

export async function saveUiSettings(db: Db, userId: number, settings: UiSettingsRecord): Promise<UiSettingsRecord> {
  const tabs = settings.tabs ? 1 : 0;
  await db
    .insertInto('ui_settings')
    .values({ user_id: userId, tabs })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ tabs }))
    .execute();
  return getUiSettings(db, userId);
}
