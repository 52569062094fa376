import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Card, Col, Row, Statistic, Table, Typography } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { EChart } from '../../components/EChart.js';
import { lineWithPartialHour, partialHourTooltip, SERIES_COLORS } from '../../components/partialHour.js';
import {
  type DashboardAnswer,
  formatMetric,
  formatTimezone,
  formatUsdAxis,
  isMetricVisible,
  type MetricId,
  type ReportRow,
  type UserType,
} from '@adplane/shared';
import { Link } from 'react-router';
import { statsApi } from '../../api/stats.js';
import { useAuth, useUser } from '../../auth/authContext.js';
import { errorText } from '../../errors/messages.js';
import { EMPTY_MARK } from '../../format/empty.js';
import { DashboardStatsSkeleton } from './DashboardStatsSkeleton.js';
import { type TopList, topListsFor, topRowsOf } from './topLists.js';

type StatCard = { id: MetricId; label: string };

/**
 * The numbers each role looks at first. The tenant (and admins) watch revenue against what they pay
 * out; a subpublisher the revenue and fill of its channels; an advertiser its delivery: what it
 * spent, for how many impressions, at what eCPM. Nobody is shown another party's margin.
 */
function cardsFor(type: UserType): StatCard[] {
  // Only the numbers the server answers the type (visibility.ts): a card it may not see would read 0.
  return roleCards(type).filter((card) => isMetricVisible({ type }, card.id));
}

function roleCards(type: UserType): StatCard[] {
  switch (type) {
    case 'sub':
      return [
        { id: 'revenue', label: 'Revenue' },
        { id: 'imps', label: 'Impressions' },
        { id: 'fill', label: 'Fill' },
        { id: 'reqs', label: 'Requests' },
        { id: 'ecpm', label: 'eCPM' },
      ];
    case 'adv':
      return [
        { id: 'revenue', label: 'Spend' },
        { id: 'imps', label: 'Impressions' },
        { id: 'ecpm', label: 'eCPM' },
      ];
    default:
      return [
        { id: 'revenue', label: 'Revenue' },
        { id: 'cost', label: 'Cost' },
        { id: 'profit', label: 'Profit' },
        { id: 'imps', label: 'Impressions' },
        { id: 'fill', label: 'Fill' },
      ];
  }
}

/** Averages over the week: sums per day, ratios over the whole week. */
const RATIOS = new Set<MetricId>(['fill', 'ecpm']);

function change(now: number, before: number): { text: string; up: boolean } | null {
  if (!before) return null;
  const pct = ((now - before) / Math.abs(before)) * 100;
  return { text: `${Math.abs(pct).toFixed(1)}%`, up: pct >= 0 };
}

/** A top list of the week (topLists.ts), from the dashboard answer. */
function TopTable({ list, rows }: { list: TopList; rows: ReportRow[] }) {
  const { dimension, third } = list;
  return (
    <Card size="small" title={list.title} data-testid={list.testId}>
      <Table<ReportRow>
        size="small"
        pagination={false}
        rowKey={(r) => String(r[dimension])}
        dataSource={rows}
        locale={{ emptyText: 'No traffic this week' }}
        columns={[
          {
            key: 'name',
            title: 'Name',
            render: (_, r) => String(r[`${dimension}_name`] || `#${String(r[dimension])}`),
          },
          {
            key: 'revenue',
            title: list.revenueLabel,
            align: 'right',
            render: (_, r) => formatMetric('revenue', r.revenue as number),
          },
          {
            key: 'imps',
            title: 'Impressions',
            align: 'right',
            render: (_, r) => formatMetric('imps', r.imps as number),
          },
          {
            key: third,
            title: third === 'fill' ? 'Fill' : 'eCPM',
            align: 'right',
            render: (_, r) => formatMetric(third, r[third] as number),
          },
        ]}
      />
    </Card>
  );
}

