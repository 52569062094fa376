import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { DEAL_FLIGHT_COLUMN, DEAL_FLOOR_COLUMN, DEAL_ID_COLUMN } from './dealColumns.js';
import { DealForm } from './DealForm.js';
import { AUCTION_LABELS } from './dealTerms.js';
import { dealDefaults, dealToBody, dealToForm } from './dealValues.js';

const COLUMNS: ColumnsType<ResourceRow> = [
  DEAL_ID_COLUMN,
  DEAL_FLOOR_COLUMN,
  {
    title: 'Auction',
    dataIndex: 'auctionType',
    key: 'auctionType',
    width: 104,
    render: (v: number) => orEmpty(AUCTION_LABELS.get(v)),
  },
  {
    title: 'Buyer seats',
    dataIndex: 'buyerSeats',
    key: 'buyerSeats',
    width: COLUMN_WIDTHS.account,
    ellipsis: { showTitle: false },
    render: (seats: string[] | undefined) =>
      seats && seats.length > 0 ? (
        <EllipsisText text={seats.join(', ')} className="cell-mono" />
      ) : (
        <Typography.Text type="secondary">Any buyer</Typography.Text>
      ),
  },
  DEAL_FLIGHT_COLUMN,
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
      defaultHidden={['updatedAt', 'auctionType', 'buyerSeats', 'm_bids']}
    />
  );
}
