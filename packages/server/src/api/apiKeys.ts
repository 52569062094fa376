import { type FastifyInstance } from 'fastify';
import { API_KEYS_MAX, type ApiKey, ApiKeyIdParams, CreateApiKeyInput, type CreatedApiKey } from '@adplane/shared';
import { newApiKey } from '../auth/apiKeys.js';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { forbidden, HttpError, notFound, parseInput } from '../http/errors.js';
import { insertApiKey, listApiKeys, revokeApiKey, type StoredApiKey } from '../store/apiKeys.js';

const toAnswer = ({ userId: _u, tenantId: _t, ...key }: StoredApiKey): ApiKey => key;

/**
 * A user's own API keys (docs/security.md, "API keys"): list them, make one (its key answered this
 * once), revoke one. Making and revoking need the console's sign-in: a key cannot make more keys.
 */
export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const isoNow = () => new Date(app.clock.now()).toISOString();

  app.get('/api/apiKeys', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    return { keys: (await listApiKeys(app.store.db, user.id)).map(toAnswer) };
  });

  app.post('/api/apiKeys', { config: { guard: 'auth', sessionOnly: true } }, async (request, reply) => {
    const { user, adminId } = requireAuth(request);
    // a key carries its owner's rights for as long as it lives: only the owner makes one
    if (adminId !== null) throw forbidden('An admin acting as another user cannot make API keys for them');
    const input = parseInput(CreateApiKeyInput, request.body);
    const held = await listApiKeys(app.store.db, user.id);
    if (held.length >= API_KEYS_MAX)
      throw new HttpError(409, `At most ${API_KEYS_MAX} API keys per user, revoked ones included`);
    const { key, secretHash, prefix } = newApiKey();
    const stored = await insertApiKey(app.store.db, {
      userId: user.id,
      tenantId: tenantIdOf(user),
      name: input.name,
      secretHash,
      prefix,
      readOnly: input.readOnly,
      at: isoNow(),
    });
    request.log.info({ userId: user.id, apiKeyId: stored.id, readOnly: stored.readOnly }, 'API key made');
    const answer: CreatedApiKey = { apiKey: toAnswer(stored), key };
    return reply.code(201).send(answer);
  });

  app.delete('/api/apiKeys/:id', { config: { guard: 'auth', sessionOnly: true } }, async (request) => {
    const { user } = requireAuth(request);
    const { id } = parseInput(ApiKeyIdParams, request.params);
    // another user's key answers 404, like a missing one: ids are not a way to probe
    if (!(await revokeApiKey(app.store.db, user.id, id, isoNow()))) throw notFound('API key not found');
    request.log.info({ userId: user.id, apiKeyId: id }, 'API key revoked');
    return { ok: true };
  });
}
