import { type Kysely } from 'kysely';
import { SIGN_IN_LOG_DAYS, type SignInEntry } from '@adplane/shared';
import { type Database } from './schema.js';

type Db = Kysely<Database>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The oldest instant the log keeps at `nowMs`. */
const keptSince = (nowMs: number) => new Date(nowMs - SIGN_IN_LOG_DAYS * DAY_MS).toISOString();

/** The most rows one read returns (newest first). */
const MAX_ROWS = 200;

/**
 * Record one sign-in attempt or password event of `userId` at `nowMs` (the app's clock), and drop
 * that account's rows older than the log keeps, so an account's log never grows past 90 days.
 */
export async function recordSignIn(
  db: Db,
  userId: number,
  nowMs: number,
  entry: Omit<SignInEntry, 'at'>,
): Promise<void> {
  await db
    .insertInto('sign_in_log')
    .values({
      user_id: userId,
      at: new Date(nowMs).toISOString(),
      ip: entry.ip,
      user_agent: entry.userAgent?.slice(0, 512) ?? null,
      outcome: entry.outcome,
      reason: entry.reason,
    })
    .execute();
  await db.deleteFrom('sign_in_log').where('user_id', '=', userId).where('at', '<', keptSince(nowMs)).execute();
}

/** `userId`'s log within the last 90 days at `nowMs`, newest first, at most 200 rows. */
export async function listSignIns(db: Db, userId: number, nowMs: number): Promise<SignInEntry[]> {
  const rows = await db
    .selectFrom('sign_in_log')
    .select(['at', 'ip', 'user_agent', 'outcome', 'reason'])
    .where('user_id', '=', userId)
    .where('at', '>=', keptSince(nowMs))
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_ROWS)
    .execute();
  return rows.map((r) => ({
    at: new Date(r.at).toISOString(),
    ip: r.ip,
    userAgent: r.user_agent,
    outcome: r.outcome,
    reason: r.reason as SignInEntry['reason'],
  }));
}

/** Housekeeping: every account's rows older than 90 days at `nowMs`; returns how many went. */
export async function pruneSignInLog(db: Db, nowMs: number): Promise<number> {
  const result = await db.deleteFrom('sign_in_log').where('at', '<', keptSince(nowMs)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
