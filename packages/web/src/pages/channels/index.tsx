import { CodeOutlined } from '@ant-design/icons';
import { App, Button, Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { AD_FORMAT_OPTIONS, ENVIRONMENT_OPTIONS, INTEGRATION_OPTIONS, RESOURCES } from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { copyText } from '../../resources/clipboard.js';
import { usd } from '../../resources/fields.js';
import { priceText } from '../../resources/unitFields.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { FillFunnelButton } from '../report/FillFunnel.js';
import { TagTestButton } from '../tagTest/TagTestDrawer.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { ChannelForm, DEFAULT_REVSHARE } from './ChannelForm.js';
import { channelTag } from './channelTag.js';
import './channels.css';

const nameOf = (items: readonly { id: string; name: string }[]) => new Map<unknown, string>(items.map((i) => [i.id, i.name]));
const INTEGRATION_NAMES = nameOf(INTEGRATION_OPTIONS);
const ENVIRONMENT_NAMES = nameOf(ENVIRONMENT_OPTIONS);
const FORMAT_NAMES = nameOf(AD_FORMAT_OPTIONS);

export function channelDefaults(): Record<string, unknown> {
  return {
    name: '',
    status: 1,
    subpublisherId: null,
    integration: 'VAST',
    environment: 'web',
    format: 'video',
    domain: '',
    floorCpm: 0,
    payout: { type: 'revshare', percent: DEFAULT_REVSHARE },
    targetingId: null,
    demandMode: 'auction',
    vastVersion: '4.2',
    auctionPrice: 'first',
    timeoutMs: 1500,
    demand: [],
    ivtIds: [],
    blockIVT: false,
  };
}

function CopyTagButton({ row }: { row: ResourceRow }) {
  const user = useUser();
  const { message } = App.useApp();
  const tag = channelTag(row, user);
  return (
    <Tooltip title={tag ? `Copy the ${tag.integration} tag` : 'The tag appears once the channel is saved'}>
      <Button
        type="text"
        size="small"
        icon={<CodeOutlined />}
        aria-label="copy tag"
        disabled={!tag}
        data-testid={`copy-tag-${row.id}`}
        onClick={() => tag && void copyText(tag.text, message, 'Copied: the tag is in your clipboard')}
      />
    </Tooltip>
  );
}

/** Supply channels: what the tenant sells, to whom it pays out, and the tag a publisher puts in. */
export default function ChannelsPage() {
  const { items: subs } = useList('subpublishers');
  const subNames = useMemo(() => new Map(subs.map((s) => [Number(s.id), s.name])), [subs]);

  const columns: ColumnsType<ResourceRow> = [
    {
      title: 'UID',
      dataIndex: 'uid',
      key: 'uid',
      width: 135,
      render: (uid: string | null) =>
        uid ? (
          <Typography.Text code className="channel-uid">
            {uid}
          </Typography.Text>
        ) : null,
    },
    { title: 'Integration', dataIndex: 'integration', key: 'integration', sorter: true, width: 105, render: (v: string) => INTEGRATION_NAMES.get(v) ?? v },
    {
      title: 'Environment / format',
      dataIndex: 'environment',
      key: 'environment',
      sorter: true,
      width: 130,
      render: (v: string, row) => `${ENVIRONMENT_NAMES.get(v) ?? v} · ${FORMAT_NAMES.get(row.format) ?? String(row.format ?? '')}`,
    },
    { title: 'Floor', dataIndex: 'floorCpm', key: 'floorCpm', sorter: true, align: 'right', width: 85, render: usd },
    { title: 'Payout', dataIndex: 'payout', key: 'payout', align: 'right', width: 115, render: (p: unknown) => <span className="channel-nowrap">{priceText(p)}</span> },
    {
      title: 'Subpublisher',
      dataIndex: 'subpublisherId',
      key: 'subpublisherId',
      width: 140,
      render: (id: number | null) => (id === null || id === undefined ? <Typography.Text type="secondary">Own inventory</Typography.Text> : (subNames.get(id) ?? `#${id}`)),
    },
  ];

  return (
    <ResourceListPage
      def={RESOURCES.channels}
      columns={columns}
      FormBody={ChannelForm}
      defaults={channelDefaults}
      rowActions={(row) => (
        <>
          <CopyTagButton row={row} />
          <TagTestButton subject={{ kind: 'channel', id: Number(row.id), name: String(row.name), environment: String(row.environment ?? '') }} />
          <FillFunnelButton subject={{ dimension: 'channel', id: Number(row.id), name: String(row.name) }} />
        </>
      )}
      drawerWidth={760}
      nameWidth={230}
    />
  );
}
