import { Table, type TableColumnsType, Tooltip, Typography } from 'antd';
import {
  DIMENSION_BY_ID,
  type DimensionId,
  formatMetric,
  formatTimezone,
  METRIC_BY_ID,
  type MetricId,
  type ReportRow,
} from '@adplane/shared';
import { EmptyValue } from '../../components/EmptyValue.js';
import { EMPTY_MARK } from '../../format/empty.js';
import { listPagination } from '../../resources/pagination.js';
import { rowLabel } from './ReportChart.js';

type Row = ReportRow & { key: number };

const compare = (a: unknown, b: unknown) =>
  typeof a === 'number' && typeof b === 'number'
    ? a - b
    : String(a ?? '').localeCompare(String(b ?? ''), 'en', { numeric: true });

/** The report's rows: sortable, paged 10/20/50/100, the totals row pinned at the bottom. */
/** `timezone` is the report's offset: its hours are date-times in it, and the Hour column says which. */
export function ReportTable({
  rows,
  dimensions,
  metrics,
  timezone,
}: {
  rows: readonly ReportRow[];
  dimensions: readonly DimensionId[];
  metrics: readonly MetricId[];
  timezone?: number;
}) {
  const data: Row[] = rows.filter((r) => !r.total).map((r, key) => ({ ...r, key }));
  const totals = rows.find((r) => r.total);
  const columns: TableColumnsType<Row> = [
    ...dimensions.map((id) => ({
      key: id,
      dataIndex: id,
      title:
        id === 'hour' && timezone !== undefined
          ? `${DIMENSION_BY_ID[id].label} (${formatTimezone(timezone)})`
          : DIMENSION_BY_ID[id].label,
      sorter: (a: Row, b: Row) => compare(rowLabel(a, id), rowLabel(b, id)),
      render: (_: unknown, row: Row) => {
        const label = rowLabel(row, id);
        if (label === EMPTY_MARK) return <EmptyValue />;
        // (the "No demand called" row of a report of demand has no id of its own to show)
        return DIMENSION_BY_ID[id].type === 'entity' && Number(row[id]) > 0 ? (
          <span>
            {label} <Typography.Text type="secondary">#{String(row[id])}</Typography.Text>
          </span>
        ) : (
          label
        );
      },
    })),
    ...metrics.map((id) => ({
      key: id,
      dataIndex: id,
      align: 'right' as const,
      title: <Tooltip title={METRIC_BY_ID[id].formula}>{METRIC_BY_ID[id].label}</Tooltip>,
      sorter: (a: Row, b: Row) => compare(a[id], b[id]),
      render: (value: number) => formatMetric(id, value),
    })),
  ];
  return (
    <Table<Row>
      className="report-table"
      data-testid="report-table"
      size="small"
      columns={columns}
      dataSource={data}
      scroll={{ x: 'max-content' }}
      pagination={listPagination()}
      summary={() =>
        totals ? (
          <Table.Summary fixed>
            <Table.Summary.Row className="report-total-row" data-testid="report-total-row">
              {dimensions.map((id, i) => (
                <Table.Summary.Cell key={id} index={i}>
                  {i === 0 ? <strong>Total</strong> : null}
                </Table.Summary.Cell>
              ))}
              {metrics.map((id, i) => (
                <Table.Summary.Cell key={id} index={dimensions.length + i} align="right">
                  <strong data-testid={`report-total-${id}`}>{formatMetric(id, totals[id] as number)}</strong>
                </Table.Summary.Cell>
              ))}
            </Table.Summary.Row>
          </Table.Summary>
        ) : null
      }
    />
  );
}
