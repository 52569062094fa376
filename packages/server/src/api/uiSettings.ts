import { type FastifyInstance } from 'fastify';
import { UiSettings } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { parseInput } from '../http/errors.js';
import { getUiSettings, saveUiSettings } from '../store/uiSettings.js';

/** The Settings modal ('Open links in new Tabs'), kept per acting user. */
export async function uiSettingsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/ui/settings', { config: { guard: 'auth' } }, async (request) => getUiSettings(app.store.db, requireAuth(request).user.id));

  app.put('/api/ui/settings', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    return saveUiSettings(app.store.db, user.id, parseInput(UiSettings, request.body));
  });
}
