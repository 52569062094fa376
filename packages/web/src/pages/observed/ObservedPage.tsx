import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert, Input, Space, Table, Typography } from 'antd';
import { DIMENSION_BY_ID, formatMetric, type MetricId, nameField, type ReportRow } from '@adplane/shared';
import { reportsApi } from '../../api/reports.js';
import { useUser } from '../../auth/authContext.js';
import { errorText } from '../../errors/messages.js';
import { listPagination } from '../../resources/pagination.js';
import { ReportChart } from '../report/ReportChart.js';
import { presetRange } from '../report/reportState.js';
import { AddToListButton } from './AddToList.js';
import { type ObservedKind } from './observedKinds.js';
import { DayRangePicker } from '../report/DayRangePicker.js';

const METRICS: MetricId[] = ['reqs', 'opps', 'imps', 'fill', 'revenue', 'ecpm', 'vtr', 'ivt'];

/**
 * Observed inventory (`/publishers`, `/sites`, `/applications`, `/tcreatives`): the publishers, domains,
 * app bundles and creatives seen in traffic with their numbers; `/{route}/{value}` shows one by day.
 * Rows can be added to the tenant's publisher, app and creative lists.
 */
export function ObservedPage({ kind }: { kind: ObservedKind }) {
  const user = useUser();
  const { id } = useParams();
  const value = id ? decodeURIComponent(id) : null;
  const timezone = user.timezone ?? 0;
  const [range, setRange] = useState(() => presetRange('last7', timezone));
  const [rows, setRows] = useState<ReportRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const entity = DIMENSION_BY_ID[kind.dimension].type === 'entity';

  useEffect(() => {
    setRows(null);
    setError(null);
    const filters = value !== null ? { [kind.dimension]: [entity ? Number(value) : value] } : {};
    const request =
      value !== null
        ? { ...range, timezone, dimensions: ['date' as const], metrics: METRICS, filters }
        : {
            ...range,
            timezone,
            dimensions: [kind.dimension],
            metrics: METRICS,
            sort: { by: 'reqs', order: 'desc' as const },
            limit: 5000,
          };
    reportsApi
      .run(request)
      .then(setRows)
      .catch((e: unknown) => setError(errorText(e)));
  }, [range, timezone, kind.dimension, value, entity]);

  const shown = useMemo(() => {
    const data = (rows ?? []).filter(
      (r) => !r.total && (value !== null || (r[kind.dimension] !== '' && r[kind.dimension] !== 0)),
    );
    const needle = search.trim().toLowerCase();
    return needle
      ? data.filter((r) =>
          `${String(r[kind.dimension])} ${String(r[nameField(kind.dimension)] ?? '')}`.toLowerCase().includes(needle),
        )
      : data;
  }, [rows, search, value, kind.dimension]);

  const label = (r: ReportRow) =>
    entity ? `${String(r[nameField(kind.dimension)] || '')} #${String(r[kind.dimension])}` : String(r[kind.dimension]);
  const metricColumns = METRICS.map((m) => ({
    key: m,
    title: m === 'ivt' ? 'IVT' : undefined,
    dataIndex: m,
    align: 'right' as const,
    sorter: (a: ReportRow, b: ReportRow) => Number(a[m]) - Number(b[m]),
    render: (v: number) => formatMetric(m, v),
  }));
  for (const c of metricColumns)
    c.title =
      c.title ??
      (
        {
          reqs: 'Requests',
          opps: 'Opportunities',
          imps: 'Impressions',
          fill: 'Fill',
          revenue: 'Revenue',
          ecpm: 'eCPM',
          vtr: 'VTR',
          ivt: 'IVT',
        } as Record<string, string>
      )[c.key];

  return (
    <div data-testid={`observed-${kind.route.slice(1)}`}>
      <div className="page-head">
        <Typography.Title level={3}>
          {value !== null ? (
            <>
              <Link to={kind.route}>{kind.title}</Link> / {value}
            </>
          ) : (
            kind.title
          )}
        </Typography.Title>
        <Space wrap>
          <DayRangePicker range={range} onChange={setRange} timezone={timezone} />
          <AddToListButton kind={kind} values={value !== null ? [value] : selected} />
        </Space>
      </div>
      {error && <Alert type="error" showIcon title="Could not load the numbers" description={error} />}
      {value !== null ? (
        <>
          {rows && <ReportChart rows={rows} dimensions={['date']} metrics={METRICS} />}
          <Table<ReportRow>
            size="small"
            rowKey={(r) => String(r.date)}
            loading={rows === null && error === null}
            dataSource={shown}
            pagination={false}
            columns={[{ key: 'date', title: 'Date', dataIndex: 'date' }, ...metricColumns]}
            data-testid="observed-detail-table"
          />
        </>
      ) : (
        <>
          <Input.Search
            placeholder={`Search ${kind.title.toLowerCase()}`}
            allowClear
            style={{ maxWidth: 360, marginBottom: 12 }}
            onChange={(e) => setSearch(e.target.value)}
          />
          <Table<ReportRow>
            size="small"
            loading={rows === null && error === null}
            dataSource={shown}
            rowKey={(r) => String(r[kind.dimension])}
            rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)) }}
            pagination={listPagination()}
            columns={[
              {
                key: 'value',
                title: kind.singular,
                sorter: (a, b) => label(a).localeCompare(label(b)),
                render: (_, r) => (
                  <Link to={`${kind.route}/${encodeURIComponent(String(r[kind.dimension]))}`}>{label(r)}</Link>
                ),
              },
              ...metricColumns,
            ]}
            data-testid="observed-table"
          />
        </>
      )}
    </div>
  );
}
