import { useEffect, useState } from 'react';
import { Alert, Button, ConfigProvider, Modal, Space, Spin, Table, Typography } from 'antd';
import { ExperimentOutlined } from '@ant-design/icons';
import { formatUsdMicros, isDimensionVisible, isMetricVisible } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { reportsApi } from '../../api/reports.js';
import { errorText } from '../../errors/messages.js';
import { EmptyValue } from '../../components/EmptyValue.js';
import { presetRange } from '../report/reportState.js';
import { DayRangePicker } from '../report/DayRangePicker.js';
import {
  type ArmResult,
  MIN_HOURS,
  MIN_REQUESTS,
  type SplitResult,
  splitReport,
  splitResultOf,
  type SplitVerdict,
} from './splitResult.js';

const count = (n: number) => n.toLocaleString('en-US');

/** The comparison in a sentence: significant, not significant, or too few requests yet. */
function verdictText(verdict: SplitVerdict, arms: readonly ArmResult[]): string {
  switch (verdict.kind) {
    case 'none':
      return 'No requests were served by either arm in these dates.';
    case 'too_few': {
      const short = arms.filter((a) => verdict.short.includes(a.arm));
      const which = short
        .map(
          (a) =>
            `arm ${a.arm} has ${count(a.requests)} request${a.requests === 1 ? '' : 's'} over ${a.hours} hour${a.hours === 1 ? '' : 's'}`,
        )
        .join(', ');
      return `Too few requests to compare yet: each arm needs at least ${count(MIN_REQUESTS)} requests over ${MIN_HOURS} hours${which ? ` (${which})` : ''}.`;
    }
    case 'not_significant':
      return 'Not significant: the 95% intervals overlap, so neither arm earns more per 1,000 requests than chance would explain. Keep the split running or pick a longer range.';
    case 'significant': {
      const winner = arms.find((a) => a.arm === verdict.better)!;
      const loser = arms.find((a) => a.arm !== verdict.better)!;
      const lift = Number.isFinite(verdict.liftPercent) ? ` (+${verdict.liftPercent.toFixed(1)}%)` : '';
      return `Arm ${winner.arm} earns more per 1,000 requests: ${formatUsdMicros(winner.rpm!)} against ${formatUsdMicros(loser.rpm!)}${lift}, and the 95% intervals do not overlap.`;
    }
  }
}

const VERDICT_TYPE: Record<SplitVerdict['kind'], 'success' | 'info' | 'warning'> = {
  none: 'info',
  too_few: 'warning',
  not_significant: 'info',
  significant: 'success',
};

/** The arms side by side and the verdict (what the modal shows once the report has answered). */
export function SplitResultView({ result }: { result: SplitResult }) {
  return (
    <div data-testid="split-result">
      <Table<ArmResult>
        size="small"
        pagination={false}
        rowKey="arm"
        dataSource={result.arms}
        data-testid="split-result-table"
        onRow={(a) => ({ 'data-testid': `split-arm-${a.arm}` }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          { key: 'arm', title: 'Arm', render: (_, a) => <strong>{a.arm}</strong> },
          { key: 'requests', title: 'Requests', align: 'right', render: (_, a) => count(a.requests) },
          { key: 'imps', title: 'Impressions', align: 'right', render: (_, a) => count(a.impressions) },
          { key: 'revenue', title: 'Revenue', align: 'right', render: (_, a) => formatUsdMicros(a.revenue) },
          {
            key: 'rpm',
            title: 'Revenue per 1,000 requests',
            align: 'right',
            render: (_, a) => (a.rpm === null ? <EmptyValue /> : formatUsdMicros(a.rpm)),
          },
          {
            key: 'interval',
            title: '95% interval',
            align: 'right',
            render: (_, a) =>
              a.low === null || a.high === null ? (
                <EmptyValue />
              ) : (
                <span data-testid={`split-interval-${a.arm}`}>
                  {formatUsdMicros(a.low)} – {formatUsdMicros(a.high)}
                </span>
              ),
          },
        ]}
      />
      <Alert
        style={{ marginTop: 12 }}
        showIcon
        type={VERDICT_TYPE[result.verdict.kind]}
        title={<span data-testid="split-verdict">{verdictText(result.verdict, result.arms)}</span>}
      />
      <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
        Each hour (each day, over more than 120 days) is one sample: the interval of revenue per 1,000 requests is
        estimated over the samples of each arm (the delta method for a ratio).
        {result.unsplitRequests > 0 &&
          ` ${count(result.unsplitRequests)} requests in these dates were served without a split and are left out.`}
      </Typography.Paragraph>
    </div>
  );
}

/** The channel's report by hour and arm over a range (last 7 days first), read as the A/B result. */
function SplitResultPanel({ channelId }: { channelId: number }) {
  const user = useUser();
  const timezone = user.timezone ?? 0;
  const [range, setRange] = useState(() => presetRange('last7', timezone));
  const [result, setResult] = useState<SplitResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    let alive = true;
    setLoading(true);
    setError(null);
    reportsApi
      .run(splitReport(channelId, range, timezone))
      .then((rows) => alive && setResult(splitResultOf(rows)))
      .catch((e: unknown) => alive && setError(errorText(e)))
      .finally(() => alive && setLoading(false));
    return () => {
      alive = false;
    };
  }, [channelId, range, timezone]);

  return (
    <>
      <Space wrap style={{ marginBottom: 12 }}>
        <DayRangePicker range={range} onChange={setRange} timezone={timezone} />
      </Space>
      {error && <Alert type="error" showIcon title="The A/B result could not load" description={error} />}
      <Spin spinning={loading}>{result && <SplitResultView result={result} />}</Spin>
    </>
  );
}

/** Opens a split channel's A/B result, for the users who may read its requests and arms. */
export function SplitResultButton({ channelId, channelName }: { channelId: number; channelName: string }) {
  const user = useUser();
  const [open, setOpen] = useState(false);
  if (!isDimensionVisible(user, 'arm') || !isMetricVisible(user, 'reqs')) return null;
  return (
    // Readable when the drawer is read-only (an archived channel).
    <ConfigProvider componentDisabled={false}>
      <Button icon={<ExperimentOutlined />} onClick={() => setOpen(true)} data-testid="channel-split-result">
        A/B result
      </Button>
      <Modal
        open={open}
        onCancel={() => setOpen(false)}
        footer={null}
        width={820}
        title={`A/B result: ${channelName}`}
        destroyOnHidden
      >
        {open && <SplitResultPanel channelId={channelId} />}
      </Modal>
    </ConfigProvider>
  );
}
