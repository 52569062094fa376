import { type Kysely, sql } from 'kysely';
import { type Database } from './schema.js';

/**
 * The config version: a counter bumped in the transaction of every config write (see
 * `recordActivity`). The edge's snapshot compares it with the version it compiled.
 */
export async function bumpConfigVersion(db: Kysely<Database>): Promise<void> {
  await db.updateTable('config_version').set({ version: sql<number>`version + 1` }).where('id', '=', 1).execute();
}

export async function readConfigVersion(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('config_version').select('version').where('id', '=', 1).executeTakeFirst();
  return Number(row?.version ?? 0);
}
