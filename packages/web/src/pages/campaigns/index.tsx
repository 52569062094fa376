import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { usd } from '../../resources/fields.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { FlightCell } from '../dsp/FlightCell.js';
import { limitText } from '../../resources/unitFields.js';
import { nameOf, useNames } from '../dsp/names.js';
import { CampaignForm, PACING_OPTIONS } from './CampaignForm.js';
import { campaignDefaults, campaignToBody, campaignToForm } from './campaignValues.js';

const PACING_LABELS = new Map(PACING_OPTIONS.map((o) => [o.value, o.label]));
const budget = (v: unknown) => limitText(v, usd);

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
        width: 116,
        sorter: true,
        render: (_: unknown, row) => <FlightCell start={row.startDate} end={row.endDate} />,
      },
      { title: 'Bid CPM', dataIndex: 'bidCpm', key: 'bidCpm', width: 96, align: 'right', sorter: true, render: usd },
      {
        title: 'Budget',
        key: 'totalBudget',
        width: 132,
        align: 'right',
        sorter: true,
        render: (_: unknown, row) => (
          <div>
            <div>{budget(row.totalBudget)}</div>
            <Typography.Text type="secondary">{budget(row.dailyBudget)} a day</Typography.Text>
          </div>
        ),
      },
      { title: 'Pacing', dataIndex: 'pacing', key: 'pacing', width: 76, render: (v: string) => PACING_LABELS.get(v) ?? v },
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
    />
  );
}
