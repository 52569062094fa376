import { type Kysely } from 'kysely';
import { type AppConfig } from '@adplane/shared';
import { parseJson, toJson } from './json.js';
import { type Database } from './schema.js';
import { recordActivity } from './activity.js';
import { inTransaction } from './db.js';

type Db = Kysely<Database>;

/** Keys of the app_config table. */
export const CONFIG_KEYS = {
  postbidMaxImps: 'postbidMaxImps',
  postbidMaxReps: 'postbidMaxReps',
  sessionSecret: 'sessionSecret',
} as const;

export async function getConfigValue<T>(db: Db, key: string, fallback: T): Promise<T> {
  const row = await db.selectFrom('app_config').select('value').where('key', '=', key).executeTakeFirst();
  return row ? parseJson<T>(row.value, fallback) : fallback;
}

async function setConfigValue(db: Db, key: string, value: unknown): Promise<void> {
  await db
    .insertInto('app_config')
    .values({ key, value: toJson(value) })
    .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
}

/** Insert only when the key is absent (first writer wins, also across processes); returns the stored value. */
export async function setConfigValueOnce<T>(db: Db, key: string, value: T): Promise<T> {
  await db
    .insertInto('app_config')
    .values({ key, value: toJson(value) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return getConfigValue<T>(db, key, value);
}

const wholeOrZero = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);

export async function getAppConfig(db: Db): Promise<AppConfig> {
  return {
    postbidMaxImps: wholeOrZero(await getConfigValue<unknown>(db, CONFIG_KEYS.postbidMaxImps, 0)),
    postbidMaxReps: wholeOrZero(await getConfigValue<unknown>(db, CONFIG_KEYS.postbidMaxReps, 0)),
  };
}

/** Save the admin's Config modal, recording the change in the activity log in the same transaction. */
export async function saveAppConfig(
  db: Db,
  config: AppConfig,
  by: { userId: number; adminId: number | null },
): Promise<AppConfig> {
  return inTransaction(db, async (trx) => {
    const before = await getAppConfig(trx);
    await setConfigValue(trx, CONFIG_KEYS.postbidMaxImps, config.postbidMaxImps);
    await setConfigValue(trx, CONFIG_KEYS.postbidMaxReps, config.postbidMaxReps);
    const after = await getAppConfig(trx);
    await recordActivity(trx, {
      tenantId: null,
      userId: by.userId,
      adminId: by.adminId,
      kind: 'config',
      entityId: null,
      action: 'update',
      before,
      after,
    });
    return after;
  });
}
