import { type Kysely, type Selectable } from 'kysely';
import { type Database } from './schema.js';
import { storedMs } from './json.js';

type Db = Kysely<Database>;
type Row = Selectable<Database['api_keys']>;

/** An API key as stored: never the key itself, only its hash and visible prefix. */
export interface StoredApiKey {
  id: number;
  userId: number;
  tenantId: number | null;
  name: string;
  prefix: string;
  readOnly: boolean;
  /** ISO instants; null when never used or not revoked. */
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const isoOf = (v: unknown): string => new Date(storedMs(v)).toISOString();
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : isoOf(v));

function toKey(row: Row): StoredApiKey {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    tenantId: row.tenant_id === null ? null : Number(row.tenant_id),
    name: row.name,
    prefix: row.prefix,
    readOnly: Boolean(row.read_only),
    createdAt: isoOf(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    revokedAt: isoOrNull(row.revoked_at),
  };
}

export async function insertApiKey(
  db: Db,
  input: {
    userId: number;
    tenantId: number | null;
    name: string;
    secretHash: string;
    prefix: string;
    readOnly: boolean;
    at: string;
  },
): Promise<StoredApiKey> {
  const row = await db
    .insertInto('api_keys')
    .values({
      user_id: input.userId,
      tenant_id: input.tenantId,
      name: input.name,
      secret_hash: input.secretHash,
      prefix: input.prefix,
      read_only: input.readOnly ? 1 : 0,
      created_at: input.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toKey(row);
}

/** A user's keys, newest first, revoked ones included (the console shows them as revoked). */
export async function listApiKeys(db: Db, userId: number): Promise<StoredApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toKey);
}

/** The live (not revoked) key whose secret hashes to `secretHash`, or null. */
export async function findLiveApiKey(db: Db, secretHash: string): Promise<StoredApiKey | null> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('secret_hash', '=', secretHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? toKey(row) : null;
}

/** Revoke one of `userId`'s keys at `at`; false when it is not theirs, does not exist or was revoked already. */
export async function revokeApiKey(db: Db, userId: number, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchApiKey(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
