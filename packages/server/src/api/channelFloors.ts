import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type ChannelFloors,
  channelFloorMode,
  channelFloorsPath,
  DynamicFloorSettings,
  RESOURCES,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { entitled } from '../auth/entitlements.js';
import { parseInput } from '../http/errors.js';
import { getOne } from '../resources/entityService.js';
import { floorStates } from '../store/dynamicFloors.js';

/**
 * GET /api/demand/channels/:id/floors: how a channel's floor is set and, for a dynamic one, the
 * floors its requests get now (the table the api role last computed, each floor with how it was
 * reached) and when they are computed next. The channel is read through the same scoped repository
 * as its edit form: another tenant's channel is a 404.
 */
const ChannelIdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});
const channels = RESOURCES.channels;

export async function channelFloorRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    channelFloorsPath(':id'),
    { config: { guard: 'auth' }, preHandler: entitled(app, 'channels') },
    async (request: FastifyRequest): Promise<ChannelFloors> => {
      const auth = requireAuth(request);
      const { id } = parseInput(ChannelIdParams, request.params);
      const channel = await getOne(app.store, channels, { user: auth.user, adminId: auth.adminId }, id);
      const mode = channelFloorMode({ floorMode: channel.floorMode, floorRules: channel.floorRules });
      const settings = mode === 'dynamic' ? DynamicFloorSettings.safeParse(channel.dynamicFloor) : null;
      if (!settings?.success) return { mode, settings: null, table: null, nextRunAt: null };
      const state = (await floorStates(app.store.db, [id])).get(id);
      return { mode, settings: settings.data, table: state?.table ?? null, nextRunAt: state?.nextRunAt ?? null };
    },
  );
}
