import {
  assignmentOnChannel,
  type ChannelCampaignsAnswer,
  ChannelCampaignsInput,
  type ChannelScope,
  RESOURCES,
} from '@adplane/shared';
import { HttpError, badField, forbidden, notFound } from '../http/errors.js';
import { inTransaction, type Store } from '../store/db.js';
import { type EntityRow, type EntityWrite, getEntity, listAllEntities } from '../store/entities.js';
import { accessTo } from './access.js';
import { type Actor, prepareWrite, saveUpdate, whyRefused } from './entityService.js';

/**
 * A channel's campaigns set from the channel (PUT /api/demand/channels/:id/campaigns): the body names
 * the exact set of the account's live campaigns that run on the channel, and each live campaign of
 * the account whose assignment disagrees is saved with the smallest change that makes it agree
 * (`assignmentOnChannel`): the same check, write and activity entry as an edit of the campaign
 * (prepareWrite, saveUpdate), so its history and the config version move as on any save.
 *
 * The caller must be able to edit the channel and the campaigns (else 403, before the body is read).
 * All or nothing, in one transaction: a campaign id not of the channel's account (another tenant's,
 * unknown, archived) is a 400 naming `campaignIds`, and so is a campaign that runs only on this
 * channel and is left out: it would run nowhere, which a campaign cannot say; the user pauses it
 * instead, or gives it another channel first. Archived campaigns are left as they are.
 */
const channels = RESOURCES.channels;
const campaigns = RESOURCES.campaigns;

function writeAccess(def: typeof channels | typeof campaigns, actor: Actor) {
  const access = accessTo(def, actor.user);
  if (access.level !== 'write')
    throw forbidden(access.level === 'read' ? `${def.plural} are read-only for you` : 'Forbidden');
  return access;
}

/** The caller's right to set a channel's campaigns: to edit channels and to edit campaigns. */
export function channelCampaignsAccess(actor: Actor) {
  const channelAccess = writeAccess(channels, actor);
  writeAccess(campaigns, actor);
  return channelAccess;
}

const named = (row: EntityRow) => `${campaigns.label} '${row.name}' (${row.id})`;
const refuse = (message: string) => badField('campaignIds', message);

export async function setChannelCampaigns(
  store: Store,
  actor: Actor,
  channelId: number,
  body: unknown,
): Promise<ChannelCampaignsAnswer> {
  const scope = channelCampaignsAccess(actor).scope;
  return inTransaction(store.db, async (trx) => {
    const channel = await getEntity(trx, 'channels', scope, channelId);
    if (!channel) throw notFound(`${channels.label} ${channelId} not found`);
    if (channel.archived)
      throw new HttpError(409, `${channels.label} '${channel.name}' (${channelId}) is archived: restore it first`);
    const input = ChannelCampaignsInput.parse(body ?? {});
    const wanted = new Set(input.campaignIds);

    // the channel's account's campaigns: those of other accounts are none of its campaigns
    const all = await listAllEntities(trx, 'campaigns', { tenantId: channel.tenantId });
    const live = all.filter((c) => !c.archived);
    const archived = new Map(all.filter((c) => c.archived).map((c) => [c.id, c]));
    const liveIds = new Set(live.map((c) => c.id));
    const strangers = input.campaignIds.filter((id) => !liveIds.has(id));
    if (strangers.length) {
      const first = archived.get(strangers[0]!);
      throw refuse(
        first
          ? `${named(first)} is archived: restore it before it runs anywhere`
          : `${campaigns.label} ${strangers.join(', ')} does not exist in the account of ${channels.label.toLowerCase()} '${channel.name}'`,
      );
    }

    const changes: { row: EntityRow; write: EntityWrite }[] = [];
    const stranded: EntityRow[] = [];
    for (const row of live) {
      const scopeNow = row.data.channelScope as ChannelScope | undefined;
      const idsNow = (row.data.channelIds as number[] | undefined) ?? [];
      const next = assignmentOnChannel(scopeNow, idsNow, channelId, wanted.has(row.id));
      if (next === 'empties') {
        stranded.push(row);
        continue;
      }
      if (next.channelScope === (scopeNow ?? 'all') && sameIds(next.channelIds, idsNow)) continue;
      changes.push({ row, write: await campaignWrite(trx, row, next) });
    }
    if (stranded.length) {
      const list = stranded.slice(0, 3).map(named).join(', ');
      const more = stranded.length > 3 ? ` and ${stranded.length - 3} more` : '';
      throw refuse(
        `${list}${more} ${stranded.length === 1 ? 'runs' : 'run'} only on this channel: left out, ${stranded.length === 1 ? 'it' : 'they'} would run nowhere. Pause ${stranded.length === 1 ? 'the campaign' : 'them'} instead, or give ${stranded.length === 1 ? 'it' : 'them'} another channel first`,
      );
    }

    for (const { row, write } of changes) await saveUpdate(trx, campaigns, actor, row, write);
    return {
      channelId,
      campaignIds: live.filter((c) => wanted.has(c.id)).map((c) => c.id),
      changed: changes.map((c) => c.row.id),
    };
  });
}

const sameIds = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((id, i) => id === b[i]);

/** The campaign's document with its new assignment, checked whole as a save of it would be. */
async function campaignWrite(
  trx: Parameters<typeof prepareWrite>[0],
  row: EntityRow,
  assignment: { channelScope: ChannelScope; channelIds: number[] },
): Promise<EntityWrite> {
  try {
    return await prepareWrite(
      trx,
      campaigns,
      row.tenantId,
      { ...row.data, name: row.name, status: row.status, ...assignment },
      row.id,
    );
  } catch (error) {
    const why = whyRefused(error);
    if (why !== null) throw refuse(`${named(row)} cannot be saved: ${why}`);
    throw error;
  }
}
