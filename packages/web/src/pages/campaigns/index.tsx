import { Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { formatPercent, formatUsdMicros, RESOURCES, ROW_STATS_PERIOD_LABELS, type RowStatsPeriod } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { usd } from '../../resources/fields.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { type MetricColumn, METRIC_KEY_PREFIX, type RowValues } from '../../resources/rowMetrics.js';
import { FlightCell } from '../dsp/FlightCell.js';
import { limitText } from '../../resources/unitFields.js';
import { nameOf, useNames } from '../dsp/names.js';
import { CampaignForm, PACING_OPTIONS } from './CampaignForm.js';
import { campaignDefaults, campaignToBody, campaignToForm } from './campaignValues.js';
import { pacingOf } from './pacing.js';

const PACING_LABELS = new Map(PACING_OPTIONS.map((o) => [o.value, o.label]));
const budget = (v: unknown) => limitText(v, usd);

/** Spend against the daily budget over the period, beside the numbers (sorted on the page like them). */
function pacingColumn(valueOf: (row: ResourceRow) => RowValues | undefined, period: RowStatsPeriod, loading: boolean): MetricColumn[] {
  const pacing = (row: ResourceRow) => pacingOf(valueOf(row)?.revenue ?? 0, row.dailyBudget, period);
  return [
    {
      key: `${METRIC_KEY_PREFIX}pacing`,
      label: 'Pacing',
      title: (
        <Tooltip title="Spend over the daily budget times the days of the period">
          <span>Pacing</span>
        </Tooltip>
      ),
      align: 'right',
      width: 84,
      sorter: true,
      sortValue: (row) => pacing(row)?.percent ?? -1,
      render: (_: unknown, row) => {
        if (loading) return <Typography.Text type="secondary">…</Typography.Text>;
        const p = pacing(row);
        if (!p) return <Typography.Text type="secondary">no daily cap</Typography.Text>;
        return (
          <Tooltip title={`${formatUsdMicros(valueOf(row)?.revenue ?? 0)} of ${formatUsdMicros(p.budget)} (${ROW_STATS_PERIOD_LABELS[period].toLowerCase()})`}>
            <span className="metric-cell" data-testid={`metric-pacing-${row.id}`}>
              {formatPercent(p.percent)}
            </span>
          </Tooltip>
        );
      },
    },
  ];
}

/** Campaigns: what the tenant buys, when, at what bid and budget, through which supply (DSP mode). */
export default function CampaignsPage() {
  const user = useUser();
  const advertisers = useNames('advertisers');

  const columns = useMemo<ColumnsType<ResourceRow>>(
    () => [
      { title: 'Advertiser', dataIndex: 'advertiserId', key: 'advertiserId', width: 140, ellipsis: true, render: (id: unknown) => nameOf(advertisers, id) },
      {
        title: 'Flight',
        key: 'startDate',
        width: 178,
        sorter: true,
        render: (_: unknown, row) => <FlightCell start={row.startDate} end={row.endDate} />,
      },
      { title: 'Bid CPM', dataIndex: 'bidCpm', key: 'bidCpm', width: 96, align: 'right', sorter: true, render: usd },
      {
        title: 'Budget',
        key: 'totalBudget',
        width: 186,
        align: 'right',
        sorter: true,
        render: (_: unknown, row) => (
          <span>
            {budget(row.totalBudget)}
            {row.dailyBudget !== 'unlimited' && <Typography.Text type="secondary"> · {budget(row.dailyBudget)} a day</Typography.Text>}
          </span>
        ),
      },
      { title: 'Pacing mode', dataIndex: 'pacing', key: 'pacing', width: 100, render: (v: string) => PACING_LABELS.get(v) ?? v },
    ],
    [advertisers],
  );

  return (
    <ResourceListPage
      def={RESOURCES.campaigns}
      columns={columns}
      FormBody={CampaignForm}
      defaults={campaignDefaults}
      toForm={campaignToForm}
      toBody={campaignToBody}
      canWrite={user.type === 'demand'}
      drawerWidth={760}
      nameWidth={180}
      defaultHidden={['updatedAt', 'advertiserId', 'pacing', 'm_bids']}
      metricExtras={pacingColumn}
    />
  );
}
