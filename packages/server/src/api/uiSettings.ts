import { type FastifyInstance } from 'fastify';
import { ModeChoice, modeSwitchRefusal, UiSettings } from '@adplane/shared';
import { tenantShowsDsp } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { forbidden, parseInput } from '../http/errors.js';
import { getUiSettings, saveUiSettings } from '../store/uiSettings.js';

/**
 * The Settings modal ('Open links in new Tabs'), kept per acting user; and the SSP/DSP switch, which
 * the console asks here before it stores the view (in local storage) and reloads. The
 * shared rule (entitlements.ts, modeSwitchRefusal) decides who may switch; the signed-in user the
 * server sends carries its outcome as `showDsp` (auth/authUser.ts), by which the console shows the
 * switch, so the two never disagree.
 */
export async function uiSettingsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/ui/settings', { config: { guard: 'auth' } }, async (request) =>
    getUiSettings(app.store.db, requireAuth(request).user.id),
  );

  app.put('/api/ui/settings', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    return saveUiSettings(app.store.db, user.id, parseInput(UiSettings, request.body));
  });

  app.put('/api/ui/mode', { config: { guard: 'auth' } }, async (request): Promise<ModeChoice> => {
    const { user } = requireAuth(request);
    // Who may switch is decided before the body is read: a user who may not gets 403 whatever it sends.
    const refusal = modeSwitchRefusal(user, await tenantShowsDsp(app.store.db, user));
    if (refusal) throw forbidden(refusal);
    const { mode } = parseInput(ModeChoice, request.body);
    request.log.debug({ userId: user.id, mode }, 'view switched');
    return { mode };
  });
}
