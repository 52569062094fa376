import { type ColumnsType } from 'antd/es/table';
import { RESOURCES, formatPercent } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { limitText } from '../../resources/unitFields.js';
import { CopyValue } from '../../resources/cells.js';
import { AdExchangeForm, adExchangeDefaults, endpointHost } from './AdExchangeForm.js';

const COLUMNS: ColumnsType<ResourceRow> = [
  {
    title: 'Endpoint',
    dataIndex: 'endpoint',
    key: 'endpoint',
    width: 180,
    ellipsis: { showTitle: false },
    render: (v: unknown) => <CopyValue value={String(v ?? '')} shown={endpointHost(v)} />,
  },
  { title: 'Timeout', dataIndex: 'tmaxMs', key: 'tmaxMs', width: 96, align: 'right', sorter: true, render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, (ms) => `${ms} ms`) },
  { title: 'QPS limit', dataIndex: 'qpsLimit', key: 'qpsLimit', width: 90, align: 'right', sorter: true, render: (v: unknown) => limitText(v) },
  { title: 'Seat', dataIndex: 'seat', key: 'seat', width: 100, ellipsis: true, render: (v: unknown) => orEmpty(v ? String(v) : null) },
  { title: 'Margin', dataIndex: 'marginPercent', key: 'marginPercent', width: 80, align: 'right', render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, formatPercent) },
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
      nameWidth={180}
      defaultHidden={['updatedAt', 'marginPercent']}
    />
  );
}
