import { duckdbDialect } from '../reportSql.js';
import { type StatsStore } from '../statsStore.js';
import { openDuckDbFile } from './duckdbFile.js';

/**
 * The embedded stats store in this thread (duckdbFile.ts) with the reports' dialect. The server
 * opens the file on its stats thread instead (statsStore.ts openStatsStore, statsThread.ts); this is
 * for tools and tests that keep it in the calling thread.
 */
export async function openDuckDbStore(dataDir: string, file: string, threads?: number): Promise<StatsStore> {
  return { ...(await openDuckDbFile(dataDir, file, threads)), dialect: duckdbDialect };
}
