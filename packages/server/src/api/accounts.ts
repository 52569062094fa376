import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { contractStateOf, ListQuery, RESOURCES } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { type Guard, requireAuth } from '../auth/guards.js';
import { parseInput } from '../http/errors.js';
import {
  createAccount,
  createPlatformUser,
  deleteAccount,
  getAccountDto,
  listAccountItems,
  listAccountPage,
  listPlatformUsers,
  setAccountArchivedFor,
  updateAccountFromBody,
} from '../resources/accountService.js';
import { type Actor } from '../resources/entityService.js';

/**
 * Accounts as resources (subpublishers, advertisers, managers, demand accounts): the same contract
 * as entities (list page, shared list, get, create, update, archive, restore, delete); duplicating
 * an account makes no sense (sign-in names are unique), so there is none. Admins and SDK users are
 * listed and made by admins at /api/users.
 */
const IdParams = z.object({ id: z.coerce.number().int().positive('must be an id') });

function actorOf(request: FastifyRequest): Actor {
  const auth = requireAuth(request);
  return { user: auth.user, adminId: auth.adminId };
}

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  for (const def of Object.values(RESOURCES)) {
    if (def.storage !== 'account') continue;
    const guard: Guard = def.audience === 'admin' ? 'admin' : 'auth';
    // Mode and edition (auth/entitlements.ts): Managers exist in the CTVMediaV2V edition only.
    const preHandler = entitled(app, def.kind);
    const route = () => ({ config: { guard }, preHandler });
    const base = def.api;
    const store = app.store;
    const id = (request: FastifyRequest) => parseInput(IdParams, request.params).id;
    // a demand account's contract: expired or expiring by the app's clock, in the account's time zone
    const dated = <T extends Record<string, unknown>>(row: T): T =>
      def.kind === 'demands'
        ? {
            ...row,
            contractState: contractStateOf(
              row.contactExpired as string | null,
              app.clock.now(),
              Number(row.timezone ?? 0),
            ),
          }
        : row;
    app.get(base, route(), async (request) => {
      const page = await listAccountPage(store, def, actorOf(request), parseInput(ListQuery, request.query));
      return { ...page, items: page.items.map(dated) };
    });
    app.get(`${base}/list`, route(), async (request) =>
      (await listAccountItems(store, def, actorOf(request))).map((item) => dated(item as Record<string, unknown>)),
    );
    app.get(`${base}/:id`, route(), async (request) =>
      dated(await getAccountDto(store, def, actorOf(request), id(request))),
    );
    app.post(base, route(), async (request, reply) => {
      reply.code(201);
      return createAccount(store, def, actorOf(request), request.body);
    });
    app.put(`${base}/:id`, route(), async (request) =>
      updateAccountFromBody(store, def, actorOf(request), id(request), request.body),
    );
    app.post(`${base}/:id/archive`, route(), async (request) =>
      setAccountArchivedFor(store, def, actorOf(request), id(request), true),
    );
    app.post(`${base}/:id/restore`, route(), async (request) =>
      setAccountArchivedFor(store, def, actorOf(request), id(request), false),
    );
    app.delete(`${base}/:id`, route(), async (request, reply) => {
      await deleteAccount(store, def, actorOf(request), id(request));
      return reply.code(204).send();
    });
  }

  app.get('/api/users', { config: { guard: 'admin' } }, async () => ({ items: await listPlatformUsers(app.store) }));
  app.post('/api/users', { config: { guard: 'admin' } }, async (request, reply) => {
    const made = await createPlatformUser(app.store, actorOf(request), request.body);
    reply.code(201);
    return made;
  });
}
