import { useEffect, useState } from 'react';
import { Alert, Button, DatePicker, Table, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import {
  financeCsv,
  type FinanceAnswer,
  type FinanceRow,
  formatMetric,
  formatPercent,
  formatTimezone,
  formatUsdMicros,
} from '@adplane/shared';
import { statsApi } from '../../api/stats.js';
import { errorText } from '../../errors/messages.js';
import { listPagination } from '../../resources/pagination.js';

/** Financial Report (`/finance`, admin): each tenant's system cost for a month from its prices. */
export default function FinancePage() {
  const [month, setMonth] = useState(() => dayjs().format('YYYY-MM'));
  const [answer, setAnswer] = useState<FinanceAnswer | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  // The table spins until the month arrives; a failure is said in its place, not left spinning.
  useEffect(() => {
    let active = true;
    setAnswer(null);
    setFailed(null);
    statsApi
      .finance(month)
      .then((a) => {
        if (active) setAnswer(a);
      })
      .catch((error: unknown) => {
        if (active) setFailed(errorText(error));
      });
    return () => {
      active = false;
    };
  }, [month]);

  const exportCsv = () => {
    if (!answer) return;
    const url = URL.createObjectURL(new Blob([financeCsv(answer)], { type: 'text/csv;charset=utf-8' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `finance ${month}.csv` });
    document.body.append(a);
    a.click();
    a.remove();
    URL.revokeObjectURL(url);
  };

  return (
    <div data-testid="finance-page">
      <div className="page-head">
        <Typography.Title level={3}>Financial Report</Typography.Title>
        <span>
          <DatePicker
            picker="month"
            allowClear={false}
            value={dayjs(`${month}-01`)}
            onChange={(d) => d && setMonth(d.format('YYYY-MM'))}
            data-testid="finance-month"
          />{' '}
          <Button icon={<DownloadOutlined />} disabled={!answer} onClick={exportCsv} data-testid="finance-export">
            Export CSV
          </Button>
        </span>
      </div>
      <Typography.Paragraph type="secondary">
        System cost = price per 1,000 requests + price per 1,000 impressions + DSP revenue share of campaign revenue +
        price per 1,000 post-bid impressions, over the month in each demand&apos;s own time zone (to today for the
        current month).
      </Typography.Paragraph>
      {failed && (
        <Alert
          type="error"
          showIcon
          title={`The Financial Report of ${month} could not be loaded`}
          description={failed}
          style={{ marginBottom: 12 }}
          data-testid="finance-error"
        />
      )}
      <Table<FinanceRow>
        rowKey="tenantId"
        size="small"
        loading={answer === null && failed === null}
        dataSource={answer?.rows ?? []}
        pagination={listPagination()}
        data-testid="finance-table"
        scroll={{ x: 'max-content' }}
        columns={[
          { key: 'name', title: 'Demand', dataIndex: 'name', sorter: (a, b) => a.name.localeCompare(b.name) },
          { key: 'tz', title: 'Time zone', render: (_, r) => formatTimezone(r.timezone) },
          {
            key: 'prices',
            title: 'Prices (req / imp / post-bid CPM, DSP %)',
            render: (_, r) =>
              `${formatUsdMicros(r.priceReq)} / ${formatUsdMicros(r.priceImp)} / ${formatUsdMicros(r.pricePostbid)}, ${formatPercent(r.priceDsp)}`,
          },
          {
            key: 'reqs',
            title: 'Requests',
            align: 'right',
            sorter: (a, b) => a.reqs - b.reqs,
            render: (_, r) => formatMetric('reqs', r.reqs),
          },
          {
            key: 'imps',
            title: 'Impressions',
            align: 'right',
            sorter: (a, b) => a.imps - b.imps,
            render: (_, r) => formatMetric('imps', r.imps),
          },
          {
            key: 'postbid',
            title: 'Post-bid Impressions',
            align: 'right',
            render: (_, r) => formatMetric('postbidImps', r.postbidImps),
          },
          {
            key: 'revenue',
            title: 'Revenue',
            align: 'right',
            sorter: (a, b) => a.revenue - b.revenue,
            render: (_, r) => formatMetric('revenue', r.revenue),
          },
          {
            key: 'cost',
            title: 'System Cost',
            align: 'right',
            sorter: (a, b) => a.systemCost - b.systemCost,
            defaultSortOrder: 'descend',
            render: (_, r) => (
              <span data-testid={`finance-cost-${r.tenantId}`}>{formatMetric('systemCost', r.systemCost)}</span>
            ),
          },
        ]}
        summary={() =>
          answer ? (
            <Table.Summary.Row className="report-total-row" data-testid="finance-total-row">
              <Table.Summary.Cell index={0}>
                <strong>Total</strong>
              </Table.Summary.Cell>
              <Table.Summary.Cell index={1} />
              <Table.Summary.Cell index={2} />
              <Table.Summary.Cell index={3} align="right">
                {formatMetric('reqs', answer.totals.reqs)}
              </Table.Summary.Cell>
              <Table.Summary.Cell index={4} align="right">
                {formatMetric('imps', answer.totals.imps)}
              </Table.Summary.Cell>
              <Table.Summary.Cell index={5} align="right">
                {formatMetric('postbidImps', answer.totals.postbidImps)}
              </Table.Summary.Cell>
              <Table.Summary.Cell index={6} align="right">
                {formatMetric('revenue', answer.totals.revenue)}
              </Table.Summary.Cell>
              <Table.Summary.Cell index={7} align="right">
                <strong data-testid="finance-total-cost">{formatMetric('systemCost', answer.totals.systemCost)}</strong>
              </Table.Summary.Cell>
            </Table.Summary.Row>
          ) : null
        }
      />
    </div>
  );
}
