import { Badge, Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { usd } from '../../resources/fields.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { EllipsisText } from '../../resources/cells.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { type MetricColumn, METRIC_KEY_PREFIX } from '../../resources/rowMetrics.js';
import { FlightCell } from '../dsp/FlightCell.js';
import { useNames } from '../dsp/names.js';
import { AdvertiserName } from '../dsp/AdvertiserName.js';
import { budgetCell } from './budgetView.js';
import { CampaignForm, PACING_OPTIONS } from './CampaignForm.js';
import { channelAssignmentText } from './channelAssignmentText.js';
import { campaignDefaults, campaignToBody, campaignToForm } from './campaignValues.js';
import { pacingOf, useCampaignPacing } from './livePacing.js';
import { PACING_STATE_COLORS, pacingCellText, pacingTooltipLines, spentOfTarget } from './pacingView.js';

const PACING_LABELS = new Map(PACING_OPTIONS.map((o) => [o.value, o.label]));

/** Live spend today against the target so far (the delivery counters), with its state and why in the tooltip. */
function LivePacingCell({ row }: { row: ResourceRow }) {
  const { pacing: p, error } = useCampaignPacing(row.id);
  if (!p && error)
    return (
      <Tooltip title={`The live pacing could not be loaded: ${error}`}>
        <Typography.Text type="danger" data-testid={`metric-pacing-error-${row.id}`}>
          Not loaded
        </Typography.Text>
      </Tooltip>
    );
  if (!p) return <Typography.Text type="secondary">…</Typography.Text>;
  // Red is for a campaign that should deliver and does not; one that is paused, archived or outside
  // its flight is not expected to spend, so its dot stays grey.
  const expectedIdle =
    p.state === 'not_delivering' &&
    (row.status !== 1 ||
      Boolean(row.archived) ||
      (typeof row.startDate === 'string' && row.startDate > p.day) ||
      (typeof row.endDate === 'string' && row.endDate !== '' && row.endDate < p.day));
  return (
    <Tooltip title={pacingTooltipLines(p).map((line) => <div key={line}>{line}</div>)}>
      <span
        className="metric-cell"
        data-testid={`metric-pacing-${row.id}`}
        data-state={p.state}
        data-spent={p.spentToday}
        data-target={p.targetSoFar ?? ''}
      >
        <Badge color={expectedIdle ? '#bfbfbf' : PACING_STATE_COLORS[p.state]} style={{ marginInlineEnd: 4 }} />
        {pacingCellText(p)}
      </span>
    </Tooltip>
  );
}

/** The pacing column: asks the live pacing of the rows on screen (one call), sorted by spent over target. */
function pacingColumn(): MetricColumn[] {
  return [
    {
      key: `${METRIC_KEY_PREFIX}pacing`,
      label: 'Pacing',
      title: (
        <Tooltip title="Spent today against the target so far (even pacing: the daily budget's share of the day gone), live from the ad server, in the account's day">
          <span>Pacing today</span>
        </Tooltip>
      ),
      align: 'right',
      width: 128,
      sorter: true,
      sortValue: (row) => {
        const p = pacingOf(row.id);
        return p ? (spentOfTarget(p) ?? p.spentToday / 1e12) : -1;
      },
      render: (_: unknown, row) => <LivePacingCell row={row} />,
    },
  ];
}

/** Campaigns: what the tenant buys, when, at what bid and budget, through which supply (DSP mode). */
export default function CampaignsPage() {
  const user = useUser();
  const advertisers = useNames('advertisers');
  const channels = useNames('channels');

  const columns = useMemo<ColumnsType<ResourceRow>>(
    () => [
      {
        title: 'Advertiser',
        dataIndex: 'advertiserId',
        key: 'advertiserId',
        width: COLUMN_WIDTHS.account,
        ellipsis: { showTitle: false },
        render: (id: unknown) => <AdvertiserName names={advertisers} id={id} />,
      },
      {
        title: 'Flight',
        key: 'startDate',
        width: COLUMN_WIDTHS.flight,
        sorter: true,
        render: (_: unknown, row) => <FlightCell start={row.startDate} end={row.endDate} />,
      },
      {
        title: 'Bid CPM',
        dataIndex: 'bidCpm',
        key: 'bidCpm',
        width: COLUMN_WIDTHS.money,
        align: 'right',
        sorter: true,
        render: usd,
      },
      {
        title: 'Budget',
        key: 'totalBudget',
        width: COLUMN_WIDTHS.budget,
        align: 'right',
        sorter: true,
        ellipsis: { showTitle: false },
        // The total first: of budgets too long for the column (millions, cents) the ellipsis cuts the daily one, exact on hover.
        render: (_: unknown, row) => {
          const { total, daily, full } = budgetCell(row.totalBudget, row.dailyBudget);
          return (
            <EllipsisText text={full}>
              {total}
              {daily && <Typography.Text type="secondary"> · {daily}</Typography.Text>}
            </EllipsisText>
          );
        },
      },
      {
        title: 'Pacing mode',
        dataIndex: 'pacing',
        key: 'pacing',
        width: 100,
        render: (v: string) => PACING_LABELS.get(v) ?? v,
      },
      {
        title: 'Channels',
        dataIndex: 'channelScope',
        key: 'channelScope',
        width: 180,
        ellipsis: { showTitle: false },
        render: (_: unknown, row) => (
          <EllipsisText text={channelAssignmentText(row.channelScope, row.channelIds, channels)} />
        ),
      },
    ],
    [advertisers, channels],
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
      // the channels a column choice away, as the advertiser: with them the list is wider than a 1280 px window
      defaultHidden={['updatedAt', 'advertiserId', 'pacing', 'channelScope', 'm_bids', 'm_wins']}
      metricExtras={pacingColumn}
    />
  );
}