/** Today's numbers for the user's scope against yesterday and the 7-day daily average, with the trend. */
export function DashboardStats() {
  const user = useUser();
  const ownMargin = isMetricVisible(user, 'profit');
  const revenueLabel = user.type === 'adv' ? 'Spend' : 'Revenue';
  const { mode } = useAuth();
  const topLists = useMemo(() => topListsFor(user.type, mode), [user.type, mode]);
  const [data, setData] = useState<DashboardAnswer | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  // One call: the server answers the top lists of the view asked (the DSP view's campaigns and suppliers too).
  // Until it answers the numbers are a skeleton; if it fails, the error stays in their place with a retry.
  useEffect(() => {
    let active = true;
    setFailed(null);
    statsApi
      .dashboard(mode)
      .then((answer) => {
        if (active) setData(answer);
      })
      .catch((error: unknown) => {
        if (active) setFailed(errorText(error));
      });
    return () => {
      active = false;
    };
  }, [mode, attempt]);

  const hourOption = useMemo(() => {
    if (!data) return null;
    const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
    // The hour the server is still counting (its clock, in the user's zone): today's line reaches it
    // dashed, and the hours after it have not begun (gaps, not zeros).
    const partial = data.hourNow.startsWith(`${data.today} `) ? Number(data.hourNow.slice(11, 13)) : -1;
    const series = (day: string) =>
      hours.map((h, i) =>
        day === data.today && i > partial
          ? null
          : Number(data.hours.find((r) => r.hour === `${day} ${h}:00`)?.revenue ?? 0) / 1_000_000,
      );
    const dollars = (v: number) => `$${v.toFixed(2)}`;
    return {
      tooltip: { trigger: 'axis' as const, formatter: partialHourTooltip(dollars, partial) },
      legend: { top: 0 },
      grid: { left: 60, right: 16, top: 36, bottom: 30 },
      xAxis: { type: 'category' as const, data: hours.map((h) => `${h}:00`) },
      yAxis: { type: 'value' as const, axisLabel: { formatter: formatUsdAxis } },
      series: [
        ...lineWithPartialHour(
          { name: `Today (${data.today})`, type: 'line', smooth: true },
          series(data.today),
          partial,
          SERIES_COLORS[0]!,
        ),
        {
          name: `Yesterday (${data.yesterday})`,
          type: 'line' as const,
          smooth: true,
          data: series(data.yesterday),
          itemStyle: { color: SERIES_COLORS[1] },
          lineStyle: { type: 'dotted' as const, color: SERIES_COLORS[1] },
        },
      ],
    };
  }, [data]);

  const dayOption = useMemo(() => {
    if (!data) return null;
    return {
      tooltip: { trigger: 'axis' as const, valueFormatter: (v: unknown) => `$${Number(v).toFixed(2)}` },
      legend: { top: 0 },
      grid: { left: 60, right: 16, top: 36, bottom: 30 },
      xAxis: { type: 'category' as const, data: data.days.map((r) => String(r.date)) },
      yAxis: { type: 'value' as const, axisLabel: { formatter: formatUsdAxis } },
      series: (ownMargin ? (['revenue', 'cost', 'profit'] as const) : (['revenue'] as const)).map((m) => ({
        name: m === 'revenue' ? revenueLabel : m[0].toUpperCase() + m.slice(1),
        type: 'bar' as const,
        data: data.days.map((r) => Number(r[m] ?? 0) / 1_000_000),
      })),
    };
  }, [data, ownMargin, revenueLabel]);

  if (!data && failed)
    return (
      <Alert
        type="error"
        showIcon
        className="dashboard-stats"
        title="The numbers could not be loaded"
        description={failed}
        action={
          <Button size="small" onClick={() => setAttempt((n) => n + 1)} data-testid="dashboard-stats-retry">
            Try again
          </Button>
        }
        data-testid="dashboard-stats-error"
      />
    );
  if (!data) return <DashboardStatsSkeleton />;
  return (
    <div className="dashboard-stats" data-testid="dashboard-stats">
      <Row gutter={[16, 16]} className="stat-cards">
        {cardsFor(user.type).map(({ id, label }) => {
          const today = Number(data.totals.today[id] ?? 0);
          // today so far against yesterday up to the same hour (the whole of yesterday is beside it)
          const soFar = Number(data.totals.yesterdaySoFar[id] ?? 0);
          const vsYesterday = change(today, soFar);
          const weekAvg = RATIOS.has(id) ? Number(data.totals.last7[id] ?? 0) : Number(data.totals.last7[id] ?? 0) / 7;
          const yesterday = formatMetric(id, Number(data.totals.yesterday[id] ?? 0));
          return (
            <Col key={id} xs={12} md={8} xl={4} flex="1">
              <Card size="small" data-testid={`dashboard-stat-${id}`}>
                <Statistic title={`${label} today`} value={formatMetric(id, today)} />
                {/* Two lines whatever the numbers: each stays on its line, cut with "…" if it must, the whole of it on hover. */}
                <Typography.Text type="secondary" className="dashboard-stat-compare">
                  <span
                    className="dashboard-stat-line"
                    title={`${vsYesterday ? `${vsYesterday.up ? '+' : '-'}${vsYesterday.text}` : EMPTY_MARK} vs this time yesterday (${formatMetric(id, soFar)})`}
                  >
                    {vsYesterday ? (
                      <span style={{ color: vsYesterday.up ? '#389e0d' : '#cf1322' }}>
                        {vsYesterday.up ? <ArrowUpOutlined /> : <ArrowDownOutlined />} {vsYesterday.text}
                      </span>
                    ) : (
                      EMPTY_MARK
                    )}{' '}
                    vs this time yesterday ({formatMetric(id, soFar)})
                  </span>
                  <span
                    className="dashboard-stat-line"
                    title={`yesterday ${yesterday} · 7-day avg ${formatMetric(id, weekAvg)}: ${RATIOS.has(id) ? 'over the last 7 days' : 'daily average over the last 7 days'}`}
                  >
                    yesterday {yesterday} · 7-day avg {formatMetric(id, weekAvg)}
                  </span>
                </Typography.Text>
              </Card>
            </Col>
          );
        })}
      </Row>
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        <Col xs={24} xl={12}>
          <Card
            size="small"
            title={`${revenueLabel} by hour (${formatTimezone(user.timezone ?? 0)})`}
            data-testid="dashboard-hours-chart"
          >
            {hourOption && <EChart option={hourOption} style={{ height: 260 }} testId="dashboard-hours-canvas" />}
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card size="small" title="Last 7 days" data-testid="dashboard-days-chart">
            {dayOption && <EChart option={dayOption} style={{ height: 260 }} />}
          </Card>
        </Col>
        {topLists.map((list) => (
          <Col key={list.testId} xs={24} xl={12}>
            <TopTable list={list} rows={topRowsOf(data, list)} />
          </Col>
        ))}
      </Row>
      {user.type === 'demand' && (
        <Typography.Paragraph className="dashboard-observed" style={{ marginTop: 12 }} data-testid="dashboard-observed">
          Seen in traffic: <Link to="/publishers">Publishers</Link> · <Link to="/sites">Sites</Link> ·{' '}
          <Link to="/applications">Applications</Link> · <Link to="/tcreatives">Creatives</Link>
        </Typography.Paragraph>
      )}
    </div>
  );
}
