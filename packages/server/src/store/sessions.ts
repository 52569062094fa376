import { type Kysely } from 'kysely';
import { type Database } from './schema.js';

type Db = Kysely<Database>;

export interface SessionRecord {
  /** sha256 (hex) of the cookie token. */
  id: string;
  /** The acting user: the impersonated one while an admin impersonates. */
  userId: number;
  /** The admin behind an impersonation, else null. */
  adminId: number | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
}

export async function insertSession(db: Db, session: SessionRecord): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      admin_id: session.adminId,
      ip: session.ip,
      user_agent: session.userAgent,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      last_seen_at: session.lastSeenAt,
    })
    .execute();
}

/** The session with this id, unless it has expired by `now` (ISO). */
export async function findLiveSession(db: Db, id: string, now: string): Promise<SessionRecord | null> {
  const row = await db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    userId: row.user_id,
    adminId: row.admin_id,
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastSeenAt: row.last_seen_at,
  };
}

/** Sliding expiry: the session lives `ttl` past its last use. */
export async function touchSession(db: Db, id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
    .where('id', '=', id)
    .execute();
}

/** Start or end an impersonation: the session now acts as `userId`, on behalf of `adminId`. */
export async function setSessionActor(db: Db, id: string, userId: number, adminId: number | null): Promise<void> {
  await db.updateTable('sessions').set({ user_id: userId, admin_id: adminId }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Housekeeping; returns how many expired sessions were removed. */
export async function deleteExpiredSessions(db: Db, now: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Sign an account out everywhere (its password changed, it was archived): its own sessions and the
 * impersonations acting as it. Returns how many sessions ended.
 */
export async function deleteSessionsOfUser(db: Db, userId: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
