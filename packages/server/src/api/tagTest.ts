import { type FastifyInstance } from 'fastify';
import { RESOURCES, TAG_TEST_PATH, TagTestRequest } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { withStoreNames } from '../edge/debug/traceNames.js';
import { runTestDecision, SubjectNotLoaded } from '../edge/doors/tagTest/testDecision.js';
import { forbidden, HttpError, parseInput } from '../http/errors.js';
import { getOne } from '../resources/entityService.js';
import { readConfigVersion } from '../store/configVersion.js';

/**
 * POST /api/edge/test: "Test this tag" from the console. The trace shows demand and prices, so only
 * admins and the demand account's users run it (as for `debug=1`); the channel or tag is read through
 * the same scoped repository as its edit form, so another tenant's row is a 404. The decision itself
 * is the edge's (edge/doors/tagTest/testDecision.ts): a process started with `--role api` has no edge and
 * answers 503.
 */
export async function tagTestRoutes(app: FastifyInstance): Promise<void> {
  app.post(TAG_TEST_PATH, { config: { guard: 'auth' } }, async (request) => {
    const { user, adminId } = requireAuth(request);
    if (user.type !== 'admin' && user.type !== 'demand')
      throw forbidden("Testing a tag shows demand and prices: only the demand account's users run it");
    const body = parseInput(TagTestRequest, request.body);
    const kind = body.channelId !== undefined ? 'channel' : 'tag';
    const def = kind === 'channel' ? RESOURCES.channels : RESOURCES.tags;
    const row = await getOne(app.store, def, { user, adminId }, (body.channelId ?? body.tagId)!);
    const tenantId = Number(row.tenantId);
    if (!app.hasDecorator('edge'))
      throw new HttpError(
        503,
        'This process serves the console only (--role api): run the test on a process with the edge role',
      );
    const idleReason = row.archived ? 'archived' : row.status !== 1 ? 'paused' : 'account_paused';
    try {
      const answer = await runTestDecision(
        app.edge,
        () => readConfigVersion(app.store.db),
        { kind, id: Number(row.id), name: String(row.name), idleReason },
        tenantId,
        body.context,
        { remoteAddress: request.ip, userAgent: request.headers['user-agent'] ?? '' },
      );
      // the account's campaigns the ad server left out, and the idle tags' names (a tag alone competes with no campaign)
      await withStoreNames(answer.trace, app.store, app.edge.snapshots.current, tenantId, kind === 'channel');
      return answer;
    } catch (error) {
      if (error instanceof SubjectNotLoaded)
        throw new HttpError(503, `${error.message}; try again in a second`, undefined, { 'retry-after': '1' });
      throw error;
    }
  });
}
