import { type ColumnsType } from 'antd/es/table';
import { RESOURCES, formatPercent } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { limitText } from '../../resources/unitFields.js';
import { CopyValue, EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { AdExchangeForm, adExchangeDefaults, endpointHost } from './AdExchangeForm.js';

const COLUMNS: ColumnsType<ResourceRow> = [
  {
    title: 'Endpoint',
    dataIndex: 'endpoint',
    key: 'endpoint',
    width: COLUMN_WIDTHS.copyValue,
    ellipsis: { showTitle: false },
    render: (v: unknown) => <CopyValue value={String(v ?? '')} shown={endpointHost(v)} />,
  },
  {
    title: 'Timeout',
    dataIndex: 'tmaxMs',
    key: 'tmaxMs',
    width: COLUMN_WIDTHS.count,
    align: 'right',
    sorter: true,
    render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, (ms) => `${ms} ms`),
  },
  {
    title: 'QPS limit',
    dataIndex: 'qpsLimit',
    key: 'qpsLimit',
    width: COLUMN_WIDTHS.count,
    align: 'right',
    sorter: true,
    render: (v: unknown) => limitText(v),
  },
  {
    title: 'Seat',
    dataIndex: 'seat',
    key: 'seat',
    width: COLUMN_WIDTHS.account,
    ellipsis: { showTitle: false },
    render: (v: unknown) => orEmpty(v ? String(v) : null, (seat) => <EllipsisText text={seat} />),
  },
  {
    title: 'Margin',
    dataIndex: 'marginPercent',
    key: 'marginPercent',
    width: COLUMN_WIDTHS.percent,
    align: 'right',
    render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, formatPercent),
  },
];

/** Ad exchanges: outbound OpenRTB 2.6 demand the tenant's bidder calls (DSP mode). */
export default function AdExchangesPage() {
  const user = useUser();
  return (
    <ResourceListPage
      def={RESOURCES.adexchanges}
      columns={COLUMNS}
      FormBody={AdExchangeForm}
      defaults={adExchangeDefaults}
      canWrite={user.type === 'demand'}
      drawerWidth={760}
      defaultHidden={['updatedAt', 'seat', 'marginPercent']}
    />
  );
}
