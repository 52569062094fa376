import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type ChannelCampaignsAnswer, channelCampaignsPath } from '@adplane/shared';
import { requireEntitled, entitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { parseInput } from '../http/errors.js';
import { channelCampaignsAccess, setChannelCampaigns } from '../resources/channelCampaigns.js';

/**
 * PUT /api/demand/channels/:id/campaigns: which of the account's campaigns run on the channel, set
 * from the channel (resources/channelCampaigns.ts). Campaigns are of the DSP view: a tenant without
 * it, or a user who may not edit campaigns, is refused (403) as an edit of a campaign would be.
 */
const ChannelIdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});

export async function channelCampaignRoutes(app: FastifyInstance): Promise<void> {
  app.put(
    channelCampaignsPath(':id'),
    { config: { guard: 'auth' }, preHandler: entitled(app, 'channels') },
    async (request: FastifyRequest): Promise<ChannelCampaignsAnswer> => {
      const auth = requireAuth(request);
      const actor = { user: auth.user, adminId: auth.adminId };
      await requireEntitled(app, auth.user, 'campaigns');
      channelCampaignsAccess(actor);
      const { id } = parseInput(ChannelIdParams, request.params);
      return setChannelCampaigns(app.store, actor, id, request.body);
    },
  );
}
