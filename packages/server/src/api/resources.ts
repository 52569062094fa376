import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ListQuery, RESOURCES, type ResourceDef } from '@adplane/shared';
import { entitled } from '../auth/entitlements.js';
import { type Guard, requireAuth } from '../auth/guards.js';
import { badField, parseInput } from '../http/errors.js';
import { demandUrlFields, ownEntryPointsOf } from '../http/ownEntryPoints.js';
import {
  type Actor,
  createOne,
  deleteOne,
  duplicateOne,
  getOne,
  listItems,
  listPage,
  setArchived,
  updateOne,
  visibleUsageOf,
} from '../resources/entityService.js';
import { isEntityKind } from '../store/entityTables.js';

/**
 * The same routes for every entity kind of packages/shared's registry (react-admin's data-provider
 * contract): list page, shared list, get, create, update, duplicate, archive, restore, delete, usage.
 * Who may do what inside the route is decided by resources/access.ts; whether the tenant's mode and
 * the edition open the kind at all, by auth/entitlements.ts (a preHandler on every route).
 */
const IdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});

function actorOf(request: FastifyRequest): Actor {
  const auth = requireAuth(request);
  return { user: auth.user, adminId: auth.adminId };
}

function guards(def: ResourceDef): { read: Guard; write: Guard } {
  if (def.audience === 'admin') return { read: 'auth', write: 'admin' };
  if (def.audience === 'sdk') return { read: 'sdk', write: 'sdk' };
  return { read: 'auth', write: 'auth' };
}

/**
 * A demand tag's or an ad exchange's URL at one of this server's own decision entry points (its
 * /vast/, /rtb/ or Prebid Server endpoints): every request would call the edge again, and that
 * decision again. Refused with a 400 naming the field unless the operator allows demand on the
 * server's own origin (ADPLANE_ALLOW_SELF_DEMAND=1; the edge then allows one hop:
 * edge/request/demandHops.ts).
 */
function selfDemandCheck(app: FastifyInstance): (kind: string, body: unknown) => void {
  const own = ownEntryPointsOf(app);
  return (kind, body) => {
    if (app.settings.allowSelfDemand) return;
    for (const [field, url] of demandUrlFields(kind, body)) {
      const entry = own(url);
      if (entry) {
        throw badField(
          field,
          `addresses this ad server's own ${entry} entry point: every request would call the ad server again (a demand loop). Use the demand's own URL; an operator can allow demand on the server's own origin with ADPLANE_ALLOW_SELF_DEMAND=1`,
        );
      }
    }
  };
}

export async function resourceRoutes(app: FastifyInstance): Promise<void> {
  const refuseSelfDemand = selfDemandCheck(app);
  for (const def of Object.values(RESOURCES)) {
    if (def.storage !== 'entity' || !isEntityKind(def.kind)) continue;
    const { read: readGuard, write: writeGuard } = guards(def);
    const preHandler = entitled(app, def.kind);
    // A fresh options object per route (Fastify adds each route's url and method to its config).
    const read = () => ({ config: { guard: readGuard }, preHandler });
    const write = () => ({ config: { guard: writeGuard }, preHandler });
    const base = def.api;
    const store = app.store;
    const id = (request: FastifyRequest) => parseInput(IdParams, request.params).id;

    app.get(base, read(), async (request) =>
      listPage(store, def, actorOf(request), parseInput(ListQuery, request.query)),
    );
    app.get(`${base}/list`, read(), async (request) => listItems(store, def, actorOf(request)));
    // Extra paths of the names list (channelNames, tagnames), declared in the kind's home.
    const namesPath = def.namesApi;
    if (namesPath) app.get(namesPath, read(), async (request) => listItems(store, def, actorOf(request), true));
    app.get(`${base}/:id`, read(), async (request) => getOne(store, def, actorOf(request), id(request)));
    app.get(`${base}/:id/usage`, read(), async (request) => visibleUsageOf(store, def, actorOf(request), id(request)));
    app.post(base, write(), async (request, reply) => {
      refuseSelfDemand(def.kind, request.body);
      reply.code(201);
      return createOne(store, def, actorOf(request), request.body);
    });
    app.put(`${base}/:id`, write(), async (request) => {
      refuseSelfDemand(def.kind, request.body);
      return updateOne(store, def, actorOf(request), id(request), request.body);
    });
    app.post(`${base}/:id/duplicate`, write(), async (request, reply) => {
      reply.code(201);
      return duplicateOne(store, def, actorOf(request), id(request));
    });
    app.post(`${base}/:id/archive`, write(), async (request) =>
      setArchived(store, def, actorOf(request), id(request), true),
    );
    app.post(`${base}/:id/restore`, write(), async (request) =>
      setArchived(store, def, actorOf(request), id(request), false),
    );
    app.delete(`${base}/:id`, write(), async (request, reply) => {
      await deleteOne(store, def, actorOf(request), id(request));
      return reply.code(204).send();
    });
  }
}
