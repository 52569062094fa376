import { useCallback, useEffect, useState } from 'react';
import { App, Button, Popconfirm, Segmented, Switch, Table, Tabs, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { type AlertEpisode, type AlertRule, type AlertRuleInputIn, type AlertScopeKind } from '@adplane/shared';
import { alertsApi } from '../../api/alerts.js';
import { type ListName, useList } from '../../api/lists.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { useClock } from '../../format/clock.js';
import { AlertRuleEditor, inputOf, NEW_RULE } from './AlertRuleEditor.js';
import { alertValueText, conditionText, metricLabel, SCOPE_LABELS, scopeText } from './alertText.js';

const LISTS: Readonly<Record<Exclude<AlertScopeKind, 'account'>, ListName>> = {
  channel: 'channels',
  tag: 'tags',
  campaign: 'campaigns',
};

/** Names of the one channel, tag or campaign a rule watches, from the shared lists. */
function useScopeNames(): (kind: AlertScopeKind, id: number) => string {
  const lists = { channel: useList(LISTS.channel), tag: useList(LISTS.tag), campaign: useList(LISTS.campaign) };
  return (kind, id) =>
    kind === 'account' ? '' : (lists[kind].items.find((i) => Number(i.id) === id)?.name ?? `#${id}`);
}

function RulesTab({ rules, reload }: { rules: AlertRule[] | null; reload: () => void }) {
  const { message } = App.useApp();
  const names = useScopeNames();
  const [editing, setEditing] = useState<{ id: number | null; builtin: boolean; input: AlertRuleInputIn } | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async (input: AlertRuleInputIn) => {
    if (!editing) return;
    setSaving(true);
    try {
      if (editing.id === null) await alertsApi.create(input);
      else await alertsApi.update(editing.id, input);
      void message.success('Alert rule saved');
      setEditing(null);
      reload();
    } catch (e) {
      notifySaveError(e);
    } finally {
      setSaving(false);
    }
  };
  const toggle = async (rule: AlertRule, enabled: boolean) => {
    try {
      await alertsApi.update(rule.id, { ...inputOf(rule), enabled });
      reload();
    } catch (e) {
      notifySaveError(e);
    }
  };
  const remove = async (rule: AlertRule) => {
    try {
      await alertsApi.remove(rule.id);
      void message.success('Alert rule deleted');
      reload();
    } catch (e) {
      notifySaveError(e);
    }
  };

  return (
    <>
      <div className="alerts-toolbar">
        <Typography.Text type="secondary">
          Each rule is checked on its own schedule; an episode fires once when its condition starts to hold and clears
          once when it stops, in the bell, by e-mail and to webhooks.
        </Typography.Text>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => setEditing({ id: null, builtin: false, input: NEW_RULE })}
          data-testid="alert-new"
        >
          New rule
        </Button>
      </div>
      <Table<AlertRule>
        rowKey="id"
        size="middle"
        loading={rules === null}
        dataSource={rules ?? []}
        pagination={false}
        data-testid="alert-rules"
        columns={[
          {
            title: 'Rule',
            key: 'name',
            render: (_, r) => (
              <span data-testid={`alert-rule-${r.id}`}>
                {r.name} {r.builtin && <Tag>Built-in</Tag>}
              </span>
            ),
          },
          { title: 'Metric', key: 'metric', width: 130, render: (_, r) => metricLabel(r.metric) },
          { title: 'Watches', key: 'scope', width: 170, render: (_, r) => scopeText(r.scope, names) },
          {
            title: 'Fires when',
            key: 'condition',
            render: (_, r) => conditionText(r.metric, r.condition, r.window),
          },
          {
            title: 'Window',
            key: 'window',
            width: 190,
            render: (_, r) => `Last ${r.window}, every ${r.everyMinutes} min`,
          },
          {
            title: 'Notifies',
            key: 'notify',
            width: 150,
            render: (_, r) => {
              const parts = ['Bell'];
              if (r.notify.email.length) parts.push(`${r.notify.email.length} e-mail`);
              if (r.notify.webhooks.length) parts.push(`${r.notify.webhooks.length} webhook`);
              return (
                <Tooltip title={[...r.notify.email, ...r.notify.webhooks].join(', ') || null}>
                  {parts.join(', ')}
                </Tooltip>
              );
            },
          },
          {
            title: 'State',
            key: 'firing',
            width: 110,
            render: (_, r) =>
              r.firing > 0 ? (
                <Tag color="red" data-testid={`alert-firing-${r.id}`}>
                  {r.firing} firing
                </Tag>
              ) : (
                <Tag color={r.enabled ? 'green' : 'default'}>{r.enabled ? 'OK' : 'Off'}</Tag>
              ),
          },
          {
            title: 'On',
            key: 'enabled',
            width: 64,
            render: (_, r) => (
              <Switch
                size="small"
                checked={r.enabled}
                onChange={(on) => void toggle(r, on)}
                aria-label={`${r.name} on`}
                data-testid={`alert-toggle-${r.id}`}
              />
            ),
          },
          {
            title: '',
            key: 'actions',
            width: 90,
            render: (_, r) => (
              <span className="row-actions">
                <Button
                  type="text"
                  size="small"
                  icon={<EditOutlined />}
                  aria-label={`Edit ${r.name}`}
                  onClick={() => setEditing({ id: r.id, builtin: r.builtin !== null, input: inputOf(r) })}
                  data-testid={`alert-edit-${r.id}`}
                />
                {r.builtin ? (
                  <Tooltip title="A built-in rule is turned off, not deleted">
                    <Button
                      type="text"
                      size="small"
                      icon={<DeleteOutlined />}
                      disabled
                      aria-label={`Delete ${r.name}`}
                    />
                  </Tooltip>
                ) : (
                  <Popconfirm
                    title="Delete this alert rule?"
                    description="Its history of episodes goes with it."
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() => void remove(r)}
                  >
                    <Button
                      type="text"
                      size="small"
                      icon={<DeleteOutlined />}
                      aria-label={`Delete ${r.name}`}
                      data-testid={`alert-delete-${r.id}`}
                    />
                  </Popconfirm>
                )}
              </span>
            ),
          },
        ]}
      />
      <AlertRuleEditor
        rule={editing?.input ?? null}
        builtin={editing?.builtin ?? false}
        saving={saving}
        onSave={(input) => void save(input)}
        onCancel={() => setEditing(null)}
      />
    </>
  );
}

