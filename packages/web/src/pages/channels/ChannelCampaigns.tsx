import { Empty, Skeleton, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { campaignRunsOn, type ChannelScope } from '@adplane/shared';
import { api } from '../../api/client.js';
import { LIST_ENDPOINTS, type ListItem } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { isEntitled } from '../../auth/guards.js';
import { errorText } from '../../errors/messages.js';
import { SectionTitle } from '../../resources/formParts.js';
import { usedByHref } from '../../resources/UsedBy.js';

/** The campaigns of the account a channel runs, in name order: those of every channel, those assigned to it, not those that leave it out. */
function campaignsOn(items: readonly ListItem[], channelId: number): ListItem[] {
  return items
    .filter(
      (c) =>
        c.archived !== true &&
        campaignRunsOn(c.channelScope as ChannelScope | undefined, c.channelIds as number[] | undefined, channelId),
    )
    .sort((a, b) => a.name.localeCompare(b.name) || Number(a.id) - Number(b.id));
}

/**
 * A channel drawer's "Campaigns": the account's campaigns that can run on the channel (by their
 * channel assignment), each a link that opens it; paused ones marked. Read afresh each time the
 * drawer opens (the campaigns' shared list), for a user who may see campaigns (the DSP view).
 */
export function ChannelCampaigns({ channelId }: { channelId: number }) {
  const user = useUser();
  const entitled = isEntitled(user, 'campaigns');
  const [campaigns, setCampaigns] = useState<ListItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!entitled) return;
    let active = true;
    setCampaigns(null);
    setError(null);
    api
      .get<ListItem[]>(LIST_ENDPOINTS.campaigns, { silent: true })
      .then((items) => active && setCampaigns(campaignsOn(items, channelId)))
      .catch((e: unknown) => active && setError(errorText(e)));
    return () => {
      active = false;
    };
  }, [entitled, channelId]);
  if (!entitled) return null;
  return (
    <section aria-label="Campaigns" data-testid="channel-campaigns">
      <SectionTitle>Campaigns</SectionTitle>
      {error ? (
        <Typography.Text type="danger">Could not load the campaigns: {error}</Typography.Text>
      ) : campaigns === null ? (
        <Skeleton active paragraph={{ rows: 1 }} title={false} />
      ) : campaigns.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description="No campaign of the account runs on this channel"
          data-testid="channel-campaigns-none"
        />
      ) : (
        <>
          <Typography.Text type="secondary">
            {campaigns.length === 1 ? '1 campaign can' : `${campaigns.length} campaigns can`} run on it (campaigns of
            all channels, and those assigned to it)
          </Typography.Text>
          <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6, marginTop: 4, marginBottom: 16 }}>
            {campaigns.map((c) => (
              <Link
                key={c.id}
                to={usedByHref('campaigns', Number(c.id))}
                data-testid={`channel-campaign-${c.id}`}
                title={`Campaign #${c.id}${c.channelScope === 'include' ? ': assigned to this channel' : ''}`}
              >
                <Tag color={c.status === 0 ? 'default' : 'blue'} style={{ marginInlineEnd: 0, cursor: 'pointer' }}>
                  {c.name}
                  {c.status === 0 ? ' · paused' : ''}
                </Tag>
              </Link>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
