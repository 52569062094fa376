import { type Kysely, type Selectable } from 'kysely';
import { parseJson, toJson } from './json.js';
import { type Database } from './schema.js';

type Db = Kysely<Database>;
type Row = Selectable<Database['deliveries']>;

export type DeliveryKind = 'email' | 'webhook';
type DeliveryStatus = 'pending' | 'sending' | 'sent' | 'failed';

/** One row of the outbox as its repository reads it (instants as ISO text). */
export interface StoredDelivery {
  id: number;
  tenantId: number | null;
  userId: number | null;
  kind: DeliveryKind;
  /** An e-mail's addresses, or a webhook's URL. */
  target: string[] | string;
  payload: unknown;
  source: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  nextAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

const toDelivery = (row: Row): StoredDelivery => ({
  id: Number(row.id),
  tenantId: row.tenant_id === null ? null : Number(row.tenant_id),
  userId: row.user_id === null ? null : Number(row.user_id),
  kind: row.kind,
  target: parseJson<string[] | string>(row.target, ''),
  payload: parseJson<unknown>(row.payload, null),
  source: row.source,
  status: row.status,
  attempts: Number(row.attempts),
  maxAttempts: Number(row.max_attempts),
  nextAt: row.next_at,
  lastError: row.last_error,
  createdAt: row.created_at,
  sentAt: row.sent_at,
});

export async function insertDelivery(
  db: Db,
  input: {
    tenantId: number | null;
    userId: number | null;
    kind: DeliveryKind;
    target: string[] | string;
    payload: unknown;
    source: string;
    maxAttempts: number;
    at: string;
  },
): Promise<StoredDelivery> {
  const row = await db
    .insertInto('deliveries')
    .values({
      tenant_id: input.tenantId,
      user_id: input.userId,
      kind: input.kind,
      target: toJson(input.target),
      payload: toJson(input.payload),
      source: input.source,
      status: 'pending',
      attempts: 0,
      max_attempts: input.maxAttempts,
      next_at: input.at,
      created_at: input.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDelivery(row);
}

/**
 * Ids of rows to send at `at`: pending ones whose time has come, and ones a process claimed but
 * whose claim ran out (that process stopped while sending), oldest first.
 */
export async function dueDeliveryIds(db: Db, at: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('deliveries')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_at', '<=', at)]),
        eb.and([eb('status', '=', 'sending'), eb('claimed_until', '<=', at)]),
      ]),
    )
    .orderBy('next_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claim row `id` for the process holding `token` until `until`: one conditional update, so of two
 * processes claiming the same row at once (SQLite or PostgreSQL) exactly one gets it; the other gets null.
 */
export async function claimDelivery(
  db: Db,
  id: number,
  claim: { token: string; at: string; until: string },
): Promise<StoredDelivery | null> {
  const row = await db
    .updateTable('deliveries')
    .set({ status: 'sending', claim_token: claim.token, claimed_until: claim.until })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_at', '<=', claim.at)]),
        eb.and([eb('status', '=', 'sending'), eb('claimed_until', '<=', claim.at)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
  return row ? toDelivery(row) : null;
}

/** The outcome of one attempt by the claim `token` (a claim that ran out and was taken over writes nothing). */
export async function settleDelivery(
  db: Db,
  id: number,
  token: string,
  outcome:
    | { status: 'sent'; attempts: number; at: string }
    | { status: 'pending' | 'failed'; attempts: number; nextAt: string; error: string },
): Promise<boolean> {
  const result = await db
    .updateTable('deliveries')
    .set(
      outcome.status === 'sent'
        ? { status: 'sent', attempts: outcome.attempts, sent_at: outcome.at, last_error: null }
        : { status: outcome.status, attempts: outcome.attempts, next_at: outcome.nextAt, last_error: outcome.error },
    )
    .set({ claim_token: null, claimed_until: null })
    .where('id', '=', id)
    .where('claim_token', '=', token)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The rows of the given sources (e.g. `schedule:3`), newest first. */
export async function deliveriesOf(db: Db, sources: readonly string[], limit = 100): Promise<StoredDelivery[]> {
  if (sources.length === 0) return [];
  const rows = await db
    .selectFrom('deliveries')
    .selectAll()
    .where('source', 'in', sources)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toDelivery);
}

export async function getDelivery(db: Db, id: number): Promise<StoredDelivery | null> {
  const row = await db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toDelivery(row) : null;
}

/** Housekeeping: sent rows older than `before` (their attachments are the bulk of the table). */
export async function deleteSentDeliveries(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('deliveries')
    .where('status', '=', 'sent')
    .where('sent_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
