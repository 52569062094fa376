import { type Kysely } from 'kysely';
import { inTransaction } from './db.js';
import { type Database } from './schema.js';

type Db = Kysely<Database>;

/** An account's two-factor row: its sealed TOTP secret, and whether enrolment finished. */
export interface TwoFactorRecord {
  secretSealed: string;
  /** Null while enrolment waits for its first code. */
  enabledAt: string | null;
  /** The newest TOTP time step accepted, or null. */
  lastTimeStep: number | null;
}

export async function findTwoFactor(db: Db, userId: number): Promise<TwoFactorRecord | null> {
  const row = await db
    .selectFrom('two_factor')
    .select(['secret_enc', 'enabled_at', 'last_time_step'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    secretSealed: row.secret_enc,
    enabledAt: row.enabled_at === null ? null : new Date(row.enabled_at).toISOString(),
    lastTimeStep: row.last_time_step === null ? null : Number(row.last_time_step),
  };
}

/**
 * Begin (or begin again) an enrolment: the account's unconfirmed secret is replaced. False, and
 * nothing written, when two-factor sign-in is already on for the account.
 */
export async function beginEnrolment(db: Db, userId: number, secretSealed: string, nowMs: number): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const current = await trx
      .selectFrom('two_factor')
      .select('enabled_at')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (current?.enabled_at) return false;
    if (current) await trx.deleteFrom('two_factor').where('user_id', '=', userId).execute();
    await trx
      .insertInto('two_factor')
      .values({
        user_id: userId,
        secret_enc: secretSealed,
        enabled_at: null,
        last_time_step: null,
        created_at: new Date(nowMs).toISOString(),
      })
      .execute();
    return true;
  });
}

async function replaceCodes(trx: Db, userId: number, digests: string[]): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (digests.length)
    await trx
      .insertInto('recovery_codes')
      .values(digests.map((digest) => ({ user_id: userId, digest, used_at: null })))
      .execute();
}

/**
 * Finish an enrolment with the time step of the code that confirmed it, and the digests of the new
 * recovery codes, in one transaction. False when there was no enrolment waiting (another request
 * finished it first, or it was never begun).
 */
export async function finishEnrolment(
  db: Db,
  userId: number,
  timeStep: number,
  recoveryDigests: string[],
  nowMs: number,
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('two_factor')
      .set({ enabled_at: new Date(nowMs).toISOString(), last_time_step: timeStep })
      .where('user_id', '=', userId)
      .where('enabled_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await replaceCodes(trx, userId, recoveryDigests);
    return true;
  });
}

/**
 * Take the TOTP time step `timeStep` as used: true only when it is newer than every step taken
 * before, in one conditional update, so two requests with the same code cannot both pass.
 */
export async function takeTimeStep(db: Db, userId: number, timeStep: number): Promise<boolean> {
  const result = await db
    .updateTable('two_factor')
    .set({ last_time_step: timeStep })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .where((eb) => eb.or([eb('last_time_step', 'is', null), eb('last_time_step', '<', timeStep)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Spend the recovery code of digest `digest`: true only for an unused code of the account, once. */
export async function spendRecoveryCode(db: Db, userId: number, digest: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: new Date(nowMs).toISOString() })
    .where('user_id', '=', userId)
    .where('digest', '=', digest)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** New recovery codes for an account whose two-factor sign-in is on; the old ones stop working. False when it is off. */
export async function renewRecoveryCodes(db: Db, userId: number, digests: string[]): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const on = await trx
      .selectFrom('two_factor')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('enabled_at', 'is not', null)
      .executeTakeFirst();
    if (!on) return false;
    await replaceCodes(trx, userId, digests);
    return true;
  });
}

export async function unusedRecoveryCodes(db: Db, userId: number): Promise<number> {
  const { n } = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Turn two-factor sign-in off for an account (its secret and recovery codes go). Returns whether it had any. */
export async function removeTwoFactor(db: Db, userId: number): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    const result = await trx.deleteFrom('two_factor').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

/**
 * End the sessions of every user of tenant `tenantId` (the demand account among them) whose
 * two-factor sign-in is not on: when the tenant begins to require it, they sign in again and enrol.
 */
export async function endSessionsWithoutTwoFactor(db: Db, tenantId: number): Promise<number> {
  const users = await db
    .selectFrom('users')
    .select('id')
    .where((w) => w.or([w('tenant_id', '=', tenantId), w('id', '=', tenantId)]))
    .execute();
  if (!users.length) return 0;
  const result = await db
    .deleteFrom('sessions')
    .where(
      'user_id',
      'in',
      users.map((u) => Number(u.id)),
    )
    .where('user_id', 'not in', (eb) =>
      eb.selectFrom('two_factor').select('user_id').where('enabled_at', 'is not', null),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
