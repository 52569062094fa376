import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';

/** What the owner of a withdrawn file reads in the bell and on Saved Reports. */
const WITHDRAWN_FILE_ERROR =
  "it holds the tenant's revenue, which is not yours to see: run the report again (your revenue is your payout)";

/**
 * A subpublisher's revenue and eCPM are its payout (docs/reports.md, "Who sees which numbers"). A
 * report file is written once and its numbers stay as they were: the files of subpublisher users
 * with revenue or eCPM in them hold the tenant's gross, so they are marked failed and are no longer
 * handed out (deleting one removes it from the disk). Reports saved without a file run again under
 * the rule when opened and are left as they are.
 */
export const subpublisherPayoutFiles = (_dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await sql`UPDATE saved_reports SET status = 'failed', progress = 100, error = ${WITHDRAWN_FILE_ERROR}
      WHERE kind = 'file' AND status <> 'failed'
      AND user_id IN (SELECT id FROM users WHERE type = 'sub')
      AND (request LIKE '%"revenue"%' OR request LIKE '%"ecpm"%')`.execute(db);
  },
  async down() {
    // a withdrawn file stays withdrawn: its numbers are not the subpublisher's
  },
});
