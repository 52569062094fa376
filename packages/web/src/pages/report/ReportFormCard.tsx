import { Checkbox, Col, DatePicker, Form, InputNumber, Row, Select, Space, Tag } from 'antd';
import dayjs from 'dayjs';
import {
  type AuthUser,
  DIMENSION_BY_ID,
  type DimensionId,
  formatTimezone,
  type MetricId,
  metricWordsFor,
  REPORT_MAX_ROWS,
  TIMEZONES,
  visibleDimensions,
  visibleMetrics,
} from '@adplane/shared';
import { rangeProblem } from '../../resources/rangeRule.js';
import { FilterEditor } from './FilterEditor.js';
import { DATE_PRESETS, type DatePreset, PRESET_LABELS, type ReportForm } from './reportState.js';

/**
 * The report form. A report of a narrower kind (the postbid report) passes the dimensions and
 * metrics it offers (`dimensionChoices`, `metricChoices`) and may leave out "Hide errors".
 */
export interface ReportFormCardProps {
  user: AuthUser;
  form: ReportForm;
  onChange: (patch: Partial<ReportForm>) => void;
  dimensionChoices?: readonly DimensionId[];
  metricChoices?: readonly MetricId[];
  showHideErrors?: boolean;
}

/**
 * What the pickers offer: the dimensions and metrics the user may see (the rule the server enforces,
 * visibility.ts), narrowed to a report's own choices, each metric in the user's words (a
 * subpublisher's revenue is its payout, an advertiser's its spend).
 */
export function reportPickerOptions(
  user: AuthUser,
  dimensionChoices?: readonly DimensionId[],
  metricChoices?: readonly MetricId[],
) {
  return {
    dimensionOptions: visibleDimensions(user)
      .filter((id) => !dimensionChoices || dimensionChoices.includes(id))
      .map((id) => ({ value: id, label: DIMENSION_BY_ID[id].label })),
    metricOptions: visibleMetrics(user)
      .filter((id) => !metricChoices || metricChoices.includes(id))
      .map((id) => ({ value: id, ...metricWordsFor(user, id) }))
      .map(({ value, label, formula }) => ({ value, label, title: formula })),
  };
}

export function ReportFormCard({
  user,
  form,
  onChange,
  dimensionChoices,
  metricChoices,
  showHideErrors = true,
}: ReportFormCardProps) {
  const { dimensionOptions, metricOptions } = reportPickerOptions(user, dimensionChoices, metricChoices);
  const limitProblem = rangeProblem(form.limit, 0, REPORT_MAX_ROWS, 'rows');
  const sortOptions = [
    ...form.dimensions.map((id) => ({ value: id, label: DIMENSION_BY_ID[id].label })),
    ...form.metrics.map((id) => ({ value: id, label: metricWordsFor(user, id).label })),
  ];
  return (
    <Form layout="vertical" className="report-form" data-testid="report-form">
      <Row gutter={16}>
        <Col xs={24} lg={12}>
          <Form.Item label="Dates">
            <Space wrap>
              <DatePicker.RangePicker
                allowClear={false}
                value={[dayjs(form.startDate), dayjs(form.endDate)]}
                onChange={(range) => {
                  if (range?.[0] && range[1])
                    onChange({ startDate: range[0].format('YYYY-MM-DD'), endDate: range[1].format('YYYY-MM-DD') });
                }}
                data-testid="report-dates"
              />
              {/* a preset makes the report rolling (its range is computed again each day it runs); dates picked by hand make it fixed */}
              <Select<DatePreset>
                placeholder="Custom dates"
                style={{ width: 150 }}
                value={form.datePreset ?? (null as unknown as DatePreset)}
                onChange={(datePreset) => onChange({ datePreset })}
                options={DATE_PRESETS.map((p) => ({ value: p, label: PRESET_LABELS[p] }))}
                data-testid="report-preset"
              />
              {form.datePreset ? (
                <Tag color="blue" data-testid="report-rolling" title="The dates move with the day the report runs">
                  Rolling
                </Tag>
              ) : null}
            </Space>
          </Form.Item>
        </Col>
        <Col xs={12} lg={4}>
          <Form.Item label="Time zone">
            <Select
              value={form.timezone}
              onChange={(timezone) => onChange({ timezone })}
              options={TIMEZONES.map((tz) => ({ value: tz, label: formatTimezone(tz) }))}
              data-testid="report-timezone"
            />
          </Form.Item>
        </Col>
        <Col xs={12} lg={8}>
          <Form.Item label="Sort by">
            <Space.Compact style={{ width: '100%' }}>
              <Select
                allowClear
                placeholder="Default"
                style={{ width: '60%' }}
                value={form.sortBy}
                onChange={(sortBy) => onChange({ sortBy: sortBy ?? null })}
                options={sortOptions}
                data-testid="report-sort"
              />
              <Select
                style={{ width: '40%' }}
                value={form.sortOrder}
                onChange={(sortOrder) => onChange({ sortOrder })}
                options={[
                  { value: 'desc', label: 'Descending' },
                  { value: 'asc', label: 'Ascending' },
                ]}
              />
            </Space.Compact>
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16}>
        <Col xs={24} lg={12}>
          <Form.Item label="Dimensions">
            <Select<DimensionId[]>
              mode="multiple"
              value={form.dimensions}
              onChange={(dimensions) => onChange({ dimensions })}
              options={dimensionOptions}
              optionFilterProp="label"
              placeholder="Break down by"
              data-testid="report-dimensions"
            />
          </Form.Item>
        </Col>
        <Col xs={24} lg={12}>
          <Form.Item label="Metrics" required>
            <Select<MetricId[]>
              mode="multiple"
              value={form.metrics}
              onChange={(metrics) => onChange({ metrics })}
              options={metricOptions}
              optionFilterProp="label"
              placeholder="Pick at least one"
              data-testid="report-metrics"
            />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16}>
        <Col xs={24} lg={16}>
          <Form.Item label="Filters">
            <FilterEditor
              form={form}
              viewer={user}
              onChange={(filters) => onChange({ filters })}
              dimensionChoices={dimensionChoices}
            />
          </Form.Item>
        </Col>
        <Col xs={12} lg={4}>
          <Form.Item
            label="Limit"
            tooltip="Rows to show; empty shows all (up to 10,000; longer reports go to a file)"
            validateStatus={limitProblem ? 'error' : undefined}
            help={limitProblem ?? undefined}
          >
            {/* no min or max on the box: a number outside is kept as typed and refused here (and by the server), never clamped */}
            <InputNumber
              precision={0}
              value={form.limit || null}
              onChange={(v) => onChange({ limit: Number(v ?? 0) })}
              placeholder="No limit"
              style={{ width: '100%' }}
              data-testid="report-limit"
            />
          </Form.Item>
        </Col>
        <Col xs={12} lg={4}>
          {showHideErrors && (
            <Form.Item label=" ">
              <Checkbox
                checked={form.hideErrors}
                onChange={(e) => onChange({ hideErrors: e.target.checked })}
                data-testid="report-hide-errors"
              >
                Hide errors
              </Checkbox>
            </Form.Item>
          )}
        </Col>
      </Row>
    </Form>
  );
}