function HistoryTab() {
  const clock = useClock();
  const [show, setShow] = useState<'all' | 'open'>('all');
  const [episodes, setEpisodes] = useState<AlertEpisode[] | null>(null);
  useEffect(() => {
    setEpisodes(null);
    alertsApi
      .episodes({ open: show === 'open', limit: 500 })
      .then(setEpisodes)
      .catch(notifyLoadError);
  }, [show]);
  return (
    <>
      <div className="alerts-toolbar">
        <Segmented
          value={show}
          onChange={(v) => setShow(v as 'all' | 'open')}
          options={[
            { label: 'All episodes', value: 'all' },
            { label: 'Firing now', value: 'open' },
          ]}
          data-testid="alert-history-filter"
        />
      </div>
      <Table<AlertEpisode>
        rowKey="id"
        size="middle"
        loading={episodes === null}
        dataSource={episodes ?? []}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        data-testid="alert-history"
        expandable={{
          expandedRowRender: (e) => <Typography.Paragraph style={{ margin: 0 }}>{e.detail}</Typography.Paragraph>,
        }}
        columns={[
          {
            title: 'State',
            key: 'state',
            width: 100,
            render: (_, e) => (e.clearedAt === null ? <Tag color="red">Firing</Tag> : <Tag color="green">Cleared</Tag>),
          },
          { title: 'Rule', dataIndex: 'ruleName', key: 'rule' },
          {
            title: 'On',
            key: 'subject',
            render: (_, e) =>
              e.subjectKind === 'account' ? 'Whole account' : `${SCOPE_LABELS[e.subjectKind]}: ${e.subjectName}`,
          },
          { title: 'Fired', key: 'fired', width: 170, render: (_, e) => clock(e.firedAt) },
          { title: 'Cleared', key: 'cleared', width: 170, render: (_, e) => (e.clearedAt ? clock(e.clearedAt) : '') },
          {
            title: 'Value',
            key: 'value',
            align: 'right',
            width: 110,
            render: (_, e) => <strong>{alertValueText(e.metric, e.value)}</strong>,
          },
          {
            title: 'Threshold',
            key: 'threshold',
            align: 'right',
            width: 110,
            render: (_, e) => alertValueText(e.metric, e.threshold),
          },
          {
            title: 'Compared with',
            key: 'comparison',
            align: 'right',
            width: 130,
            render: (_, e) => alertValueText(e.metric, e.comparison),
          },
          {
            title: 'At clearing',
            key: 'clear',
            align: 'right',
            width: 110,
            render: (_, e) => alertValueText(e.metric, e.clearValue),
          },
        ]}
      />
    </>
  );
}

/** Alerts (`/alerts`): the tenant's rules, built-ins first, and the history of their episodes with the numbers. */
export default function AlertsPage() {
  const [rules, setRules] = useState<AlertRule[] | null>(null);
  const [tab, setTab] = useState(() =>
    new URLSearchParams(window.location.search).get('tab') === 'history' ? 'history' : 'rules',
  );
  const load = useCallback(() => {
    alertsApi.rules().then(setRules).catch(notifyLoadError);
  }, []);
  useEffect(load, [load]);
  const firing = (rules ?? []).reduce((n, r) => n + r.firing, 0);
  return (
    <div data-testid="alerts-page">
      <div className="page-head">
        <Typography.Title level={3}>Alerts</Typography.Title>
      </div>
      <Tabs
        activeKey={tab}
        onChange={setTab}
        items={[
          { key: 'rules', label: 'Rules', children: <RulesTab rules={rules} reload={load} /> },
          {
            key: 'history',
            label: firing > 0 ? `History (${firing} firing)` : 'History',
            children: <HistoryTab />,
          },
        ]}
      />
    </div>
  );
}
