import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Modal, Space, Spin, Table, Tooltip } from 'antd';
import { FunnelPlotOutlined } from '@ant-design/icons';
import { EChart } from '../../components/EChart.js';
import { formatPercent, type ReportRow } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { reportsApi } from '../../api/reports.js';
import { errorText } from '../../errors/messages.js';
import {
  FUNNELS,
  funnelReasons,
  funnelReports,
  type FunnelReason,
  type FunnelSubject,
  funnelValues,
} from './funnelStages.js';
import { presetRange } from './reportState.js';
import { DataCredits } from '../../components/DataCredits.js';
import { DayRangePicker } from './DayRangePicker.js';

/**
 * "Why did it not fill?" for a channel or a demand tag over any dates: the funnel from requests to
 * impressions, and how many requests ended unfilled for each reason the edge recorded. The stages
 * depend on the subject (funnelStages.ts): a channel's requests, or the times a tag was considered.
 */
function FillFunnel({ subject }: { subject: FunnelSubject }) {
  const user = useUser();
  const timezone = user.timezone ?? 0;
  const [range, setRange] = useState(() => presetRange('last7', timezone));
  const [funnel, setFunnel] = useState<ReportRow | null>(null);
  const [reasons, setReasons] = useState<FunnelReason[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const plan = FUNNELS[subject.dimension];

  useEffect(() => {
    let alive = true;
    setLoading(true);
    setError(null);
    const reports = funnelReports({ dimension: subject.dimension, id: subject.id }, range, timezone);
    Promise.all([reportsApi.run(reports.stages), reportsApi.run(reports.reasons)])
      .then(([totals, byReason]) => {
        if (!alive) return;
        setFunnel(totals.at(-1) ?? null);
        setReasons(funnelReasons(byReason, subject.dimension));
      })
      .catch((e: unknown) => alive && setError(errorText(e)))
      .finally(() => alive && setLoading(false));
    return () => {
      alive = false;
    };
  }, [range, timezone, subject.dimension, subject.id]);

  const unfilled = reasons.reduce((sum, r) => sum + r.count, 0);
  const values = useMemo(() => (funnel ? funnelValues(funnel, subject.dimension) : null), [funnel, subject.dimension]);
  const option = useMemo(() => {
    if (!values) return null;
    return {
      tooltip: { trigger: 'axis' as const },
      grid: { left: 100, right: 60, top: 10, bottom: 20 },
      xAxis: { type: 'value' as const },
      yAxis: { type: 'category' as const, inverse: true, data: plan.stages.map((s) => s.label) },
      series: [
        {
          type: 'bar' as const,
          data: values,
          label: {
            show: true,
            position: 'right' as const,
            formatter: (p: { value: number }) => p.value.toLocaleString('en-US'),
          },
        },
      ],
    };
  }, [values, plan]);
  const count = (metric: string) => Number(funnel?.[metric] ?? 0);

  return (
    <div data-testid="fill-funnel">
      <Space wrap style={{ marginBottom: 12 }}>
        <DayRangePicker range={range} onChange={setRange} timezone={timezone} />
      </Space>
      {error && <Alert type="error" showIcon title="The funnel could not load" description={error} />}
      <Spin spinning={loading}>
        {option && <EChart option={option} style={{ height: 260 }} />}
        {funnel && (
          <p data-testid="fill-funnel-summary">
            {count('imps').toLocaleString('en-US')} impressions from {count(plan.eligible).toLocaleString('en-US')}{' '}
            eligible opportunities of{' '}
            <span data-testid="fill-funnel-requests">{count(plan.requests).toLocaleString('en-US')}</span>{' '}
            {subject.dimension === 'tag' ? 'demand requests' : 'requests'} (fill{' '}
            {formatPercent(count(plan.eligible) ? (count('imps') / count(plan.eligible)) * 100 : 0)}).
          </p>
        )}
        <Table<FunnelReason>
          size="small"
          pagination={false}
          rowKey={(r) => r.reason}
          dataSource={reasons}
          locale={{ emptyText: 'No no-fill reasons recorded for these dates' }}
          data-testid="fill-funnel-reasons"
          columns={[
            { key: 'reason', title: 'No-fill reason', render: (_, r) => r.reason },
            { key: 'count', title: 'Requests', align: 'right', render: (_, r) => r.count.toLocaleString('en-US') },
            {
              key: 'share',
              title: 'Share of unfilled',
              align: 'right',
              render: (_, r) => formatPercent(unfilled ? (r.count / unfilled) * 100 : 0),
            },
          ]}
        />
        <DataCredits />
      </Spin>
    </div>
  );
}

/** A row action of the channel and demand tag lists that opens the fill funnel. */
export function FillFunnelButton({ subject }: { subject: FunnelSubject }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Tooltip title="Fill funnel: why did it not fill?">
        <Button
          type="text"
          size="small"
          icon={<FunnelPlotOutlined />}
          aria-label="fill funnel"
          onClick={() => setOpen(true)}
          data-testid={`fill-funnel-${subject.id}`}
        />
      </Tooltip>
      <Modal
        open={open}
        onCancel={() => setOpen(false)}
        footer={null}
        width={760}
        title={`Fill funnel: ${subject.name}`}
        destroyOnHidden
      >
        {open && <FillFunnel subject={subject} />}
      </Modal>
    </>
  );
}
