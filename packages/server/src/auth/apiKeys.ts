import { digestOfSecret, newSecretToken } from './secretTokens.js';
import { type FastifyRequest } from 'fastify';
import { type Kysely } from 'kysely';
import { API_KEY_PREFIX } from '@adplane/shared';
import { HttpError } from '../http/errors.js';
import { findLiveApiKey, touchApiKey } from '../store/apiKeys.js';
import { type Database } from '../store/schema.js';
import { canSignIn, findUserById, type User } from '../store/users.js';
import { type AuthContext } from './guards.js';
import { tenantIdOf } from './tenancy.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route an API key may not call: it manages keys, or acts on the console's session. */
    sessionOnly?: boolean;
  }
}

/** A key's last-used time is written at most this often, so a busy key does not write on every call. */
const TOUCH_EVERY_MS = 60_000;
/** Characters of the key shown in the console: the `adp_` mark and 8 of the random part. */
const VISIBLE_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What is stored of a key (secretTokens.ts). */
export const hashApiKey = digestOfSecret;

/** A new key: `adp_` and 32 random bytes in base64url; its hash and visible prefix are what is stored. */
export function newApiKey(): { key: string; secretHash: string; prefix: string } {
  const key = `${API_KEY_PREFIX}${newSecretToken()}`;
  return { key, secretHash: hashApiKey(key), prefix: key.slice(0, VISIBLE_PREFIX_LENGTH) };
}

/** The key of an `Authorization: Bearer <key>` header; null when the request has no Bearer header. */
export function bearerOf(request: Pick<FastifyRequest, 'headers'>): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(.*)$/i.exec(header.trim());
  return match ? match[1].trim() : null;
}

/**
 * Requests per key and minute, as a token bucket: a key holds up to `perMinute` requests and earns
 * them back evenly over the minute, so a burst is allowed once and a steady rate forever. In the
 * process's memory: with several processes each allows the rate (docs/security.md, "API keys").
 */
class ApiKeyRateLimit {
  private readonly buckets = new Map<number, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Take one request of key `id`: 0 when allowed, else the milliseconds until one is earned back. */
  take(id: number): number {
    const at = this.now();
    const bucket = this.buckets.get(id) ?? { tokens: this.perMinute, at };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (at - bucket.at) * this.perMs);
    bucket.at = at;
    this.buckets.set(id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.perMs);
  }
}

const unauthorized = () =>
  new HttpError(401, 'Invalid API key: it is unknown or revoked', undefined, { 'www-authenticate': 'Bearer' });

function tenantOrUndefined(user: User): number | null | undefined {
  try {
    return tenantIdOf(user);
  } catch {
    return undefined;
  }
}

export interface ApiKeyAuthOptions {
  db: Kysely<Database>;
  now: () => number;
  perMinute: number;
  onTouchFailed: (error: unknown) => void;
}

/**
 * The second way to a caller, beside the session cookie: `Authorization: Bearer <key>` gives the
 * same AuthContext as the key owner's own sign-in, so every guard and handler stays as it is.
 * Unknown or revoked keys, and keys of an account that may no longer sign in, get 401; over the rate
 * 429 with Retry-After; a read-only key 403 on anything but GET; any key 403 on a session-only route.
 */
export function createApiKeyAuth({ db, now, perMinute, onTouchFailed }: ApiKeyAuthOptions) {
  const limit = new ApiKeyRateLimit(perMinute, now);

  return async function resolve(request: FastifyRequest, key: string): Promise<AuthContext> {
    if (!key.startsWith(API_KEY_PREFIX) || key.length > 256) throw unauthorized();
    const stored = await findLiveApiKey(db, hashApiKey(key));
    if (!stored) throw unauthorized();
    const user = await findUserById(db, stored.userId);
    if (!user || !canSignIn(user) || tenantOrUndefined(user) !== stored.tenantId) throw unauthorized();
    const waitMs = limit.take(stored.id);
    if (waitMs > 0) {
      throw new HttpError(429, `Too many requests with this API key: at most ${perMinute} a minute`, undefined, {
        'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
      });
    }
    const config = request.routeOptions.config;
    if (config?.sessionOnly || config?.changesState)
      throw new HttpError(403, 'This route needs a console sign-in; an API key cannot call it');
    if (stored.readOnly && !SAFE_METHODS.has(request.method))
      throw new HttpError(403, 'This API key is read-only: it may only GET');
    const at = now();
    if (stored.lastUsedAt === null || at - Date.parse(stored.lastUsedAt) >= TOUCH_EVERY_MS) {
      // a failed stamp must not fail the caller's request
      await touchApiKey(db, stored.id, new Date(at).toISOString()).catch(onTouchFailed);
    }
    return { user, adminId: null, sessionId: '', apiKeyId: stored.id };
  };
}
