import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, DatePicker, Modal, Select, Space, Spin, Table, Tooltip } from 'antd';
import { FunnelPlotOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { EChart } from '../../components/EChart.js';
import { formatPercent, type MetricId, type ReportRow } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { reportsApi } from '../../api/reports.js';
import { errorText } from '../../errors/messages.js';
import { DATE_PRESETS, type DatePreset, PRESET_LABELS, presetRange } from './reportState.js';

/** The fill funnel's stages, in order, as catalogue metrics. */
export const FUNNEL_STAGES: { metric: MetricId; label: string }[] = [
  { metric: 'reqs', label: 'Requests' },
  { metric: 'opps', label: 'Eligible' },
  { metric: 'demandCalls', label: 'Called' },
  { metric: 'responses', label: 'Answered' },
  { metric: 'bids', label: 'Bid' },
  { metric: 'wins', label: 'Won' },
  { metric: 'imps', label: 'Impressions' },
];

type Subject = { dimension: 'channel' | 'tag'; id: number; name: string };

/**
 * "Why did it not fill?" for a channel or a demand tag over any dates: the funnel from requests to
 * impressions, and how many opportunities each no-fill reason the edge recorded took.
 */
export function FillFunnel({ subject }: { subject: Subject }) {
  const user = useUser();
  const timezone = user.timezone ?? 0;
  const [range, setRange] = useState(() => presetRange('last7', timezone));
  const [funnel, setFunnel] = useState<ReportRow | null>(null);
  const [reasons, setReasons] = useState<ReportRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    let alive = true;
    setLoading(true);
    setError(null);
    const base = { ...range, timezone, filters: { [subject.dimension]: [subject.id] } };
    Promise.all([
      reportsApi.run({ ...base, metrics: FUNNEL_STAGES.map((s) => s.metric) }),
      reportsApi.run({ ...base, dimensions: ['nofill_reason'], metrics: ['opps'], sort: { by: 'opps', order: 'desc' } }),
    ])
      .then(([totals, byReason]) => {
        if (!alive) return;
        setFunnel(totals.at(-1) ?? null);
        setReasons(byReason.filter((r) => !r.total && r.nofill_reason !== ''));
      })
      .catch((e: unknown) => alive && setError(errorText(e)))
      .finally(() => alive && setLoading(false));
    return () => {
      alive = false;
    };
  }, [range, timezone, subject.dimension, subject.id]);

  const unfilled = reasons.reduce((sum, r) => sum + Number(r.opps ?? 0), 0);
  const option = useMemo(() => {
    if (!funnel) return null;
    const values = FUNNEL_STAGES.map((s) => Number(funnel[s.metric] ?? 0));
    return {
      tooltip: { trigger: 'axis' as const },
      grid: { left: 100, right: 60, top: 10, bottom: 20 },
      xAxis: { type: 'value' as const },
      yAxis: { type: 'category' as const, inverse: true, data: FUNNEL_STAGES.map((s) => s.label) },
      series: [{ type: 'bar' as const, data: values, label: { show: true, position: 'right' as const, formatter: (p: { value: number }) => p.value.toLocaleString('en-US') } }],
    };
  }, [funnel]);

  return (
    <div data-testid="fill-funnel">
      <Space wrap style={{ marginBottom: 12 }}>
        <DatePicker.RangePicker
          allowClear={false}
          value={[dayjs(range.startDate), dayjs(range.endDate)]}
          onChange={(r) => r?.[0] && r[1] && setRange({ startDate: r[0].format('YYYY-MM-DD'), endDate: r[1].format('YYYY-MM-DD') })}
        />
        <Select<DatePreset> placeholder="Presets" style={{ width: 150 }} value={null as unknown as DatePreset} onChange={(p) => setRange(presetRange(p, timezone))} options={DATE_PRESETS.map((p) => ({ value: p, label: PRESET_LABELS[p] }))} />
      </Space>
      {error && <Alert type="error" showIcon title="The funnel could not load" description={error} />}
      <Spin spinning={loading}>
        {option && <EChart option={option} style={{ height: 260 }} />}
        {funnel && (
          <p data-testid="fill-funnel-summary">
            {Number(funnel.imps ?? 0).toLocaleString('en-US')} impressions from {Number(funnel.opps ?? 0).toLocaleString('en-US')} eligible opportunities (fill{' '}
            {formatPercent(Number(funnel.opps) ? (Number(funnel.imps) / Number(funnel.opps)) * 100 : 0)}).
          </p>
        )}
        <Table<ReportRow>
          size="small"
          pagination={false}
          rowKey={(r) => String(r.nofill_reason)}
          dataSource={reasons}
          locale={{ emptyText: 'No no-fill reasons recorded for these dates' }}
          data-testid="fill-funnel-reasons"
          columns={[
            { key: 'reason', title: 'No-fill reason', render: (_, r) => String(r.nofill_reason) },
            { key: 'opps', title: 'Opportunities', align: 'right', render: (_, r) => Number(r.opps).toLocaleString('en-US') },
            { key: 'share', title: 'Share of unfilled', align: 'right', render: (_, r) => formatPercent(unfilled ? (Number(r.opps) / unfilled) * 100 : 0) },
          ]}
        />
      </Spin>
    </div>
  );
}

/** A row action of the channel and demand tag lists that opens the fill funnel. */
export function FillFunnelButton({ subject }: { subject: Subject }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Tooltip title="Fill funnel: why did it not fill?">
        <Button type="text" size="small" icon={<FunnelPlotOutlined />} aria-label="fill funnel" onClick={() => setOpen(true)} data-testid={`fill-funnel-${subject.id}`} />
      </Tooltip>
      <Modal open={open} onCancel={() => setOpen(false)} footer={null} width={760} title={`Fill funnel: ${subject.name}`} destroyOnHidden>
        {open && <FillFunnel subject={subject} />}
      </Modal>
    </>
  );
}
