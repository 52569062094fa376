import { z } from 'zod';
import { requiredText } from './common.js';

/** Keys a user may hold at once, live and revoked together (a key is never deleted, only revoked). */
export const API_KEYS_MAX = 50;
/** Every key starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = 'adp_';

/** One API key as `GET /api/apiKeys` lists it: never the key itself. */
export const ApiKey = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The key's first characters, e.g. `adp_Xy12ab3c`: enough to tell keys apart, too few to use. */
  prefix: z.string(),
  /** A read-only key may only GET. */
  readOnly: z.boolean(),
  /** ISO instants. */
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyList = z.object({ keys: z.array(ApiKey) });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

/** `POST /api/apiKeys`. */
export const CreateApiKeyInput = z.object({
  name: requiredText(100),
  readOnly: z.boolean().default(false),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

/** The answer of `POST /api/apiKeys`: the key, this once; the server keeps only its hash. */
export const CreatedApiKey = z.object({ apiKey: ApiKey, key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const ApiKeyIdParams = z.object({ id: z.coerce.number().int().positive('must be an API key id') });
