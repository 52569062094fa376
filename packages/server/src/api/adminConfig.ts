import { type FastifyInstance } from 'fastify';
import { AppConfig } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { parseInput } from '../http/errors.js';
import { getAppConfig, saveAppConfig } from '../store/appConfig.js';

/** The admin's Config modal: monthly post-bid allowances. */
export async function adminConfigRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/admin/config', { config: { guard: 'admin' } }, async () => getAppConfig(app.store.db));

  app.put('/api/admin/config', { config: { guard: 'admin' } }, async (request) => {
    const { user, adminId } = requireAuth(request);
    const config = parseInput(AppConfig, request.body);
    const saved = await saveAppConfig(app.store.db, config, { userId: user.id, adminId });
    request.log.info({ adminId: request.auth?.user.id, config: saved }, 'app config saved');
    return saved;
  });
}
