import { Col, Form, InputNumber, Row, Switch, Typography } from 'antd';
import { type DemandOptimisationInput } from '@adplane/shared';
import { MoneyInput } from '../../resources/fields.js';

/** What switching the optimisation on starts from (the schema's defaults). */
const STARTING: DemandOptimisationInput = {
  explorePercent: 10,
  windowMinutes: 60,
  maxCalls: null,
  timeoutCostCpm: 1_000_000,
};

/**
 * The channel's optimised demand order: off (the order set, or every tag at once), or on with the
 * share of requests that explore, how far back each tag's calls are measured, what a timeout costs
 * and, in an auction, how many tags are called first.
 */
export function DemandOptimiseEditor({
  value,
  onChange,
  mode,
  readOnly,
  testId = 'channel-optimise',
}: {
  value?: DemandOptimisationInput | null;
  onChange?: (v: DemandOptimisationInput | null) => void;
  mode: string | undefined;
  readOnly: boolean;
  /** What its test ids start with (arm B's editor has its own). */
  testId?: string;
}) {
  const on = !!value;
  const set = (change: Partial<DemandOptimisationInput>) => onChange?.({ ...STARTING, ...value, ...change });
  return (
    <div className="channel-optimise" data-testid={testId}>
      <Switch
        checked={on}
        disabled={readOnly}
        aria-label="Optimise the order"
        data-testid={`${testId}-switch`}
        onChange={(checked) => onChange?.(checked ? { ...STARTING } : null)}
      />
      <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
        {on
          ? mode === 'priority'
            ? 'The waterfall calls the tags in the order of what each earned per call lately; pinned tags keep their place.'
            : 'The auction calls the tags that earned most per call lately first; pinned tags are always called.'
          : 'Off: the tags are called as set.'}
      </Typography.Text>
      {on && (
        <Row gutter={16} style={{ marginTop: 12 }}>
          <Col span={6}>
            <Form.Item label="Exploring" extra="Requests that try the tags in a random order" layout="vertical">
              <InputNumber
                aria-label="Exploring percent"
                data-testid={`${testId}-explore`}
                min={0}
                max={50}
                precision={0}
                suffix="%"
                disabled={readOnly}
                style={{ width: '100%' }}
                value={value.explorePercent}
                onChange={(v) => set({ explorePercent: v ?? 0 })}
              />
            </Form.Item>
          </Col>
          <Col span={6}>
            <Form.Item label="Measured over" extra="Each tag's calls of the last minutes" layout="vertical">
              <InputNumber
                aria-label="Window in minutes"
                data-testid={`${testId}-window`}
                min={5}
                max={1440}
                precision={0}
                suffix="min"
                disabled={readOnly}
                style={{ width: '100%' }}
                value={value.windowMinutes}
                onChange={(v) => set({ windowMinutes: v ?? 60 })}
              />
            </Form.Item>
          </Col>
          <Col span={6}>
            <Form.Item label="Timeout cost" extra="CPM taken off a tag per timeout" layout="vertical">
              <MoneyInput
                data-testid={`${testId}-timeout-cost`}
                disabled={readOnly}
                value={value.timeoutCostCpm}
                onChange={(v) => set({ timeoutCostCpm: v ?? 0 })}
              />
            </Form.Item>
          </Col>
          {mode !== 'priority' && (
            <Col span={6}>
              <Form.Item label="Tags called first" extra="Empty: every tag at once" layout="vertical">
                <InputNumber
                  aria-label="Tags called first"
                  data-testid={`${testId}-max-calls`}
                  min={1}
                  max={200}
                  precision={0}
                  placeholder="All"
                  disabled={readOnly}
                  style={{ width: '100%' }}
                  value={value.maxCalls ?? undefined}
                  onChange={(v) => set({ maxCalls: v ?? null })}
                />
              </Form.Item>
            </Col>
          )}
        </Row>
      )}
    </div>
  );
}
