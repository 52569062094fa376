import { App, Button, Card, Select, Space, Table, Tag, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useCallback, useEffect, useState } from 'react';
import { ACTIVITY_ACTIONS, type ActivityEntry, RESOURCES, type ResourceKind } from '@adplane/shared';
import { api } from '../../api/client.js';
import { useClock } from '../../format/clock.js';
import { notifyLoadError } from '../../errors/notify.js';
import { diffFields, entryName, showValue } from './activityDiff.js';

const PAGE = 50;
const ACTION_COLORS: Record<string, string> = {
  create: 'green',
  duplicate: 'cyan',
  update: 'blue',
  archive: 'default',
  restore: 'gold',
  delete: 'red',
};

const VALUE_STYLE = { whiteSpace: 'pre-wrap', wordBreak: 'break-all' } as const;

const kindLabel = (kind: string) => (RESOURCES as Record<string, { label: string }>)[kind]?.label ?? kind;

/** User Activity: who changed what and when, with the fields before and after, newest first. */
export default function ActivityLogPage() {
  const clock = useClock();
  const { message } = App.useApp();
  const [kind, setKind] = useState<ResourceKind | undefined>();
  const [action, setAction] = useState<string | undefined>();
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  const [loading, setLoading] = useState(true);
  const [more, setMore] = useState(false);

  const load = useCallback(
    async (beforeId?: number) => {
      setLoading(true);
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (kind) query.set('kind', kind);
      if (action) query.set('action', action);
      if (beforeId) query.set('beforeId', String(beforeId));
      try {
        const page = await api.get<ActivityEntry[]>(`/api/activity?${query}`);
        setEntries((old) => (beforeId ? [...old, ...page] : page));
        setMore(page.length === PAGE);
      } catch (error) {
        notifyLoadError(error);
      } finally {
        setLoading(false);
      }
    },
    [kind, action],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const columns: ColumnsType<ActivityEntry> = [
    {
      title: 'When',
      dataIndex: 'at',
      key: 'at',
      width: 170,
      render: (at: string, e) => <span data-testid={`log-at-${e.id}`}>{clock(at)}</span>,
    },
    {
      title: 'Who',
      key: 'who',
      width: 220,
      render: (_, e) => (
        <span>
          {e.userName ?? (e.userId === null ? 'the system' : `#${e.userId}`)}
          {e.adminId !== null && (
            <Typography.Text type="secondary"> (by admin {e.adminName ?? `#${e.adminId}`})</Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: 'Action',
      dataIndex: 'action',
      key: 'action',
      width: 100,
      render: (a: string) => <Tag color={ACTION_COLORS[a]}>{a}</Tag>,
    },
    {
      title: 'What',
      key: 'what',
      render: (_, e) => (
        <span>
          <Typography.Text type="secondary">{kindLabel(e.kind)}</Typography.Text> {entryName(e.before, e.after)}{' '}
          {e.entityId !== null && <Typography.Text type="secondary">#{e.entityId}</Typography.Text>}
        </span>
      ),
    },
    {
      title: 'Fields changed',
      key: 'fields',
      render: (_, e) => {
        const changes = diffFields(e.before, e.after);
        return e.action === 'update' ? changes.map((c) => c.field).join(', ') || 'nothing' : `${changes.length} fields`;
      },
    },
  ];

  return (
    <Card title="User Activity" className="page-card" data-testid="page-log">
      <Space style={{ marginBottom: 12 }} wrap>
        <Select
          allowClear
          placeholder="Every kind"
          style={{ width: 200 }}
          value={kind}
          onChange={(v) => setKind(v)}
          options={Object.values(RESOURCES).map((d) => ({ value: d.kind, label: d.plural }))}
          data-testid="log-kind"
        />
        <Select
          allowClear
          placeholder="Every action"
          style={{ width: 160 }}
          value={action}
          onChange={(v) => setAction(v)}
          options={ACTIVITY_ACTIONS.map((a) => ({ value: a, label: a }))}
        />
        <Button onClick={() => void load().then(() => message.success('Up to date'))}>Refresh</Button>
      </Space>
      <Table<ActivityEntry>
        rowKey="id"
        size="middle"
        loading={loading}
        columns={columns}
        dataSource={entries}
        pagination={false}
        locale={{ emptyText: 'No changes recorded' }}
        expandable={{
          expandedRowRender: (e) => (
            <Table
              size="small"
              rowKey="field"
              pagination={false}
              dataSource={diffFields(e.before, e.after)}
              columns={[
                { title: 'Field', dataIndex: 'field', width: 200 },
                {
                  title: 'Before',
                  dataIndex: 'before',
                  render: (v: unknown) => <code style={VALUE_STYLE}>{showValue(v)}</code>,
                },
                {
                  title: 'After',
                  dataIndex: 'after',
                  render: (v: unknown) => <code style={VALUE_STYLE}>{showValue(v)}</code>,
                },
              ]}
            />
          ),
        }}
      />
      {more && (
        <div style={{ textAlign: 'center', marginTop: 12 }}>
          <Button loading={loading} onClick={() => void load(entries[entries.length - 1]?.id)} data-testid="log-more">
            Older changes
          </Button>
        </div>
      )}
    </Card>
  );
}
