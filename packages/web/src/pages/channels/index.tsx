import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { AD_FORMAT_OPTIONS, ENVIRONMENT_OPTIONS, INTEGRATION_OPTIONS, RESOURCES } from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { CopyValue, EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { usd } from '../../resources/fields.js';
import { priceText } from '../../resources/unitFields.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { useWideWindow } from '../../resources/wideWindow.js';
import { FillFunnelButton } from '../report/FillFunnel.js';
import { TagTestButton } from '../tagTest/TagTestDrawer.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { ChannelForm, DEFAULT_REVSHARE } from './ChannelForm.js';
import { floorModeOf } from './DynamicFloorFields.js';
import { channelTagPreview } from '../../components/tagVariants.js';
import { TagPreviewButton } from '../../components/TagPreviewButton.js';
import './channels.css';

const nameOf = (items: readonly { id: string; name: string }[]) =>
  new Map<unknown, string>(items.map((i) => [i.id, i.name]));
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
    floorRules: null,
    floorMode: 'static',
    dynamicFloor: null,
    payout: { type: 'revshare', percent: DEFAULT_REVSHARE },
    targetingId: null,
    demandMode: 'auction',
    vastVersion: '4.2',
    auctionPrice: 'first',
    timeoutMs: 1500,
    demand: [],
    optimise: null,
    split: null,
    ivtIds: [],
    blockIVT: false,
  };
}

/** The row's tag, opened in a preview to choose the variant and copy it. */
function RowTagButton({ row }: { row: ResourceRow }) {
  const user = useUser();
  const model = channelTagPreview(row, user);
  if (!model) return null;
  return (
    <TagPreviewButton
      label={model.title}
      heading={`${model.title}: ${row.name}`}
      buttonTestId={`copy-tag-${row.id}`}
      model={model}
      testId={`row-tag-${row.id}`}
      copiedMessage="Copied: the tag is in your clipboard"
    />
  );
}

/** Supply channels: what the tenant sells, to whom it pays out, and the tag a publisher puts in. */
export default function ChannelsPage() {
  const { items: subs } = useList('subpublishers');
  const subNames = useMemo(() => new Map(subs.map((s) => [Number(s.id), s.name])), [subs]);
  const wide = useWideWindow();

  const columns: ColumnsType<ResourceRow> = [
    {
      title: 'UID',
      dataIndex: 'uid',
      key: 'uid',
      width: COLUMN_WIDTHS.copyValue,
      ellipsis: { showTitle: false },
      render: (uid: string | null) => <CopyValue value={uid ?? ''} />,
    },
    {
      title: 'Type',
      dataIndex: 'integration',
      key: 'integration',
      sorter: true,
      // Whole in a wide window; cut, whole on hover, where the list fits 1280 px.
      width: wide ? COLUMN_WIDTHS.typeWide : COLUMN_WIDTHS.type,
      ellipsis: { showTitle: false },
      render: (v: string, row) => {
        const text = `${INTEGRATION_NAMES.get(v) ?? v} · ${ENVIRONMENT_NAMES.get(row.environment) ?? String(row.environment ?? '')} ${(FORMAT_NAMES.get(row.format) ?? String(row.format ?? '')).toLowerCase()}`;
        return <EllipsisText text={text} />;
      },
    },
    {
      title: 'Floor · payout',
      dataIndex: 'floorCpm',
      key: 'floorCpm',
      sorter: true,
      align: 'right',
      width: COLUMN_WIDTHS.floorPrice,
      ellipsis: { showTitle: false },
      render: (floor: number, row) => (
        <EllipsisText text={`Floor ${usd(floor)} · payout ${priceText(row.payout)}`}>
          {usd(floor)} <Typography.Text type="secondary">· {priceText(row.payout)}</Typography.Text>
        </EllipsisText>
      ),
    },
    {
      title: 'Subpublisher',
      dataIndex: 'subpublisherId',
      key: 'subpublisherId',
      width: COLUMN_WIDTHS.account,
      ellipsis: { showTitle: false },
      render: (id: number | null) =>
        id === null || id === undefined ? (
          <Typography.Text type="secondary">Own inventory</Typography.Text>
        ) : (
          <EllipsisText text={subNames.get(id) ?? `#${id}`} />
        ),
    },
  ];

  return (
    <ResourceListPage
      def={RESOURCES.channels}
      columns={columns}
      FormBody={ChannelForm}
      defaults={channelDefaults}
      // the floor mode follows the form: dynamic when switched on, else whether floor rules are on
      toBody={(values) => ({ ...values, floorMode: floorModeOf(values) })}
      rowActionCount={3}
      rowActions={(row) => (
        <>
          <RowTagButton row={row} />
          <TagTestButton
            subject={{
              kind: 'channel',
              id: Number(row.id),
              name: String(row.name),
              environment: String(row.environment ?? ''),
            }}
          />
          <FillFunnelButton subject={{ dimension: 'channel', id: Number(row.id), name: String(row.name) }} />
        </>
      )}
      drawerWidth={760}
      // The subpublisher waits in the column chooser: with it the list is wider than a 1280 px window.
      defaultHidden={['updatedAt', 'uid', 'subpublisherId']}
    />
  );
}
