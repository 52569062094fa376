import { useEffect } from 'react';
import { Form, Input, InputNumber, Modal, Select, Switch } from 'antd';
import {
  ALERT_CHECK_MINUTES_MAX,
  ALERT_CHECK_MINUTES_MIN,
  ALERT_METRIC_FORMAT,
  ALERT_METRIC_LABELS,
  ALERT_METRICS,
  ALERT_SCOPE_KINDS,
  type AlertMetric,
  type AlertRule,
  type AlertRuleInputIn,
  type AlertScopeKind,
} from '@adplane/shared';
import { type ListName, useList } from '../../api/lists.js';
import { SCOPE_LABELS } from './alertText.js';

/** The editor's fields: money in dollars (the API's micro-dollars), the condition flattened. */
interface RuleForm {
  name: string;
  enabled: boolean;
  metric: AlertMetric;
  scopeKind: AlertScopeKind;
  /** 0: each entity of the kind. */
  scopeId: number;
  op: 'below' | 'above' | 'drop' | 'offPace';
  value: number;
  percent: number;
  against: 'previous' | 'lastWeek';
  window: 'hour' | 'day';
  everyMinutes: number;
  minVolume: number;
  email: string[];
  webhooks: string[];
}

const SCOPE_LISTS: Readonly<Record<Exclude<AlertScopeKind, 'account'>, ListName>> = {
  channel: 'channels',
  tag: 'tags',
  campaign: 'campaigns',
};

const isMoney = (metric: AlertMetric) => ALERT_METRIC_FORMAT[metric] === 'usd';

export const NEW_RULE: AlertRuleInputIn = {
  name: '',
  metric: 'fill',
  scope: { kind: 'account', id: null },
  condition: { op: 'below', value: 10 },
  window: 'hour',
  everyMinutes: 15,
  minVolume: 100,
  notify: { email: [], webhooks: [] },
};

function toForm(rule: AlertRuleInputIn): RuleForm {
  const c = rule.condition;
  const money = isMoney(rule.metric);
  return {
    name: rule.name,
    enabled: rule.enabled ?? true,
    metric: rule.metric,
    scopeKind: rule.scope.kind,
    scopeId: rule.scope.id ?? 0,
    op: c.op,
    value: c.op === 'below' || c.op === 'above' ? (money ? c.value / 1_000_000 : c.value) : 0,
    percent: c.op === 'drop' ? c.percent : 50,
    against: c.op === 'drop' ? c.against : 'previous',
    window: rule.window ?? 'hour',
    everyMinutes: rule.everyMinutes ?? 15,
    minVolume: rule.minVolume ?? 0,
    email: [...(rule.notify?.email ?? [])],
    webhooks: [...(rule.notify?.webhooks ?? [])],
  };
}

function toInput(f: RuleForm): AlertRuleInputIn {
  const condition: AlertRuleInputIn['condition'] =
    f.metric === 'pace'
      ? { op: 'offPace' }
      : f.op === 'drop'
        ? { op: 'drop', percent: f.percent, against: f.against }
        : {
            op: f.op === 'above' ? 'above' : 'below',
            value: isMoney(f.metric) ? Math.round(f.value * 1_000_000) : f.value,
          };
  return {
    name: f.name,
    enabled: f.enabled,
    metric: f.metric,
    scope: {
      kind: f.metric === 'pace' ? 'campaign' : f.scopeKind,
      id: f.scopeKind === 'account' || !f.scopeId ? null : f.scopeId,
    },
    condition,
    window: f.window,
    everyMinutes: f.everyMinutes,
    minVolume: f.minVolume,
    notify: { email: f.email, webhooks: f.webhooks },
  };
}

/** The rule in the editor as the API takes it back (a rule's own fields, without its state). */
export function inputOf(rule: AlertRule): AlertRuleInputIn {
  const { id: _i, builtin: _b, firing: _f, nextCheckAt: _n, lastCheckAt: _l, ...input } = rule;
  return input;
}

function EntityPicker({
  kind,
  value,
  onChange,
}: {
  kind: AlertScopeKind;
  value?: number;
  onChange?: (v: number) => void;
}) {
  const list = useList(kind === 'account' ? 'channels' : SCOPE_LISTS[kind]);
  if (kind === 'account') return null;
  const each = `Each ${SCOPE_LABELS[kind].toLowerCase()}`;
  return (
    <Select
      showSearch
      optionFilterProp="label"
      loading={list.loading}
      value={value ?? 0}
      onChange={onChange}
      data-testid="alert-scope-entity"
      options={[
        { value: 0, label: `${each} on its own` },
        ...list.items.map((i) => ({ value: Number(i.id), label: i.name })),
      ]}
    />
  );
}

