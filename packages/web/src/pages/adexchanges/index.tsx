import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES, formatPercent } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { limitText } from '../../resources/unitFields.js';
import { AdExchangeForm, adExchangeDefaults, endpointHost } from './AdExchangeForm.js';

const COLUMNS: ColumnsType<ResourceRow> = [
  {
    title: 'Endpoint host',
    dataIndex: 'endpoint',
    key: 'endpoint',
    ellipsis: { showTitle: false },
    render: (v: unknown) => (
      <span className="dsp-mono" title={String(v ?? '')}>
        {endpointHost(v)}
      </span>
    ),
  },
  { title: 'Timeout (tmax)', dataIndex: 'tmaxMs', key: 'tmaxMs', width: 124, align: 'right', sorter: true, render: (v: unknown) => (typeof v === 'number' ? `${v} ms` : '') },
  { title: 'QPS limit', dataIndex: 'qpsLimit', key: 'qpsLimit', width: 100, align: 'right', sorter: true, render: (v: unknown) => limitText(v) },
  { title: 'Seat', dataIndex: 'seat', key: 'seat', width: 110, ellipsis: true, render: (v: unknown) => (v ? String(v) : <Typography.Text type="secondary">none</Typography.Text>) },
  { title: 'Margin', dataIndex: 'marginPercent', key: 'marginPercent', width: 80, align: 'right', render: (v: unknown) => (typeof v === 'number' ? formatPercent(v) : '') },
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
    />
  );
}
