import { type Kysely } from 'kysely';
import { inTransaction } from './db.js';
import { nowIso } from './json.js';
import { type Database } from './schema.js';
import { deleteSessionsOfUser } from './sessions.js';

type Db = Kysely<Database>;

const iso = (ms: number) => new Date(ms).toISOString();

/** Record a reset link: `id` is the sha256 (hex) of its token. */
export async function insertPasswordReset(
  db: Db,
  reset: { id: string; userId: number; ip: string | null; nowMs: number; ttlMs: number },
): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({
      id: reset.id,
      user_id: reset.userId,
      ip: reset.ip,
      created_at: iso(reset.nowMs),
      expires_at: iso(reset.nowMs + reset.ttlMs),
      used_at: null,
    })
    .execute();
}

/**
 * Use the reset link `id` at `nowMs`: in one transaction, spend it (and every other open link of its
 * account), set the account's password hash and end all its sessions. Returns the account's id, or
 * null when the link is unknown, spent or expired; the spend is one conditional update, so of two
 * uses at once only one gets the account.
 */
export async function usePasswordReset(
  db: Db,
  id: string,
  nowMs: number,
  passwordHash: string,
): Promise<{ userId: number; sessionsEnded: number } | null> {
  const at = iso(nowMs);
  return inTransaction(db, async (trx) => {
    const spent = await trx
      .updateTable('password_resets')
      .set({ used_at: at })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .returning('user_id')
      .executeTakeFirst();
    if (!spent) return null;
    const userId = spent.user_id;
    await trx
      .updateTable('password_resets')
      .set({ used_at: at })
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
    await setPasswordHash(trx, userId, passwordHash);
    const sessionsEnded = await deleteSessionsOfUser(trx, userId);
    return { userId, sessionsEnded };
  });
}

/** Housekeeping: links spent or expired before `nowMs`. */
export async function deleteStalePasswordResets(db: Db, nowMs: number): Promise<number> {
  const at = iso(nowMs);
  const result = await db
    .deleteFrom('password_resets')
    .where((eb) => eb.or([eb('expires_at', '<=', at), eb('used_at', 'is not', null)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The stored password hash of an account (null when there is no such account). */
export async function passwordHashOf(db: Db, userId: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  return row?.password_hash ?? null;
}

async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: nowIso() })
    .where('id', '=', userId)
    .execute();
}

/**
 * A password change by the account itself: the new hash, and every session of the account but
 * `keepSessionId` (the one that changed it) ends, in one transaction. Returns how many ended.
 */
export async function changeOwnPassword(
  db: Db,
  userId: number,
  passwordHash: string,
  keepSessionId: string,
): Promise<number> {
  return inTransaction(db, async (trx) => {
    await setPasswordHash(trx, userId, passwordHash);
    const result = await trx
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id', '!=', keepSessionId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
