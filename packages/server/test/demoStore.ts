import { loadSettings } from '../src/settings.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { seedIfEmpty } from '../src/store/seed.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * The demo workspace's accounts and inventory (not its traffic history: slow, and no test of the
 * command needs it) written into `dataDir`'s store, or the PostgreSQL database of `env.DATABASE_URL`,
 * migrated: what a test then starts the adplane command on (adplaneCommand.ts).
 */
export async function seedDemoStore(dataDir: string, env: Record<string, string> = {}): Promise<void> {
  const settings = loadSettings({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ADPLANE_DEMO: '1',
    ADPLANE_DEMO_PASSWORD: DEMO_PASSWORD,
    ...env,
  });
  const store = await openStore(settings);
  try {
    await migrateToLatest(store);
    await seedIfEmpty(store, settings);
  } finally {
    await store.close();
  }
}
