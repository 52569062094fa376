import { useState } from 'react';
import { Button, Select, Space, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import {
  DIMENSION_BY_ID,
  DIMENSIONS,
  type DimensionId,
  isDimensionVisible,
  isMetricVisible,
  nameField,
  NO_DEMAND_ID,
  type StatsViewer,
} from '@adplane/shared';
import { reportsApi } from '../../api/reports.js';
import { EMPTY_MARK } from '../../format/empty.js';
import { type ReportForm } from './reportState.js';

type Filters = ReportForm['filters'];
type Option = { value: string | number; label: string };

/**
 * Filters with value search: the values offered are those seen in the stats over the report's dates
 * (the busiest first), so a user picks a channel, country or marketplace by name.
 */
function FilterValues({
  id,
  form,
  values,
  onChange,
  viewer,
}: {
  id: DimensionId;
  form: ReportForm;
  values: (string | number)[];
  onChange: (v: (string | number)[]) => void;
  viewer: StatsViewer;
}) {
  const [options, setOptions] = useState<Option[] | null>(null);
  const [loading, setLoading] = useState(false);
  const entity = DIMENSION_BY_ID[id].type === 'entity';
  // The busiest by requests, or by the times a demand source was considered for whom requests are not its numbers (an advertiser).
  const busiest = isMetricVisible(viewer, 'reqs') ? 'reqs' : 'source_reqs';
  const load = () => {
    if (options || loading) return;
    setLoading(true);
    reportsApi
      .run(
        {
          startDate: form.startDate,
          endDate: form.endDate,
          timezone: form.timezone,
          dimensions: [id],
          metrics: [busiest],
          sort: { by: busiest, order: 'desc' },
          limit: 200,
        },
        { silent: true },
      )
      .then((rows) =>
        setOptions(
          rows
            // (the "No demand called" row of a demand dimension is no value to filter by)
            .filter((r) => !r.total && r[id] !== NO_DEMAND_ID)
            .map((r) => ({
              value: r[id] as string | number,
              label: entity
                ? `${String(r[nameField(id)] || EMPTY_MARK)} #${String(r[id])}`
                : String(r[id] === '' ? EMPTY_MARK : r[id]),
            })),
        ),
      )
      .catch(() => setOptions([]))
      .finally(() => setLoading(false));
  };
  return (
    <Select<(string | number)[]>
      mode={entity ? 'multiple' : 'tags'}
      style={{ minWidth: 280 }}
      placeholder="Search values"
      value={values}
      onChange={onChange}
      onFocus={load}
      onOpenChange={(open) => open && load()}
      loading={loading}
      options={options ?? []}
      optionFilterProp="label"
      showSearch
      data-testid={`report-filter-values-${id}`}
    />
  );
}

/** The filters of a report: by the dimensions `viewer` may see (visibility.ts), of `dimensionChoices` when given. */
export function FilterEditor({
  form,
  viewer,
  onChange,
  dimensionChoices,
}: {
  form: ReportForm;
  viewer: StatsViewer;
  onChange: (filters: Filters) => void;
  dimensionChoices?: readonly DimensionId[];
}) {
  const active = Object.keys(form.filters) as DimensionId[];
  const available = DIMENSIONS.filter(
    (d) =>
      d.type !== 'time' &&
      isDimensionVisible(viewer, d.id) &&
      !active.includes(d.id) &&
      (!dimensionChoices || dimensionChoices.includes(d.id)),
  );
  return (
    <Space orientation="vertical" size={6} style={{ width: '100%' }}>
      {active.map((id) => (
        <Space key={id} data-testid={`report-filter-${id}`}>
          <Typography.Text strong style={{ display: 'inline-block', minWidth: 120 }}>
            {DIMENSION_BY_ID[id].label}
          </Typography.Text>
          <FilterValues
            id={id}
            form={form}
            viewer={viewer}
            values={form.filters[id] ?? []}
            onChange={(values) => onChange({ ...form.filters, [id]: values })}
          />
          <Button
            type="text"
            icon={<CloseOutlined />}
            aria-label={`Remove the ${DIMENSION_BY_ID[id].label} filter`}
            onClick={() => {
              const next = { ...form.filters };
              delete next[id];
              onChange(next);
            }}
          />
        </Space>
      ))}
      <Select<DimensionId>
        placeholder="Add a filter"
        style={{ width: 220 }}
        value={null as unknown as DimensionId}
        onChange={(id) => onChange({ ...form.filters, [id]: [] })}
        options={available.map((d) => ({ value: d.id, label: d.label }))}
        showSearch
        optionFilterProp="label"
        data-testid="report-add-filter"
      />
    </Space>
  );
}
