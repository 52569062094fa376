import { WarningOutlined } from '@ant-design/icons';
import { Tooltip, Typography } from 'antd';
import { type ColumnType } from 'antd/es/table';
import { useEffect, useRef, useState } from 'react';
import {
  formatMetric,
  METRIC_BY_ID,
  type MetricId,
  ROW_STATS_KINDS,
  type RowStatsAnswer,
  type RowStatsKindId,
  type RowStatsPeriod,
} from '@adplane/shared';
import { api } from '../api/client.js';
import { errorText } from '../errors/messages.js';
import { metricWidth } from './columnWidths.js';
import { type ResourceRow } from './resourceApi.js';

/** A row's numbers, or undefined while they load or when it had no traffic in the period. */
export type RowValues = Partial<Record<MetricId, number>>;

/** A metric column: sorted on the page by `sortValue` (the rows come from the config store, the numbers from the stats). */
export type MetricColumn = ColumnType<ResourceRow> & {
  key: string;
  label: string;
  sortValue: (row: ResourceRow) => number;
};

export const METRIC_KEY_PREFIX = 'm_';
export const isMetricKey = (key: string) => key.startsWith(METRIC_KEY_PREFIX);

/** Short column titles; the catalogue's formula is the header's tooltip. */
const SHORT: Partial<Record<MetricId, string>> = {
  imps: 'Impr.',
  source_reqs: 'Requests',
  deal_reqs: 'Requests',
  sourceFill: 'Fill',
  ecpm: 'eCPM',
};
/** What a metric is called on a list whose rows buy rather than sell. */
const BUYING_LABELS: Partial<Record<MetricId, string>> = { revenue: 'Spend' };

function metricTitle(kind: RowStatsKindId, id: MetricId): string {
  if (kind === 'campaigns' || kind === 'creatives' || kind === 'deals')
    return BUYING_LABELS[id] ?? SHORT[id] ?? METRIC_BY_ID[id].label;
  return SHORT[id] ?? METRIC_BY_ID[id].label;
}

/**
 * The numbers of the rows on screen for a period, asked after the rows have loaded (GET /api/rowStats):
 * the list paints first, and only the latest answer is kept. A failure leaves the list working and
 * is said in the numbers' place (`failed`: why), never as zeros.
 */
export function useRowStats(
  kind: RowStatsKindId | null,
  ids: readonly number[],
  period: RowStatsPeriod,
): { stats: RowStatsAnswer | null; loading: boolean; failed: string | null } {
  const [state, setState] = useState<{ stats: RowStatsAnswer | null; loading: boolean; failed: string | null }>({
    stats: null,
    loading: kind !== null,
    failed: null,
  });
  const seq = useRef(0);
  const idList = ids.join(',');
  useEffect(() => {
    if (!kind) return;
    const mine = ++seq.current;
    if (idList === '') {
      setState({ stats: null, loading: false, failed: null });
      return;
    }
    setState((s) => ({ stats: s.stats, loading: true, failed: null }));
    const query = new URLSearchParams({ kind, period, ids: idList });
    // Silent: the numbers are a second layer; a 403 here must not sign anyone out of a list they can see.
    api
      .get<RowStatsAnswer>(`/api/rowStats?${query}`, { silent: true, ignoreForbidden: true })
      .then((stats) => {
        if (mine === seq.current) setState({ stats, loading: false, failed: null });
      })
      .catch((error: unknown) => {
        console.error('Loading the row numbers failed', error);
        if (mine === seq.current) setState({ stats: null, loading: false, failed: errorText(error) });
      });
  }, [kind, period, idList]);
  return state;
}

/** A number cell: the value in people's units, grey when the row had nothing in the period. */
function MetricCell({
  id,
  value,
  loading,
  failed,
  testId,
}: {
  id: MetricId;
  value: number | undefined;
  loading: boolean;
  failed: string | null;
  testId: string;
}) {
  if (failed !== null && value === undefined)
    return (
      <Tooltip title={`The numbers could not be loaded: ${failed}`}>
        <Typography.Text type="danger" data-testid={`${testId}-failed`} aria-label="Numbers not loaded">
          <WarningOutlined />
        </Typography.Text>
      </Tooltip>
    );
  if (loading && value === undefined) return <Typography.Text type="secondary">…</Typography.Text>;
  const text = formatMetric(id, value ?? 0);
  return (
    <span className="metric-cell" data-testid={testId} data-value={value ?? 0}>
      {value ? text : <Typography.Text type="secondary">{text}</Typography.Text>}
    </span>
  );
}

/** The metric columns of a kind's list, in the catalogue's words. */
export function metricColumns(
  kind: RowStatsKindId,
  valueOf: (row: ResourceRow) => RowValues | undefined,
  loading: boolean,
  /** Why the numbers could not be loaded (said in each cell instead of a 0), or null. */
  failed: string | null = null,
): MetricColumn[] {
  return ROW_STATS_KINDS[kind].metrics.map((id) => ({
    key: `${METRIC_KEY_PREFIX}${id}`,
    label: metricTitle(kind, id),
    title: (
      <Tooltip title={`${METRIC_BY_ID[id].label}: ${METRIC_BY_ID[id].formula}`}>
        <span>{metricTitle(kind, id)}</span>
      </Tooltip>
    ),
    align: 'right' as const,
    width: metricWidth(id),
    sorter: true,
    sortValue: (row: ResourceRow) => valueOf(row)?.[id] ?? 0,
    render: (_: unknown, row: ResourceRow) => (
      <MetricCell
        id={id}
        value={valueOf(row)?.[id]}
        loading={loading}
        failed={failed}
        testId={`metric-${id}-${row.id}`}
      />
    ),
  }));
}

/** Rows sorted by a metric column's value (ties keep the server's order). */
export function sortByMetric(
  rows: readonly ResourceRow[],
  column: MetricColumn | undefined,
  order: 'ascend' | 'descend',
): ResourceRow[] {
  if (!column) return [...rows];
  const sign = order === 'ascend' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: column.sortValue(row) }))
    .sort((a, b) => (a.value - b.value) * sign || a.index - b.index)
    .map((x) => x.row);
}
