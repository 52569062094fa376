import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Settings } from '../settings.js';
import { CONFIG_KEYS, setConfigValueOnce } from './appConfig.js';
import { type Store } from './db.js';

export const SESSION_SECRET_FILE = 'session-secret';

/**
 * The secret that signs session cookies (and later edge tracking tokens). ADPLANE_SESSION_SECRET wins;
 * otherwise one is generated once and kept where the data lives (a 0600 file beside the SQLite file,
 * or the app_config table on PostgreSQL, shared by every node), so restarts keep sessions valid.
 */
export async function ensureSessionSecret(
  store: Store,
  settings: Pick<Settings, 'sessionSecret' | 'dataDir'>,
): Promise<string> {
  if (settings.sessionSecret) return settings.sessionSecret;
  const fresh = randomBytes(32).toString('base64url');
  if (store.dialect === 'postgres') return setConfigValueOnce(store.db, CONFIG_KEYS.sessionSecret, fresh);
  const file = join(settings.dataDir, SESSION_SECRET_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(file, `${fresh}\n`, { mode: 0o600 });
  return fresh;
}
