/**
 * Numbered migrations of the config store, applied in order at every start (`migrateToLatest`).
 *
 * To add one (e.g. inventory entities):
 *   1. create `000N_what_it_adds.ts` exporting `(dialect: Dialect) => Migration`, built with the
 *      portable helpers of `./columns.ts` (idColumn, timestamps, MONEY_TYPE, JSON_TYPE, FLAG_TYPE...);
 *   2. add it below under the same name. The name is the order: never rename or edit a migration
 *      that has shipped; write a new one instead;
 *   3. add its tables to `../schema.ts` and a repository per table under `src/store/`.
 * The same migration runs on SQLite and PostgreSQL, so branch on `dialect` only for column types.
 */
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import { type Dialect, type Store } from '../db.js';
import { foundation } from './0001_foundation.js';
import { inventory } from './0002_inventory.js';
import { listIndexes } from './0003_list_indexes.js';
import { configVersion } from './0004_config_version.js';
import { explicitUnits } from './0006_explicit_units.js';
import { savedReports } from './0007_saved_reports.js';
import { updatedAtIndexes } from './0010_updated_at_indexes.js';
import { subpublisherPayoutFiles } from './0011_subpublisher_payout_files.js';
import { tenantShowsOtherSide } from './0012_tenant_shows_other_side.js';
import { apiKeys } from './0013_api_keys.js';
import { passwordResetsSignInLog } from './0014_password_resets_sign_in_log.js';
import { alerts } from './0016_alerts.js';
import { outboxReportSchedules } from './0015_outbox_report_schedules.js';
import { twoFactor } from './0017_two_factor.js';
import { ipLists } from './0021_ip_lists.js';
import { dynamicFloors } from './0019_dynamic_floors.js';
import { supplyDeals } from './0018_supply_deals.js';
import { campaignChannelScope } from './0022_campaign_channel_scope.js';

export const MIGRATIONS: Record<string, (dialect: Dialect) => Migration> = {
  '0001_foundation': foundation,
  '0002_inventory': inventory,
  '0003_list_indexes': listIndexes,
  '0004_config_version': configVersion,
  '0006_explicit_units': explicitUnits,
  '0007_saved_reports': savedReports,
  '0010_updated_at_indexes': updatedAtIndexes,
  '0011_subpublisher_payout_files': subpublisherPayoutFiles,
  '0012_tenant_shows_other_side': tenantShowsOtherSide,
  '0013_api_keys': apiKeys,
  '0014_password_resets_sign_in_log': passwordResetsSignInLog,
  '0016_alerts': alerts,
  '0015_outbox_report_schedules': outboxReportSchedules,
  '0017_two_factor': twoFactor,
  '0021_ip_lists': ipLists,
  '0019_dynamic_floors': dynamicFloors,
  '0018_supply_deals': supplyDeals,
  '0022_campaign_channel_scope': campaignChannelScope,
};

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, build]) => [name, build(this.dialect)]));
  }
}

export function migratorOf(store: Store): Migrator {
  return new Migrator({
    db: store.db,
    provider: new StaticMigrationProvider(store.dialect),
    // Numbers are reserved per piece of work and can land out of order; each migration stands alone,
    // so a store that already ran a later one still takes an earlier one that arrives afterwards.
    allowUnorderedMigrations: true,
    // The migration tables live beside the data, also when a test uses its own PostgreSQL schema.
    ...(store.pgSchema ? { migrationTableSchema: store.pgSchema } : {}),
  });
}

class MigrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Apply every pending migration; throw, naming the failed one, when any fails. Returns the applied names. */
export async function migrateToLatest(store: Store): Promise<string[]> {
  const { error, results = [] } = await migratorOf(store).migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error : new Error(String(error));
    throw new MigrationError(`Migration ${failed?.migrationName ?? '(setup)'} failed: ${cause.message}`, { cause });
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
