import { Alert, Col, Progress, Row, Skeleton, Statistic, Tag, Tooltip, Typography } from 'antd';
import { useMemo } from 'react';
import { PACING_STATE_LABELS } from '@adplane/shared';
import { EChart } from '../../components/EChart.js';
import { useCampaignPacing } from './livePacing.js';
import {
  PACING_STATE_COLORS,
  pacingChartOption,
  pacingMoney,
  pacingTooltipLines,
  spentOfTarget,
} from './pacingView.js';

/**
 * A campaign's pacing today, live from the delivery counters (what the edge has counted, not the
 * reports): spent, the target so far, the projection at the last hour's rate, the total, its state,
 * and the day's spend per hour against the even-pace line. Refreshed every 15 seconds.
 */
export function PacingPanel({ campaignId }: { campaignId: number }) {
  const { pacing: p, error } = useCampaignPacing(campaignId);
  const option = useMemo(() => (p ? pacingChartOption(p) : null), [p]);
  if (!p && error)
    return (
      <Alert
        type="error"
        showIcon
        title="The live pacing could not be loaded"
        description={`${error}. It is asked again every 15 seconds.`}
        data-testid="pacing-error"
      />
    );
  if (!p)
    return (
      <div data-testid="pacing-loading" aria-busy="true">
        <Skeleton active paragraph={{ rows: 3 }} />
      </div>
    );
  const ratio = spentOfTarget(p);
  const daily = p.dailyBudget === 'unlimited' ? null : p.dailyBudget;
  return (
    <section className="pacing-panel" data-testid="pacing-panel" data-state={p.state}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 8 }}>
        <Tooltip title={pacingTooltipLines(p).map((l) => <div key={l}>{l}</div>)}>
          <Tag color={PACING_STATE_COLORS[p.state]} data-testid="pacing-state">
            {PACING_STATE_LABELS[p.state]}
          </Tag>
        </Tooltip>
        <Typography.Text type="secondary" data-testid="pacing-reason">
          {p.reason} · {p.pacing === 'even' ? 'even pacing' : 'ASAP'}
        </Typography.Text>
      </div>
      {p.state === 'not_delivering' && p.reason.startsWith('No spend') && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 8 }}
          title="Not spending right now"
          description="Check the flight, the bid against the floors, the targeting and the creatives' approval."
        />
      )}
      <Row gutter={16}>
        <Col span={6}>
          <Statistic title="Spent today" value={pacingMoney(p.spentToday)} data-testid="pacing-spent" />
        </Col>
        <Col span={6}>
          <Statistic title="Target so far" value={pacingMoney(p.targetSoFar)} data-testid="pacing-target" />
        </Col>
        <Col span={6}>
          <Statistic title="Projected today" value={pacingMoney(p.projected)} data-testid="pacing-projected" />
        </Col>
        <Col span={6}>
          <Statistic
            title="Total spent"
            value={pacingMoney(p.totalSpent)}
            suffix={
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                of {pacingMoney(p.totalBudget)}
              </Typography.Text>
            }
            data-testid="pacing-total"
          />
        </Col>
      </Row>
      {daily !== null && (
        <Tooltip title={ratio === null ? undefined : `${Math.round(ratio * 100)}% of the target so far`}>
          <Progress
            percent={Math.min((p.spentToday / Math.max(daily, 1)) * 100, 100)}
            success={{
              percent: Math.min(((p.targetSoFar ?? 0) / Math.max(daily, 1)) * 100, 100),
              strokeColor: '#d9d9d9',
            }}
            format={() => `${pacingMoney(p.spentToday)} of ${pacingMoney(daily)}`}
            size="small"
            style={{ marginTop: 8 }}
          />
        </Tooltip>
      )}
      {option && <EChart option={option} style={{ height: 200 }} testId="pacing-chart" />}
    </section>
  );
}
