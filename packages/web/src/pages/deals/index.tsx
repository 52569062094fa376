import { Space, Tag, Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { usd } from '../../resources/fields.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { FlightCell } from '../dsp/FlightCell.js';
import { AUCTION_TYPE_OPTIONS, DealForm } from './DealForm.js';
import { dealDefaults, dealToBody, dealToForm } from './dealValues.js';

const AUCTION_LABELS = new Map<number, string>(AUCTION_TYPE_OPTIONS.map((o) => [o.value, o.label]));

const COLUMNS: ColumnsType<ResourceRow> = [
  {
    title: 'Deal ID',
    dataIndex: 'dealId',
    key: 'dealId',
    sorter: true,
    ellipsis: { showTitle: false },
    render: (v: unknown) => (
      <span className="dsp-mono" title={String(v ?? '')}>
        {String(v ?? '')}
      </span>
    ),
  },
  { title: 'Floor CPM', dataIndex: 'floorCpm', key: 'floorCpm', width: 104, align: 'right', sorter: true, render: usd },
  { title: 'Auction', dataIndex: 'auctionType', key: 'auctionType', width: 104, render: (v: number) => AUCTION_LABELS.get(v) ?? '' },
  {
    title: 'Buyer seats',
    dataIndex: 'buyerSeats',
    key: 'buyerSeats',
    width: 150,
    render: (seats: string[] | undefined) =>
      seats && seats.length > 0 ? (
        <Tooltip title={seats.length > 2 ? seats.join(', ') : undefined}>
          <Space size={2} wrap>
            {seats.slice(0, 2).map((s) => (
              <Tag key={s} className="dsp-mono" style={{ marginInlineEnd: 0 }}>
                {s}
              </Tag>
            ))}
            {seats.length > 2 && <Tag style={{ marginInlineEnd: 0 }}>+{seats.length - 2} more</Tag>}
          </Space>
        </Tooltip>
      ) : (
        <Typography.Text type="secondary">Any buyer</Typography.Text>
      ),
  },
  { title: 'Flight', key: 'flight', width: 108, render: (_: unknown, row) => <FlightCell start={row.startDate} end={row.endDate} /> },
];

/** Deals: private-marketplace deals the tenant's suppliers send (DSP mode, Targeting menu). */
export default function DealsPage() {
  const user = useUser();
  return (
    <ResourceListPage
      def={RESOURCES.deals}
      columns={COLUMNS}
      FormBody={DealForm}
      defaults={dealDefaults}
      toForm={dealToForm}
      toBody={dealToBody}
      canWrite={user.type === 'demand'}
      drawerWidth={760}
    />
  );
}
