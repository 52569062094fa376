import { Button, Empty, Skeleton, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { campaignRunsOn, type ChannelScope } from '@adplane/shared';
import { api } from '../../api/client.js';
import { LIST_ENDPOINTS, type ListItem, setList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { isEntitled } from '../../auth/guards.js';
import { errorText } from '../../errors/messages.js';
import { SectionTitle } from '../../resources/formParts.js';
import { usedByHref } from '../../resources/UsedBy.js';
import { AssignCampaignsModal } from './AssignCampaignsModal.js';

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
 * drawer opens (the campaigns' shared list), for a user who may see campaigns (the DSP view). One
 * who may edit them (the account's own users: campaigns are edited by demand users) gets "Assign
 * campaigns": the modal that sets which of them run here, after which the box reads them again.
 */
export function ChannelCampaigns({
  channelId,
  channelName,
  readOnly,
}: {
  channelId: number;
  channelName: string;
  readOnly: boolean;
}) {
  const user = useUser();
  const entitled = isEntitled(user, 'campaigns');
  const canAssign = entitled && user?.type === 'demand' && !readOnly;
  const [all, setAll] = useState<ListItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [assigning, setAssigning] = useState(false);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    if (!entitled) return;
    let active = true;
    setAll(null);
    setError(null);
    api
      .get<ListItem[]>(LIST_ENDPOINTS.campaigns, { silent: true })
      .then((items) => active && setAll(items))
      .catch((e: unknown) => active && setError(errorText(e)));
    return () => {
      active = false;
    };
  }, [entitled, channelId, reads]);
  if (!entitled) return null;
  const campaigns = all && campaignsOn(all, channelId);
  const assign = canAssign && all && (
    <Button size="small" onClick={() => setAssigning(true)} data-testid="channel-campaigns-assign">
      Assign campaigns
    </Button>
  );
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
        >
          {assign}
        </Empty>
      ) : (
        <>
          <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 12 }}>
            <Typography.Text type="secondary">
              {campaigns.length === 1 ? '1 campaign can' : `${campaigns.length} campaigns can`} run on it (campaigns of
              all channels, and those assigned to it)
            </Typography.Text>
            {assign}
          </div>
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
      {assigning && all && (
        <AssignCampaignsModal
          channelId={channelId}
          channelName={channelName}
          campaigns={all}
          onClose={() => setAssigning(false)}
          onSaved={() => {
            setAssigning(false);
            // the campaigns' shared list (their forms' and lists' names and assignments) is stale now
            setList('campaigns', null);
            setReads((n) => n + 1);
          }}
        />
      )}
    </section>
  );
}
