import { randomBytes } from 'node:crypto';
import { setConfigValueOnce } from '../../store/appConfig.js';
import { type StoreDb } from '../snapshot/loadRows.js';

/** Where the tracking HMAC key lives in the config store: every edge node of one store shares it. */
const TRACKING_KEY = 'edge.trackingKey';

/** The key, generated once per store (the first writer wins, so concurrent nodes agree). */
export function ensureTrackingKey(db: StoreDb): Promise<string> {
  return setConfigValueOnce(db, TRACKING_KEY, randomBytes(32).toString('base64url'));
}
