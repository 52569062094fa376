import { type FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import {
  type PostbidSetup,
  PostbidReportRequest,
  postbidReportRefusal,
  type ReportRequest,
  withPresetDates,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { postbackKey } from '../edge/doors/postback.js';
import { ensureTrackingKey } from '../edge/tracking/trackingKey.js';
import { TokenSigner } from '../edge/tracking/trackingToken.js';
import { forbidden, HttpError, parseInput } from '../http/errors.js';
import { getReport } from '../stats/queries/getReport.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { getAppConfig, getConfigValue } from '../store/appConfig.js';
import { type Database } from '../store/schema.js';
import { type User } from '../store/users.js';

/**
 * The postbid report (docs/reports.md, "Postbid Report"): `POST /api/pbrun` runs a report of the post-bid
 * metrics (the same engine and scope as /api/rrun), `GET /api/pbSetup` answers the month's
 * allowances and the account's postback URL. Saving one (POST /api/savedReports with `ivt: true`)
 * takes a place of the account's monthly allowance (the admin's postbidMaxReps) first:
 * `takePostbidReportPlace`.
 */
export function requirePostbidReports(user: User): void {
  const refusal = postbidReportRefusal(user);
  if (refusal) throw forbidden(refusal);
}

const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);
const counterKey = (tenantId: number, month: string) => `postbidReports.${tenantId}.${month}`;

function monthName(month: string): string {
  return new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** Postbid reports an account saved in a month (UTC); saves are counted, so deleting one does not give its place back. */
function postbidReportsSaved(db: Kysely<Database>, tenantId: number, now: number): Promise<number> {
  return getConfigValue<number>(db, counterKey(tenantId, monthOf(now)), 0);
}

/**
 * Takes one place of the account's monthly allowance, or refuses with a 429 saying when it resets.
 * The count is one row of app_config per account and month, raised by a single conditional UPDATE
 * (atomic on SQLite and PostgreSQL), so two saves at once cannot both take the last place. Run it
 * in the save's transaction: a failed save gives the place back.
 */
export async function takePostbidReportPlace(db: Kysely<Database>, user: User, now: number): Promise<void> {
  const tenantId = tenantIdOf(user);
  if (tenantId === null) return; // an admin's reports belong to no account
  const max = (await getAppConfig(db)).postbidMaxReps;
  const month = monthOf(now);
  const key = counterKey(tenantId, month);
  const raise = async () => {
    let update = db
      .updateTable('app_config')
      .set({ value: sql<string>`CAST(CAST(value AS INTEGER) + 1 AS TEXT)` })
      .where('key', '=', key);
    if (max > 0) update = update.where(sql<boolean>`CAST(value AS INTEGER) < ${max}`);
    return Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
  };
  if (await raise()) return;
  // no row yet this month: the first save creates it (unless the limit allows none), a racing one raises it
  const created = await db
    .insertInto('app_config')
    .values({ key, value: '1' })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(created.numInsertedOrUpdatedRows ?? 0) === 1) return;
  if (await raise()) return;
  const next = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
  throw new HttpError(
    429,
    `This account has saved its ${max} postbid report${max === 1 ? '' : 's'} for ${monthName(month)} (the monthly limit set by the admin). You can still run postbid reports; saving opens again on ${next} (UTC).`,
  );
}

let signerOf: { db: Kysely<Database>; signer: Promise<TokenSigner> } | null = null;
function signerFor(db: Kysely<Database>): Promise<TokenSigner> {
  if (signerOf?.db !== db) signerOf = { db, signer: ensureTrackingKey(db).then((key) => new TokenSigner(key)) };
  return signerOf.signer;
}

export async function pbReportRoutes(app: FastifyInstance): Promise<void> {
  app.post('/api/pbrun', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    requirePostbidReports(user);
    const report: ReportRequest = withPresetDates(parseInput(PostbidReportRequest, request.body), app.clock.now());
    return getReport(await reportContextOf(app, user, report), report);
  });

  app.get('/api/pbSetup', { config: { guard: 'auth' } }, async (request): Promise<PostbidSetup> => {
    const { user } = requireAuth(request);
    requirePostbidReports(user);
    const db = app.store.db;
    const config = await getAppConfig(db);
    const tenantId = tenantIdOf(user);
    const now = app.clock.now();
    return {
      month: monthOf(now),
      reportsSaved: tenantId === null ? 0 : await postbidReportsSaved(db, tenantId, now),
      maxReports: config.postbidMaxReps,
      maxImps: config.postbidMaxImps,
      postbackUrl:
        tenantId === null ? null : `${app.settings.publicHost}/pb/${postbackKey(await signerFor(db), tenantId)}`,
    };
  });
}