/** The rule editor: what it watches, when it fires, how often it is checked, and who hears of it. */
export function AlertRuleEditor({
  rule,
  builtin,
  saving,
  onSave,
  onCancel,
}: {
  rule: AlertRuleInputIn | null;
  builtin: boolean;
  saving: boolean;
  onSave: (input: AlertRuleInputIn) => void;
  onCancel: () => void;
}) {
  const [form] = Form.useForm<RuleForm>();
  useEffect(() => {
    if (rule) form.setFieldsValue(toForm(rule));
  }, [rule, form]);
  const metric = Form.useWatch('metric', form) ?? 'fill';
  const scopeKind = Form.useWatch('scopeKind', form) ?? 'account';
  const op = Form.useWatch('op', form) ?? 'below';
  const unit = ALERT_METRIC_FORMAT[metric] === 'percent' ? '%' : isMoney(metric) ? '$' : '';
  const pace = metric === 'pace';

  return (
    <Modal
      open={rule !== null}
      title={builtin ? 'Edit built-in rule' : rule?.name ? 'Edit alert rule' : 'New alert rule'}
      okText="Save"
      onOk={() => void form.validateFields().then((values) => onSave(toInput({ ...toForm(NEW_RULE), ...values })))}
      confirmLoading={saving}
      onCancel={onCancel}
      width={640}
      destroyOnHidden
      data-testid="alert-rule-editor"
    >
      <Form form={form} layout="vertical" requiredMark={false} initialValues={toForm(NEW_RULE)}>
        <Form.Item name="name" label="Name" rules={[{ required: true, whitespace: true, message: 'Name is required' }]}>
          <Input maxLength={120} data-testid="alert-name" />
        </Form.Item>
        <div className="alert-editor-row">
          <Form.Item name="metric" label="Metric" style={{ flex: 1 }}>
            <Select
              disabled={builtin}
              data-testid="alert-metric"
              options={ALERT_METRICS.map((m) => ({ value: m, label: ALERT_METRIC_LABELS[m] }))}
              onChange={(m: AlertMetric) => {
                if (m === 'pace') form.setFieldsValue({ scopeKind: 'campaign', op: 'offPace' });
                else if (form.getFieldValue('op') === 'offPace') form.setFieldsValue({ op: 'below' });
              }}
            />
          </Form.Item>
          <Form.Item name="scopeKind" label="Watches" style={{ flex: 1 }}>
            <Select
              disabled={builtin || pace}
              data-testid="alert-scope"
              options={ALERT_SCOPE_KINDS.map((k) => ({ value: k, label: SCOPE_LABELS[k] }))}
              onChange={() => form.setFieldsValue({ scopeId: 0 })}
            />
          </Form.Item>
        </div>
        {scopeKind !== 'account' && (
          <Form.Item name="scopeId" label={SCOPE_LABELS[scopeKind]}>
            <EntityPicker kind={scopeKind} />
          </Form.Item>
        )}
        {pace ? (
          <Form.Item label="Fires when">
            <span>the campaign is behind pace on its daily budget, or a budget (daily or total) is spent</span>
          </Form.Item>
        ) : (
          <div className="alert-editor-row">
            <Form.Item name="op" label="Fires when it is" style={{ flex: 1 }}>
              <Select
                data-testid="alert-op"
                options={[
                  { value: 'below', label: 'Below' },
                  { value: 'above', label: 'Above' },
                  { value: 'drop', label: 'Down by' },
                ]}
              />
            </Form.Item>
            {op === 'drop' ? (
              <>
                <Form.Item name="percent" label="Percent" style={{ flex: 1 }}>
                  <InputNumber min={1} max={100} suffix="%" style={{ width: '100%' }} data-testid="alert-percent" />
                </Form.Item>
                <Form.Item name="against" label="Compared with" style={{ flex: 1.4 }}>
                  <Select
                    options={[
                      { value: 'previous', label: 'The window before' },
                      { value: 'lastWeek', label: 'The same hours last week' },
                    ]}
                  />
                </Form.Item>
              </>
            ) : (
              <Form.Item name="value" label="Value" style={{ flex: 1 }}>
                <InputNumber
                  min={0}
                  step={unit === '$' ? 0.01 : 1}
                  prefix={unit === '$' ? '$' : undefined}
                  suffix={unit === '%' ? '%' : undefined}
                  style={{ width: '100%' }}
                  data-testid="alert-value"
                />
              </Form.Item>
            )}
          </div>
        )}
        <div className="alert-editor-row">
          <Form.Item name="window" label="Over" style={{ flex: 1 }}>
            <Select
              disabled={pace}
              options={[
                { value: 'hour', label: 'The last hour' },
                { value: 'day', label: 'The last day (24 hours)' },
              ]}
            />
          </Form.Item>
          <Form.Item name="everyMinutes" label="Check every" style={{ flex: 1 }}>
            <InputNumber
              min={ALERT_CHECK_MINUTES_MIN}
              max={ALERT_CHECK_MINUTES_MAX}
              suffix="min"
              style={{ width: '100%' }}
              data-testid="alert-every"
            />
          </Form.Item>
          <Form.Item
            name="minVolume"
            label="Judge from"
            style={{ flex: 1 }}
            tooltip="A share (fill, timeouts, errors, eCPM) is judged only over at least this many of its base in the window (opportunities, demand calls, requests, impressions)"
          >
            <InputNumber min={0} disabled={pace} style={{ width: '100%' }} data-testid="alert-min-volume" />
          </Form.Item>
        </div>
        <Form.Item name="email" label="E-mail to" tooltip="When an episode opens and when it clears">
          <Select
            mode="tags"
            tokenSeparators={[',', ' ']}
            placeholder="ops@example.com"
            data-testid="alert-email"
            open={false}
          />
        </Form.Item>
        <Form.Item
          name="webhooks"
          label="Webhooks"
          tooltip="Incoming-webhook URLs of a chat tool (Slack, Mattermost, Teams): each gets a JSON body with `text`"
        >
          <Select
            mode="tags"
            tokenSeparators={[' ']}
            placeholder="https://hooks.slack.com/services/..."
            data-testid="alert-webhooks"
            open={false}
          />
        </Form.Item>
        <Form.Item name="enabled" label="On" valuePropName="checked">
          <Switch data-testid="alert-enabled" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
