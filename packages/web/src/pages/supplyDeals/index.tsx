import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { type DeliveryState, RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { DEAL_FLIGHT_COLUMN, DEAL_FLOOR_COLUMN, DEAL_ID_COLUMN } from '../deals/dealColumns.js';
import { AUCTION_LABELS } from '../deals/dealTerms.js';
import { dealToBody, dealToForm } from '../deals/dealValues.js';
import { DealDelivery, DealDeliveryDetail } from './DealDelivery.js';
import { SupplyDealForm } from './SupplyDealForm.js';
import './supplyDeals.css';

/** Words of a list on one line, or what none of them means. */
const wordsCell = (none: string) => (words: string[] | undefined) =>
  words && words.length > 0 ? (
    <EllipsisText text={words.join(', ')} className="cell-mono" />
  ) : (
    <Typography.Text type="secondary">{none}</Typography.Text>
  );

/** The list's columns; the caps with what each deal delivered against them once the delivery states come. */
const columns = (stateOf: (row: ResourceRow) => DeliveryState | undefined): ColumnsType<ResourceRow> => [
  DEAL_ID_COLUMN,
  DEAL_FLOOR_COLUMN,
  {
    title: 'Auction',
    dataIndex: 'auctionType',
    key: 'auctionType',
    width: 150,
    render: (v: number, row) =>
      orEmpty(AUCTION_LABELS.get(v), (label) => (row.privateAuction ? `${label}, private` : label)),
  },
  {
    title: 'Buyer seats',
    dataIndex: 'buyerSeats',
    key: 'buyerSeats',
    width: COLUMN_WIDTHS.account,
    ellipsis: { showTitle: false },
    render: wordsCell('Any seat'),
  },
  {
    title: 'Advertisers',
    dataIndex: 'advertiserDomains',
    key: 'advertiserDomains',
    width: COLUMN_WIDTHS.account,
    ellipsis: { showTitle: false },
    render: wordsCell('Any advertiser'),
  },
  DEAL_FLIGHT_COLUMN,
  {
    title: 'Delivered / cap',
    key: 'impCap',
    width: COLUMN_WIDTHS.delivery,
    render: (_: unknown, row) => <DealDelivery row={row} delivered={stateOf(row)?.delivered} />,
  },
];

/** A new supply deal: open to any buyer of every channel and tag, first price, no dates. */
function supplyDealDefaults(): Record<string, unknown> {
  return {
    status: 1,
    dealId: '',
    floorCpm: 0,
    auctionType: 1,
    privateAuction: false,
    buyerSeats: [],
    advertiserDomains: [],
    channelIds: [],
    targetingId: null,
    tagIds: [],
    startDate: null,
    endDate: null,
    impCap: 'unlimited',
    dailyImpCap: 'unlimited',
  };
}

/** Supply deals: the account's channels sold to buyers as deals on its RTB and Prebid tags' bid requests (SSP mode, Supply menu). */
export default function SupplyDealsPage() {
  const user = useUser();
  return (
    <ResourceListPage
      def={RESOURCES.supplydeals}
      columns={columns}
      FormBody={SupplyDealForm}
      defaults={supplyDealDefaults}
      toForm={dealToForm}
      toBody={dealToBody}
      canWrite={user.type === 'demand'}
      stateDetail={(row, state) => <DealDeliveryDetail row={row} delivered={state.delivered} />}
      drawerWidth={760}
      defaultHidden={[
        'updatedAt',
        'auctionType',
        'buyerSeats',
        'advertiserDomains',
        'm_deal_reqs',
        'm_bids',
        'm_wins',
        'm_ecpm',
      ]}
    />
  );
}
